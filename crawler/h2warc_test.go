package crawler

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bloomcrawl/bloomcrawl/archive"
	"github.com/bloomcrawl/bloomcrawl/lab/warccheck"
)

// TestCrawlWARCOverHTTP2: a crawl of a site that speaks HTTP/2 over TLS
// writes its exchanges as HTTP/1.1 heads with WARC-Protocol h2: every
// response record's status line is "HTTP/1.1 CODE " and its fields have
// the lower-case names of HTTP/2 in the order the server sent them (Go's
// HTTP/2 server sends content-type before content-length and date); the
// pages are stored, the records read back with right digests, and warcio
// indexes them as we do.
func TestCrawlWARCOverHTTP2(t *testing.T) {
	_, files := h2Crawl(t)
	recs, err := warccheck.Read(files)
	if err != nil {
		t.Fatal(err)
	}
	responses := 0
	for _, rec := range recs {
		switch rec.Type {
		case "request":
			if !bytes.Contains(rec.Block, []byte(" HTTP/1.1\r\nhost: ")) || rec.Header.Get("WARC-Protocol") == "" {
				t.Errorf("request record %s: %q, WARC-Protocol %q", rec.URI, rec.Block, rec.Header.Get("WARC-Protocol"))
			}
		case "response", "revisit":
			responses++
			head, _, _ := bytes.Cut(rec.Block, []byte("\r\n\r\n"))
			want := "HTTP/1.1 200 \r\nx-first: 1\r\ncontent-type: text/html; charset=utf-8\r\n"
			if strings.HasSuffix(rec.URI, "/robots.txt") {
				want = "HTTP/1.1 404 \r\ncontent-type: text/plain; charset=utf-8\r\n"
			}
			if !bytes.HasPrefix(rec.Block, []byte(want)) || rec.Header.Get("WARC-Protocol") == "" {
				t.Errorf("%s record %s: head %q, WARC-Protocol %q; want it to start %q", rec.Type, rec.URI, head, rec.Header.Get("WARC-Protocol"), want)
			}
		}
	}
	if responses != 4 {
		t.Errorf("%d responses, want 4 (robots.txt and 3 pages)", responses)
	}
	want, err := warccheck.CDXJ(warccheck.Warcio(t), files)
	if err != nil {
		t.Fatal(err)
	}
	var ours []byte
	for _, f := range files {
		b, err := os.ReadFile(archive.CDXJName(f))
		if err != nil {
			t.Fatal(err)
		}
		ours = append(ours, b...)
	}
	for _, e := range warccheck.CompareCDXJ(warccheck.SortedLines(ours), want) {
		t.Error(e)
	}
}

// h2Crawl crawls an HTTP/2 test site (three pages) with WARC output and
// returns the site and the WARC files.
func h2Crawl(t *testing.T) (*httptest.Server, []string) {
	t.Helper()
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !r.ProtoAtLeast(2, 0) {
			http.Error(w, "HTTP/2 only", http.StatusHTTPVersionNotSupported)
			return
		}
		switch r.URL.Path {
		case "/":
			w.Header().Set("X-First", "1")
			fmt.Fprint(w, pageOf("h2 home", 541, a("/p1"), a("/p2")))
		case "/p1", "/p2":
			w.Header().Set("X-First", "1")
			fmt.Fprint(w, pageOf("h2 "+r.URL.Path, 542+int(r.URL.Path[2])))
		default:
			http.NotFound(w, r)
		}
	}))
	srv.EnableHTTP2 = true
	srv.StartTLS()
	t.Cleanup(srv.Close)
	pool := x509.NewCertPool()
	pool.AddCert(srv.Certificate())
	cfg := accessConfig(srv.URL+"/", "127.0.0.1")
	warcDir := t.TempDir()
	r := accessCrawl(t, cfg, "", warcDir, func(c *Crawler) { c.access.tls = &tls.Config{RootCAs: pool} })
	if r.err != nil {
		t.Fatal(r.err)
	}
	if r.stored() != 3 {
		t.Fatalf("%d pages stored, want 3: %+v", r.stored(), r.recs)
	}
	files, err := filepath.Glob(filepath.Join(warcDir, "*.warc.gz"))
	if err != nil || len(files) == 0 {
		t.Fatalf("WARC files: %v %v", files, err)
	}
	return srv, files
}

// TestWACZOfHTTP2Replays: the WARC files of an HTTP/2 crawl ("HTTP/1.1 200 "
// status lines, lower-case fields, WARC-Protocol h2), packaged as WACZ,
// replay in replayweb.page in Chromium with their text
// (lab/warccheck.Replayer, as cmd/bloomcrawl's TestWACZReplaysInBrowser),
// with a plain CDXJ index and with a ZipNum index.
func TestWACZOfHTTP2Replays(t *testing.T) {
	warccheck.ReplayDir(t)
	warccheck.Chromium(t)
	srv, files := h2Crawl(t)
	for _, zipnum := range []bool{false, true} {
		wacz := filepath.Join(t.TempDir(), "h2.wacz")
		f, err := os.Create(wacz)
		if err != nil {
			t.Fatal(err)
		}
		o := archive.WACZOptions{}
		if zipnum { // a ZipNum index: 4 lines in blocks of 2
			o.ZipNumAbove, o.ZipNumBlock = 1, 2
		}
		if _, err := archive.WriteWACZ(context.Background(), f, files, o); err != nil {
			t.Fatal(err)
		}
		if err := f.Close(); err != nil {
			t.Fatal(err)
		}
		if w, errs := warccheck.CheckWACZ(wacz); len(errs) > 0 || w.ZipNum != zipnum {
			t.Fatalf("ZipNum %v: %v", zipnum, errs)
		}
		r := warccheck.NewReplayer(t, wacz)
		for _, p := range []struct {
			path, title string
			v           int
		}{{"/", "h2 home", 541}, {"/p1", "h2 /p1", 542 + '1'}} {
			text := strings.Join(strings.Fields(words(p.v, 60))[:6], " ")
			got, err := r.Text(srv.URL+p.path, text, 90*time.Second)
			if err != nil {
				t.Errorf("ZipNum %v: replaying %s: %v", zipnum, p.path, err)
				continue
			}
			if got.Title != p.title {
				t.Errorf("ZipNum %v: replaying %s: title %q, want %q", zipnum, p.path, got.Title, p.title)
			}
		}
		for _, p := range r.Problems() {
			t.Errorf("ZipNum %v: replay: %s", zipnum, p)
		}
	}
}
