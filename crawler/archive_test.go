package crawler

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"strings"
	"testing"

	"github.com/bloomcrawl/bloomcrawl/archive"
	"github.com/bloomcrawl/bloomcrawl/configs"
	"github.com/bloomcrawl/bloomcrawl/internal/samplesite"
	"github.com/bloomcrawl/bloomcrawl/lab/warccheck"
	"github.com/bloomcrawl/bloomcrawl/storage"
)

// TestCrawlWritesWARC crawls the sample site with WARC output and reads
// every file back: the generic invariants (warccheck.Check: digests, ids,
// links, order), one request record per request the site answered, each
// payload byte-identical to what the site serves, and exactly the revisit
// and metadata records the Manifest and the store's verdicts call for.
func TestCrawlWritesWARC(t *testing.T) {
	site := samplesite.NewWithOptions(samplesite.Options{SlowDelay: -1})
	base, stop, err := site.Start(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	m := site.Manifest()
	dir, warcDir := t.TempDir(), t.TempDir()
	cfg := siteConfig(base)
	cfg.Store.Dir = dir
	db, err := storage.Open(dir, StoreOptions(cfg.Store))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	aw, err := archive.Open(archive.Options{Dir: warcDir, MaxBytes: 32 << 10, Index: db})
	if err != nil {
		t.Fatal(err)
	}
	r := crawlDB(t, context.Background(), cfg, db, nil, nil, func(o *Options) { o.Archive = aw })
	if err := aw.Close(); err != nil { // saves its index entries to the store: before db.Close
		t.Fatal(err)
	}
	files, ws := aw.Files(), aw.Stats()
	if r.err != nil {
		t.Fatal(r.err)
	}
	checkManifest(t, m, r)
	if len(files) < 2 {
		t.Errorf("%d WARC files, want several (max 32 KiB each)", len(files))
	}
	recs, err := warccheck.Read(files)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range warccheck.Check(recs) {
		t.Error(e)
	}
	t.Logf("%d files, %+v", len(files), ws)
	t.Run("warcio", func(t *testing.T) {
		// An independent reader (Node's warcio) sees the same records.
		for _, e := range warccheck.CheckWithWarcio(warccheck.Warcio(t), files, recs) {
			t.Error(e)
		}
	})
	t.Run("cdxj", func(t *testing.T) {
		// The .cdxj beside each file agrees with warcio's cdx-index, line for line.
		var ours []byte
		for _, f := range files {
			b, err := os.ReadFile(archive.CDXJName(f))
			if err != nil {
				t.Fatal(err)
			}
			ours = append(ours, b...)
		}
		want, err := warccheck.CDXJ(warccheck.Warcio(t), files)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range warccheck.CompareCDXJ(warccheck.SortedLines(ours), want) {
			t.Error(e)
		}
		t.Logf("%d CDXJ lines agree with warcio", len(want))
	})

	pathOf := func(uri string) string {
		u, err := url.Parse(uri)
		if err != nil {
			t.Fatalf("record URI %q: %v", uri, err)
		}
		return u.RequestURI()
	}
	hits := requestCounts(site) // before get below asks again
	byType := map[string][]*warccheck.Record{}
	requests := map[string]int{}
	for _, rec := range recs {
		byType[rec.Type] = append(byType[rec.Type], rec)
		if rec.Type == "request" {
			requests[pathOf(rec.URI)]++
		}
	}
	if int64(len(byType["response"])) != ws.Responses || int64(len(byType["revisit"])) != ws.Revisits || int64(len(byType["metadata"])) != ws.Metadata {
		t.Errorf("read back %d responses, %d revisits, %d metadata; writer counted %+v",
			len(byType["response"]), len(byType["revisit"]), len(byType["metadata"]), ws)
	}

	// Every request the site answered is archived, once per request.
	for p, n := range hits {
		if requests[p] != n {
			t.Errorf("%s: the site answered %d requests, the WARC holds %d", p, n, requests[p])
		}
	}
	for p, n := range requests {
		if _, ok := hits[p]; !ok {
			t.Errorf("%s: %d request records, never requested", p, n)
		}
	}

	// Payloads are the bytes the site serves (GBK pages stay GBK).
	for _, rec := range byType["response"] {
		if rec.Header.Get("WARC-Truncated") != "" {
			continue
		}
		want := get(t, rec.URI)
		if rec.Status == http.StatusOK && !bytes.Equal(rec.Payload, want) {
			t.Errorf("%s: payload of %d bytes differs from the %d bytes served", rec.URI, len(rec.Payload), len(want))
		}
	}
	for _, res := range m.Resources {
		found := false
		for _, rec := range byType["response"] {
			if pathOf(rec.URI) == res.Path {
				found = true
				if rec.Header.Get("WARC-Truncated") != "unspecified" || len(rec.Payload) != 0 || !strings.Contains(string(rec.Block), "Content-Type: "+res.ContentType) {
					t.Errorf("resource %s: want its headers only, WARC-Truncated unspecified; got %q", res.Path, rec.Block)
				}
			}
		}
		if !found {
			t.Errorf("resource %s: no response record", res.Path)
		}
	}
	if n := requests[m.RobotsTxt]; n == 0 {
		t.Errorf("robots.txt not archived")
	}

	// Revisits: per document, its URL and its byte-identical copies (and
	// the final hops of its redirects) give one response and revisits.
	wantRevisits := 0
	for _, d := range m.Docs {
		class := map[string]bool{d.Path: true}
		for _, c := range d.Copies {
			if c.Kind == samplesite.CopyIdentical {
				class[c.Path] = true
			}
		}
		var resp, rev int
		for _, rec := range append(byType["response"], byType["revisit"]...) {
			if class[pathOf(rec.URI)] && rec.Status == http.StatusOK {
				if rec.Type == "response" {
					resp++
				} else {
					rev++
				}
			}
		}
		fetched := 0
		for p := range class {
			fetched += hits[p]
		}
		if resp != 1 || resp+rev != fetched {
			t.Errorf("doc %s: %d responses and %d revisits for %d fetches of %v; want 1 response", d.Path, resp, rev, fetched, class)
		}
		wantRevisits += rev
	}
	okRevisits := 0
	for _, rec := range byType["revisit"] {
		if rec.Status == http.StatusOK {
			okRevisits++
		}
	}
	if okRevisits != wantRevisits {
		t.Errorf("%d revisits of 200 responses, want %d (one per repeated fetch of a document's identical bytes)", okRevisits, wantRevisits)
	}

	// Metadata: exactly one per URL the store maps to another URL's
	// document by title or content, when its bytes were not identical to
	// an earlier response's. A redirect's near-duplicate verdict goes with
	// the final hop, whose bytes equal the target's own fetch: one of the
	// two is a revisit, and which one depends on timing, so a metadata
	// record at the target is allowed, not required.
	revisited := map[string]bool{}
	for _, rec := range byType["revisit"] {
		revisited[rec.URI] = true
	}
	redirectTo := map[string]string{}
	for _, rd := range m.Redirects {
		redirectTo[rd.From] = rd.To
	}
	finalOf := func(p string) string {
		for range 10 {
			to, ok := redirectTo[p]
			if !ok {
				break
			}
			p = to
		}
		return p
	}
	want := map[string]storage.URLRecord{}  // metadata URI → the URL record it describes
	maybe := map[string]storage.URLRecord{} // the same, for redirects
	for _, rec := range r.urls {
		if !rec.Duplicate || (rec.Reason != "title" && rec.Reason != "content") {
			continue
		}
		p := pathOf(rec.URL)
		if revisited[rec.URL] {
			continue // byte-identical (/index.html): a revisit says it all
		}
		if f := finalOf(p); f != p {
			maybe[base+f] = rec
		} else {
			want[rec.URL] = rec
		}
	}
	got := map[string]*warccheck.Record{}
	for _, md := range byType["metadata"] {
		if got[md.URI] != nil {
			t.Errorf("two metadata records for %s", md.URI)
		}
		got[md.URI] = md
		if _, ok := want[md.URI]; !ok {
			if rec, ok := maybe[md.URI]; ok {
				want[md.URI] = rec
			}
		}
	}
	for u, rec := range want {
		md := got[u]
		if md == nil {
			t.Errorf("near-duplicate %s (%s, distance %d): no metadata record", u, rec.Reason, rec.Distance)
			continue
		}
		p := r.pages[rec.DocID]
		orig := p.URL
		if p.FinalURL != "" {
			orig = p.FinalURL
		}
		wantFields := map[string]string{
			"bloomcrawl-docid":              rec.DocID.String(),
			"bloomcrawl-duplicate-reason":   rec.Reason,
			"bloomcrawl-duplicate-distance": fmt.Sprint(rec.Distance),
			"bloomcrawl-original-uri":       orig,
		}
		for k, v := range wantFields {
			if md.Fields[k] != v {
				t.Errorf("metadata of %s: %s = %q, want %q", u, k, md.Fields[k], v)
			}
		}
		if md.Fields["bloomcrawl-original-record-id"] == "" {
			t.Errorf("metadata of %s: no original record id", u)
		}
	}
	for u := range got {
		if _, ok := want[u]; !ok {
			t.Errorf("unexpected metadata record for %s", u)
		}
	}
	if len(want) == 0 || wantRevisits == 0 {
		t.Errorf("the sample site should give near-duplicates (%d) and revisits (%d)", len(want), wantRevisits)
	}
	t.Logf("%d revisits, %d near-duplicate metadata records", len(byType["revisit"]), len(got))
}

func get(t *testing.T, u string) []byte {
	t.Helper()
	tr := &http.Transport{DisableCompression: true}
	defer tr.CloseIdleConnections()
	c := &http.Client{Transport: tr, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := c.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestCrawlWARCHeadsAsReceived: a crawl's WARC response records carry the
// server's head byte for byte (a field name in its own case, not
// canonicalized) when no proxy is in play — the crawler's transport is
// one the recorder can tap.
func TestCrawlWARCHeadsAsReceived(t *testing.T) {
	for _, k := range []string{"HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy"} {
		t.Setenv(k, "")
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header()["X-Odd-case"] = []string{"kept"}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, "<html><head><title>t</title></head><body><p>as received</p></body></html>")
	}))
	defer srv.Close()
	cfg := siteConfig(srv.URL + "/")
	cfg.Politeness.ObeyRobots = false
	recs := warcCrawl(t, cfg)
	found := false
	for _, rec := range recs {
		if rec.Type == "response" {
			found = true
			if !bytes.Contains(rec.Block, []byte("\r\nX-Odd-case: kept\r\n")) {
				t.Errorf("%s: response head not as received:\n%s", rec.URI, rec.Block[:bytes.Index(rec.Block, []byte("\r\n\r\n"))])
			}
		}
	}
	if !found {
		t.Error("no response record")
	}
}

// warcCrawl crawls cfg into a new store with WARC output (default
// archive options) and returns the records read back, after failing t on
// any crawl or archive error.
func warcCrawl(t *testing.T, cfg *configs.Config) []*warccheck.Record {
	t.Helper()
	cfg.Store.Dir = t.TempDir()
	db, err := storage.Open(cfg.Store.Dir, StoreOptions(cfg.Store))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	aw, err := archive.Open(archive.Options{Dir: t.TempDir(), Index: db})
	if err != nil {
		t.Fatal(err)
	}
	r := crawlDB(t, context.Background(), cfg, db, nil, nil, func(o *Options) { o.Archive = aw })
	if err := aw.Close(); err != nil { // saves its index entries to the store: before db.Close
		t.Fatal(err)
	}
	if r.err != nil {
		t.Fatal(r.err)
	}
	recs, err := warccheck.Read(aw.Files())
	if err != nil {
		t.Fatal(err)
	}
	return recs
}
