package archive_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bloomcrawl/bloomcrawl/archive"
	"github.com/bloomcrawl/bloomcrawl/lab/warccheck"
	"github.com/bloomcrawl/bloomcrawl/storage"
)

func mustOpen(tb testing.TB, dir string) *storage.DB {
	tb.Helper()
	db, err := storage.Open(dir, nil)
	if err != nil {
		tb.Fatal(err)
	}
	return db
}

func gz(b []byte) []byte {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Write(b)
	zw.Close()
	return buf.Bytes()
}

// TestRecorderKeepsWireBytes: a gzip-encoded, chunked response is recorded
// compressed and chunked (as sent; Body de-chunked) while the client reads it decompressed, as it would
// without a Recorder; redirect hops are recorded with the chain's first
// request as origin; a body closed unread is marked truncated.
func TestRecorderKeepsWireBytes(t *testing.T) {
	page := []byte(strings.Repeat("<p>\xc4\xe3\xba\xc3 GBK bytes, not UTF-8</p>\n", 50))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/old":
			http.Redirect(w, r, "/page", http.StatusMovedPermanently)
		case "/page":
			if r.Header.Get("Accept-Encoding") != "gzip" {
				t.Errorf("request without Accept-Encoding: gzip: %v", r.Header)
			}
			w.Header().Set("Content-Type", "text/html; charset=gbk")
			w.Header().Set("Content-Encoding", "gzip")
			w.(http.Flusher).Flush() // chunked
			w.Write(gz(page))
		case "/big":
			w.Header().Set("Content-Type", "application/pdf")
			w.Write(bytes.Repeat([]byte("%PDF"), 10000))
		}
	}))
	defer srv.Close()
	var mu sync.Mutex
	var got []*archive.Exchange
	var origins []string
	c := &http.Client{Transport: &archive.Recorder{Next: srv.Client().Transport, Done: func(origin *http.Request, ex *archive.Exchange) {
		mu.Lock()
		defer mu.Unlock()
		got = append(got, ex)
		origins = append(origins, origin.URL.Path)
	}}}
	resp, err := c.Get(srv.URL + "/old")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !bytes.Equal(body, page) || !resp.Uncompressed || resp.Header.Get("Content-Encoding") != "" {
		t.Errorf("client got %d bytes (uncompressed %v, Content-Encoding %q), want the %d decompressed bytes",
			len(body), resp.Uncompressed, resp.Header.Get("Content-Encoding"), len(page))
	}
	resp, err = c.Get(srv.URL + "/big")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close() // unread, as the crawler aborts a non-HTML response
	mu.Lock()
	defer mu.Unlock()
	if len(got) != 3 {
		t.Fatalf("%d exchanges recorded, want 3", len(got))
	}
	if fmt.Sprint(origins) != "[/old /old /big]" {
		t.Errorf("origins %v", origins)
	}
	hop, final, big := got[0], got[1], got[2]
	if hop.Status != 301 || !strings.HasPrefix(string(hop.Response), "HTTP/1.1 301 Moved Permanently\r\n") || hop.Truncated != "" {
		t.Errorf("redirect hop: %d %q truncated %q", hop.Status, hop.Response, hop.Truncated)
	}
	if !bytes.Equal(final.Body, gz(page)) {
		t.Errorf("final body: %d bytes, want the %d gzip bytes sent", len(final.Body), len(gz(page)))
	}
	head := string(final.Response)
	for _, want := range []string{"HTTP/1.1 200 OK\r\n", "Content-Encoding: gzip\r\n", "Content-Type: text/html; charset=gbk\r\n"} {
		if !strings.Contains(head, want) {
			t.Errorf("response head %q lacks %q", head, want)
		}
	}
	if !strings.Contains(head, "Transfer-Encoding: chunked\r\n") || !strings.HasSuffix(head, "\r\n\r\n") {
		t.Errorf("response head %q: want the head as received (Transfer-Encoding: chunked), ending in CRLF CRLF", head)
	}
	if dechunked, err := io.ReadAll(httputil.NewChunkedReader(bytes.NewReader(final.RawBody))); err != nil || !bytes.Equal(dechunked, final.Body) {
		t.Errorf("raw body: %d bytes that de-chunk to %d bytes (%v), want the chunked form of the %d bytes of Body", len(final.RawBody), len(dechunked), err, len(final.Body))
	}
	if hop.RawBody != nil {
		t.Errorf("a body with Content-Length has no raw form apart from Body")
	}
	req := string(final.Request)
	if !strings.HasPrefix(req, "GET /page HTTP/1.1\r\nHost: 127.0.0.1:") || !strings.Contains(req, "Accept-Encoding: gzip\r\n") {
		t.Errorf("request head %q", req)
	}
	if final.IP != "127.0.0.1" || final.URL != srv.URL+"/page" {
		t.Errorf("final exchange IP %q URL %q", final.IP, final.URL)
	}
	if big.Truncated != "unspecified" || len(big.Body) != 0 {
		t.Errorf("unread body: truncated %q, %d bytes", big.Truncated, len(big.Body))
	}
}

