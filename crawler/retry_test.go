package crawler

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// TestRetriesAndBodyLimit: transient failures (503 with Retry-After, a
// dropped connection, 429) are tried again up to fetch.retries times;
// permanent ones (404, a redirect loop) are not; a body without
// Content-Length that runs past fetch.max_body_bytes is refused, not stored
// cut.
func TestRetriesAndBodyLimit(t *testing.T) {
	var mu sync.Mutex
	hits := map[string]int{}
	page := func(w http.ResponseWriter, title string) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, "<html><head><title>%s</title></head><body><p>%s is a page about %s with enough words to fingerprint it properly here.</p></body></html>", title, title, strings.Repeat(title+" ", 30))
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		hits[r.URL.Path]++
		n := hits[r.URL.Path]
		mu.Unlock()
		switch r.URL.Path {
		case "/":
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprint(w, `<html><body><a href="/flaky">a</a> <a href="/reset">b</a> <a href="/gone">c</a>
				<a href="/limit">d</a> <a href="/loop">e</a> <a href="/big">f</a></body></html>`)
		case "/flaky":
			if n <= 2 {
				w.Header().Set("Retry-After", "0")
				http.Error(w, "busy", http.StatusServiceUnavailable)
				return
			}
			page(w, "flaky")
		case "/reset":
			if n == 1 { // the body is cut off after its first bytes
				w.Header().Set("Content-Type", "text/html")
				w.Header().Set("Content-Length", "1000")
				fmt.Fprint(w, "<html><body>")
				w.(http.Flusher).Flush()
				panic(http.ErrAbortHandler)
			}
			page(w, "reset")
		case "/limit":
			http.Error(w, "slow down", http.StatusTooManyRequests)
		case "/loop":
			http.Redirect(w, r, "/loop", http.StatusFound)
		case "/big":
			w.Header().Set("Content-Type", "text/html")
			for i := 0; i < 20; i++ { // 2,000 bytes in chunks: no Content-Length
				fmt.Fprint(w, strings.Repeat("x", 100))
				w.(http.Flusher).Flush()
			}
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()

	cfg := siteConfig(srv.URL)
	cfg.Fetch.MaxBodyBytes = 1000
	cfg.Fetch.Retries = 2
	r := crawlInto(t, context.Background(), cfg, t.TempDir(), nil, nil, func(o *Options) { o.RetryBackoff = 5 * time.Millisecond })
	if r.err != nil {
		t.Fatal(r.err)
	}
	mu.Lock()
	defer mu.Unlock()
	for path, want := range map[string]int{"/flaky": 3, "/reset": 2, "/gone": 1, "/limit": 3, "/loop": 1, "/big": 1} {
		if hits[path] != want {
			t.Errorf("%s requested %d times, want %d", path, hits[path], want)
		}
	}
	for _, p := range []string{"/flaky", "/reset"} {
		if rec := r.urls[p]; rec.DocID == 0 || rec.Err != "" {
			t.Errorf("%s: record %+v, want a stored page", p, rec)
		}
	}
	if rec := r.urls["/limit"]; rec.DocID != 0 || rec.Status != http.StatusTooManyRequests {
		t.Errorf("/limit: record %+v, want an error with status 429", rec)
	}
	if rec := r.urls["/big"]; rec.DocID != 0 || !strings.Contains(rec.Err, "exceeds fetch.max_body_bytes (1000)") {
		t.Errorf("/big: record %+v, want refused for its size", rec)
	}
	if r.stats.Retries != 5 {
		t.Errorf("stats.Retries = %d, want 5 (2 /flaky, 1 /reset, 2 /limit)", r.stats.Retries)
	}
}

func TestRetryable(t *testing.T) {
	refused := &net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED}
	for _, c := range []struct {
		name string
		j    job
		want bool
	}{
		{"connection refused", job{err: &url.Error{Op: "Get", URL: "http://x/", Err: refused}}, true},
		{"unknown host", job{err: &url.Error{Op: "Get", URL: "http://x/", Err: &net.DNSError{Err: "no such host", Name: "x", IsNotFound: true}}}, false},
		{"DNS timeout", job{err: &url.Error{Op: "Get", URL: "http://x/", Err: &net.DNSError{Err: "timeout", Name: "x", IsTimeout: true}}}, true},
		{"redirect refused", job{err: &url.Error{Op: "Get", URL: "http://x/", Err: redirectError{errors.New("crawler: redirect loop")}}}, false},
		{"body cut off", job{status: 200, err: io.ErrUnexpectedEOF}, true},
		{"undecodable charset", job{status: 200, err: errors.New("charset: cannot convert")}, false},
		{"503", job{status: 503, err: errors.New("Service Unavailable")}, true},
		{"429", job{status: 429, err: errors.New("Too Many Requests")}, true},
		{"404", job{status: 404, err: errors.New("Not Found")}, false},
		{"too large", job{status: 200, tooLarge: -1, err: io.ErrUnexpectedEOF}, false},
		{"success", job{status: 200}, false},
	} {
		if got := retryable(&c.j); got != c.want {
			t.Errorf("%s: retryable = %v, want %v", c.name, got, c.want)
		}
	}
}
