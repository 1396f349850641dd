//go:build linux

package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/bloomcrawl/bloomcrawl/lab/warccheck"
)

// rawSite serves what a store-only export used to lose: a redirect hop,
// two URLs with byte-identical bodies, a PNG (not downloaded: headers
// only), a gzip-encoded page, a chunked page, a 404 and a repeated header
// field in odd case.
func rawSite() http.Handler {
	page := func(w http.ResponseWriter, title, links string) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header()["X-Odd-case"] = []string{"one", "two"}
		fmt.Fprintf(w, "<html><head><title>%s</title></head><body><p>%s is a page of its own.</p>%s</body></html>", title, title, links)
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch p := r.URL.Path; {
		case p == "/":
			links := ""
			for _, l := range []string{"/a", "/b", "/dup/1", "/dup/2", "/old", "/img.png", "/gz", "/chunk", "/missing"} {
				links += fmt.Sprintf("<a href=%q>%s</a>", l, l)
			}
			page(w, "Home", links)
		case p == "/a" || p == "/b" || p == "/new":
			page(w, "Page "+p, `<a href="/">home</a>`)
		case strings.HasPrefix(p, "/dup/"):
			page(w, "Same", "")
		case p == "/old":
			http.Redirect(w, r, "/new", http.StatusMovedPermanently)
		case p == "/img.png":
			w.Header().Set("Content-Type", "image/png")
			w.Write([]byte("\x89PNG\r\n\x1a\nnot really a png"))
		case p == "/gz":
			w.Header().Set("Content-Type", "text/html")
			w.Header().Set("Content-Encoding", "gzip")
			zw := gzip.NewWriter(w)
			fmt.Fprint(zw, "<html><head><title>Gzipped</title></head><body><p>compressed on the wire</p></body></html>")
			zw.Close()
		case p == "/chunk":
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprint(w, "<html><head><title>Chunked</title></head><body><p>first chunk</p>")
			w.(http.Flusher).Flush()
			fmt.Fprint(w, "<p>second chunk</p></body></html>")
		default:
			http.NotFound(w, r)
		}
	})
}

// rawRecord is a record with what differs between two runs of the same
// exchange taken out: its WARC-Record-ID and the fields naming other
// records' ids.
type rawRecord struct{ typ, uri, header, block string }

func comparable(r *warccheck.Record) rawRecord {
	var h []string
	for k, v := range r.Header {
		switch strings.ToLower(k) {
		case "warc-record-id", "warc-concurrent-to", "warc-refers-to":
			continue
		}
		h = append(h, strings.ToLower(k)+": "+v)
	}
	slices.Sort(h)
	return rawRecord{r.Type, r.URI, strings.Join(h, "\n"), string(r.Block)}
}