func exchange(url, body string, at time.Time) *archive.Exchange {
	return &archive.Exchange{URL: url, Date: at, Status: 200,
		Request:  []byte("GET / HTTP/1.1\r\nHost: example.org\r\n\r\n"),
		Response: []byte(fmt.Sprintf("HTTP/1.1 200 OK\r\nContent-Length: %d\r\nContent-Type: text/html\r\n\r\n", len(body))),
		Body:     []byte(body)}
}

func open(t *testing.T, dir string, db *storage.DB, max int64) *archive.Writer {
	t.Helper()
	w, err := archive.Open(archive.Options{Dir: dir, Index: db, MaxBytes: max, Info: map[string]string{"robots": "obey"}})
	if err != nil {
		t.Fatal(err)
	}
	return w
}

func readAll(t *testing.T, files []string) []*warccheck.Record {
	t.Helper()
	recs, err := warccheck.Read(files)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range warccheck.Check(recs) {
		t.Error(e)
	}
	return recs
}

func types(recs []*warccheck.Record) string {
	var s []string
	for _, r := range recs {
		s = append(s, r.Type)
	}
	return strings.Join(s, " ")
}

// TestRevisitAcrossRuns: the payload-digest map lives in the store, so a
// second writer (a resumed crawl) writes a revisit for a payload the first
// one wrote, and a near-duplicate of a document the first one wrote names
// that document's response.
func TestRevisitAcrossRuns(t *testing.T) {
	dbDir, warcDir := t.TempDir(), t.TempDir()
	db := mustOpen(t, dbDir)
	ctx := context.Background()
	t0 := time.Date(2026, 11, 23, 9, 0, 0, 0, time.UTC)
	w1 := open(t, warcDir, db, 0)
	if err := w1.Write(ctx, archive.Fetch{Exchanges: []*archive.Exchange{exchange("http://example.org/a", "<p>same bytes</p>", t0)},
		Verdict: &archive.Verdict{DocID: 0xabc, Reason: "new"}}); err != nil {
		t.Fatal(err)
	}
	if err := w1.Close(); err != nil {
		t.Fatal(err)
	}
	db.Close()

	db = mustOpen(t, dbDir)
	defer db.Close()
	w2 := open(t, warcDir, db, 0)
	t1 := t0.Add(time.Hour)
	if err := w2.Write(ctx, archive.Fetch{Exchanges: []*archive.Exchange{exchange("http://example.org/b", "<p>same bytes</p>", t1)},
		Verdict: &archive.Verdict{DocID: 0xabc, Duplicate: true, Reason: "content", MatchURL: "http://example.org/a"}}); err != nil {
		t.Fatal(err)
	}
	if err := w2.Write(ctx, archive.Fetch{Exchanges: []*archive.Exchange{exchange("http://example.org/print/a", "<p>same bytes, print view</p>", t1)},
		Verdict: &archive.Verdict{DocID: 0xabc, Duplicate: true, Reason: "content", Distance: 1, MatchURL: "http://example.org/a"}}); err != nil {
		t.Fatal(err)
	}
	if err := w2.Close(); err != nil {
		t.Fatal(err)
	}
	files := append(w1.Files(), w2.Files()...)
	recs := readAll(t, files)
	if got := types(recs); got != "warcinfo request response warcinfo request revisit request response metadata" {
		t.Fatalf("records %s", got)
	}
	orig, rev, md := recs[2], recs[5], recs[8]
	if rev.Header.Get("WARC-Refers-To") != orig.ID || rev.Header.Get("WARC-Refers-To-Date") != "2026-11-23T09:00:00Z" {
		t.Errorf("revisit refers to %s at %s, want %s", rev.Header.Get("WARC-Refers-To"), rev.Header.Get("WARC-Refers-To-Date"), orig.ID)
	}
	want := map[string]string{"bloomcrawl-docid": "0000000000000abc", "bloomcrawl-original-record-id": orig.ID,
		"bloomcrawl-original-uri": "http://example.org/a", "bloomcrawl-duplicate-reason": "content", "bloomcrawl-duplicate-distance": "1"}
	for k, v := range want {
		if md.Fields[k] != v {
			t.Errorf("metadata %s = %q, want %q", k, md.Fields[k], v)
		}
	}
	if recs[0].Fields["robots"] != "obey" || recs[0].Fields["format"] != "WARC File Format 1.1" {
		t.Errorf("warcinfo fields %v", recs[0].Fields)
	}
}

