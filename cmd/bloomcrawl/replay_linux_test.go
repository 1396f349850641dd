package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bloomcrawl/bloomcrawl/lab/warccheck"
)

// replaySite serves three linked pages, each with a sentence no other page
// has: / as is, /gzip gzip-encoded, /chunked in chunks (no
// Content-Length, flushed in parts).
func replaySite() http.Handler {
	page := func(title, text, links string) string {
		return "<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>" + title + "</title></head><body><main><h1>" + title +
			"</h1><p>" + text + "</p>" + links + "</main></body></html>\n"
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/{$}", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, page("Replay home", "Seventeen lighthouses guard the replayed coast.",
			`<a href="/gzip">gzip</a> <a href="/chunked">chunked</a>`))
	})
	mux.HandleFunc("/gzip", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("Content-Encoding", "gzip")
		zw := gzip.NewWriter(w)
		fmt.Fprint(zw, page("Replay gzip", "A compressed heron counts the tides.", `<a href="/">home</a>`))
		zw.Close()
	})
	mux.HandleFunc("/chunked", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		body := page("Replay chunked", "Chunk by chunk the orchard was archived.", `<a href="/">home</a>`)
		half := len(body) / 2
		fmt.Fprint(w, body[:half])
		w.(http.Flusher).Flush()
		fmt.Fprint(w, body[half:])
	})
	return mux
}

// TestWACZReplaysInBrowser is the measure of the WACZ output: a crawl's
// package (crawl --wacz) loaded by replayweb.page (the npm package's ui.js
// and sw.js, served on a loopback port with the WACZ; nothing from a CDN)
// in headless Chromium shows each crawled page, whose text is read out of
// the replay iframe: a plain page, a gzip-encoded one and a chunked one.
func TestWACZReplaysInBrowser(t *testing.T) {
	warccheck.ReplayDir(t)
	warccheck.Chromium(t)
	srv := httptest.NewServer(replaySite())
	t.Cleanup(srv.Close)
	tmp := t.TempDir()
	wacz := filepath.Join(tmp, "crawl.wacz")
	var out, errb bytes.Buffer
	args := []string{"crawl", "--seed", srv.URL + "/", "--store", filepath.Join(tmp, "s"), "--warc", filepath.Join(tmp, "w"), "--wacz", wacz, "--json"}
	if code := run(context.Background(), args, &out, &errb); code != 0 {
		t.Fatalf("crawl: exit %d\n%s", code, errb.String())
	}
	if _, errs := warccheck.CheckWACZ(wacz); len(errs) > 0 {
		t.Fatalf("%s: %v", wacz, errs)
	}
	r := warccheck.NewReplayer(t, wacz)
	for _, p := range []struct{ path, title, text string }{
		{"/", "Replay home", "Seventeen lighthouses guard the replayed coast."},
		{"/gzip", "Replay gzip", "A compressed heron counts the tides."},
		{"/chunked", "Replay chunked", "Chunk by chunk the orchard was archived."},
	} {
		got, err := r.Text(srv.URL+p.path, p.text, 90*time.Second)
		if err != nil {
			t.Errorf("replaying %s: %v", p.path, err)
			continue
		}
		if got.Title != p.title || !strings.Contains(got.FrameURL, "/replay/w/") {
			t.Errorf("replaying %s: frame %s, title %q, want %q", p.path, got.FrameURL, got.Title, p.title)
		}
		t.Logf("%s replayed in %s: %q", p.path, got.FrameURL, got.Text)
	}
	// wabac.js reads the package by range, as it reads a remote WACZ
	if r.Ranges() == 0 {
		t.Errorf("no range request for the WACZ")
	}
	t.Logf("%d range requests for the WACZ", r.Ranges())
	// a URL that was not crawled does not replay: the check can fail
	if got, err := r.Text(srv.URL+"/never-crawled", "Replay", 5*time.Second); err == nil {
		t.Errorf("a URL never crawled replayed: %+v", got)
	}
	for _, p := range r.Problems() {
		t.Errorf("replay: %s", p)
	}
	for _, l := range r.Logged() {
		t.Logf("%s", l)
	}
}