// TestKeepRawExport crawls rawSite once with --warc and store.keep_raw,
// then exports the store with query export --warc: the export holds the
// crawl's request, response and revisit records in the same order, with
// the same WARC headers (WARC-Date, digests, WARC-Truncated, revisit
// targets by URI and date) and the same blocks, byte for byte; only
// record ids differ. warcio reads it. Without keep_raw the export says it
// is lossy.
func TestKeepRawExport(t *testing.T) {
	srv := httptest.NewServer(rawSite())
	defer srv.Close()
	tmp := t.TempDir()
	cfg := filepath.Join(tmp, "c.yaml")
	if err := os.WriteFile(cfg, []byte("store:\n  keep_raw: true\nscope:\n  sitemaps: off\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	store, warcDir := filepath.Join(tmp, "s"), filepath.Join(tmp, "w")
	if out, errOut, code := runCmd(t, "crawl", cfg, "--seed", srv.URL+"/", "--store", store, "--warc", warcDir, "--json"); code != 0 {
		t.Fatalf("crawl: exit %d\n%s\n%s", code, out, errOut)
	}
	files, err := warcFiles(warcDir)
	if err != nil {
		t.Fatal(err)
	}
	crawled, err := warccheck.Read(files)
	if err != nil {
		t.Fatal(err)
	}
	export := filepath.Join(tmp, "export.warc.gz")
	out, errOut, code := runQ(t, "--store", store, "export", "--warc", export)
	if code != 0 {
		t.Fatalf("export --warc: exit %d: %s", code, errOut)
	}
	if !strings.Contains(out, "lossless") || strings.Contains(out, "without store.keep_raw") {
		t.Errorf("export summary %q does not say lossless, or says URLs were not kept", out)
	}
	exported, err := warccheck.Read([]string{export})
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range warccheck.Check(exported) {
		t.Error(e)
	}
	for _, e := range warccheck.CheckWithWarcio(warccheck.Warcio(t), []string{export}, exported) {
		t.Error(e)
	}
	var want, got []rawRecord
	types := map[string]int{}
	for _, r := range crawled {
		if r.Type != "warcinfo" {
			want = append(want, comparable(r))
			types[r.Type]++
		}
	}
	for _, r := range exported {
		if r.Type != "warcinfo" {
			got = append(got, comparable(r))
		}
	}
	if len(got) != len(want) {
		t.Errorf("export has %d records, the crawl's WARC %d", len(got), len(want))
	}
	for i := range min(len(got), len(want)) {
		if got[i] != want[i] {
			t.Errorf("record %d differs:\ncrawl:  %s %s\n%s\n%q\nexport: %s %s\n%s\n%q", i, want[i].typ, want[i].uri, want[i].header, want[i].block,
				got[i].typ, got[i].uri, got[i].header, got[i].block)
		}
	}
	// the site has what a store-only export loses: make sure the crawl had it
	heads := map[string]string{}
	for _, r := range crawled {
		if r.Type == "response" || r.Type == "revisit" {
			head, _, _ := strings.Cut(string(r.Block), "\r\n\r\n")
			heads[strings.TrimPrefix(r.URI, srv.URL)] = head
		}
	}
	if types["revisit"] != 1 || types["request"] < 12 {
		t.Errorf("crawl wrote %v, want one revisit (/dup/2) and a request per fetch", types)
	}
	for path, want := range map[string]string{"/old": " 301 ", "/gz": "Content-Encoding: gzip",
		"/img.png": "image/png", "/a": "x-odd-case: one\r\nx-odd-case: two", "/missing": " 404 "} {
		if !strings.Contains(heads[path], want) && !strings.Contains(strings.ToLower(heads[path]), want) {
			t.Errorf("crawl's response of %s: head %q lacks %q", path, heads[path], want)
		}
	}
	t.Logf("%d records identical (%v)", len(got), types)

	// keep_raw without --warc: the same records from the store alone
	store3 := filepath.Join(tmp, "s3")
	if _, errOut, code := runCmd(t, "crawl", cfg, "--seed", srv.URL+"/", "--store", store3, "--json"); code != 0 {
		t.Fatalf("crawl: exit %d\n%s", code, errOut)
	}
	export3 := filepath.Join(tmp, "export3.warc.gz")
	if out, errOut, code := runQ(t, "--store", store3, "export", "--warc", export3); code != 0 || !strings.Contains(out, "lossless") {
		t.Fatalf("export --warc: exit %d: %s %s", code, out, errOut)
	}
	again, err := warccheck.Read([]string{export3})
	if err != nil {
		t.Fatal(err)
	}
	types3 := map[string]int{}
	for _, r := range again {
		if r.Type != "warcinfo" {
			types3[r.Type]++
		}
	}
	if fmt.Sprint(types3) != fmt.Sprint(types) {
		t.Errorf("keep_raw without --warc exports %v, with --warc %v", types3, types)
	}
	if _, errOut, code := runQ(t, "--store", store3, "export", "--warc", export3); code == 0 || !strings.Contains(errOut, "exists") {
		t.Errorf("export over an existing file: exit %d, %s", code, errOut)
	}

	// without keep_raw: the store-only export, which says it is lossy
	store2 := filepath.Join(tmp, "s2")
	if _, errOut, code := runCmd(t, "crawl", "--seed", srv.URL+"/", "--store", store2, "--json"); code != 0 {
		t.Fatalf("crawl: exit %d\n%s", code, errOut)
	}
	out, errOut, code = runQ(t, "--store", store2, "export", "--warc", filepath.Join(tmp, "lossy.warc.gz"))
	if code != 0 || !strings.Contains(out, "lossy") {
		t.Errorf("export without keep_raw: exit %d, %q %s", code, out, errOut)
	}
	// keep_raw set on that store later: only the later fetches are kept,
	// and the export says how many URLs it lacks
	if _, errOut, code := runCmd(t, "crawl", cfg, "--seed", srv.URL+"/late", "--store", store2, "--json"); code != 0 {
		t.Fatalf("crawl: exit %d\n%s", code, errOut)
	}
	out, errOut, code = runQ(t, "--store", store2, "export", "--warc", filepath.Join(tmp, "part.warc.gz"))
	if want := fmt.Sprintf("%d URLs of the store were fetched without store.keep_raw", types["response"]+types["revisit"]-1); code != 0 || !strings.Contains(out, "lossless") || !strings.Contains(out, want) {
		t.Errorf("export of a store partly kept: exit %d, %q (want %q) %s", code, out, want, errOut)
	}
}

func runCmd(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(context.Background(), args, &out, &errb)
	return out.String(), errb.String(), code
}