// TestNearDuplicateBeforeItsOriginal: a near-duplicate judged while its
// original is still being written gets its metadata record once the
// original's response is written; one whose original is never written
// (stored by a crawl without WARC) gets it at Close, without a record id.
func TestNearDuplicateBeforeItsOriginal(t *testing.T) {
	db := mustOpen(t, t.TempDir())
	defer db.Close()
	w := open(t, t.TempDir(), db, 0)
	ctx := context.Background()
	now := time.Now().UTC()
	write := func(u, body string, v archive.Verdict) {
		t.Helper()
		if err := w.Write(ctx, archive.Fetch{Exchanges: []*archive.Exchange{exchange(u, body, now)}, Verdict: &v}); err != nil {
			t.Fatal(err)
		}
	}
	write("http://x/print", "print view", archive.Verdict{DocID: 1, Duplicate: true, Reason: "title", MatchURL: "http://x/a"})
	write("http://x/orphan", "copy of a page stored earlier", archive.Verdict{DocID: 2, Duplicate: true, Reason: "content", Distance: 2, MatchURL: "http://x/old"})
	write("http://x/a", "original", archive.Verdict{DocID: 1, Reason: "new"})
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	recs := readAll(t, w.Files())
	if got := types(recs); got != "warcinfo request response request response request response metadata metadata" {
		t.Fatalf("records %s", got)
	}
	md1, md2 := recs[7], recs[8]
	if md1.URI != "http://x/print" || md1.Fields["bloomcrawl-original-record-id"] != recs[6].ID || md1.Header.Get("WARC-Concurrent-To") != recs[2].ID {
		t.Errorf("metadata of the print view: %s %v", md1.URI, md1.Fields)
	}
	if md2.URI != "http://x/orphan" || md2.Fields["bloomcrawl-original-record-id"] != "" || md2.Fields["bloomcrawl-original-uri"] != "http://x/old" {
		t.Errorf("metadata of the orphan: %s %v", md2.URI, md2.Fields)
	}
}

// TestConcurrentIdenticalPayloads: of many identical payloads written at
// once, exactly one is a response and it precedes every revisit.
func TestConcurrentIdenticalPayloads(t *testing.T) {
	db := mustOpen(t, t.TempDir())
	defer db.Close()
	w := open(t, t.TempDir(), db, 4<<10) // rotates often
	var wg sync.WaitGroup
	errs := make(chan error, 40)
	for i := range 40 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			body := fmt.Sprintf("payload %d %s", i%4, strings.Repeat("x", 2000))
			errs <- w.Write(context.Background(), archive.Fetch{Exchanges: []*archive.Exchange{exchange(fmt.Sprintf("http://x/%d", i), body, time.Now().UTC())}})
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	files := w.Files()
	recs := readAll(t, files) // includes: no payload written twice as a response; revisits after their original
	n := map[string]int{}
	for _, r := range recs {
		n[r.Type]++
	}
	if n["response"] != 4 || n["revisit"] != 36 || n["warcinfo"] != len(files) || len(files) < 3 {
		t.Errorf("%v in %d files; want 4 responses, 36 revisits, several files", n, len(files))
	}
	name := regexp.MustCompile(`^bloomcrawl-\d{17}-\d{5}-[^-]+-\d+\.warc\.gz$`)
	for _, f := range files {
		if !name.MatchString(filepath.Base(f)) {
			t.Errorf("file name %s: want PREFIX-TIMESTAMP-SERIAL-HOST-PID.warc.gz", f)
		}
		if _, err := os.Stat(f); err != nil {
			t.Error(err)
		}
	}
}

// TestRevisitsPastTheIndexBatch: the digest map is saved to the store in
// batches; payloads from saved batches and from the unsaved one are all
// found again.
func TestRevisitsPastTheIndexBatch(t *testing.T) {
	db := mustOpen(t, t.TempDir())
	defer db.Close()
	w := open(t, t.TempDir(), db, 0)
	now := time.Now().UTC()
	for round := range 2 {
		for i := range 600 {
			ex := exchange(fmt.Sprintf("http://x/%d/%d", round, i), fmt.Sprintf("payload %d", i), now)
			if err := w.Write(context.Background(), archive.Fetch{Exchanges: []*archive.Exchange{ex}}); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if st := w.Stats(); st.Responses != 600 || st.Revisits != 600 {
		t.Errorf("%+v, want 600 responses and 600 revisits", st)
	}
	readAll(t, w.Files())
}
