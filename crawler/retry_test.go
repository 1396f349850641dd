package crawler

import (
	"context"
	"crypto/tls"
	"crypto/x509"
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

	"github.com/gocolly/colly/v2"
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
		{"connection reset", job{err: &url.Error{Op: "Get", URL: "http://x/", Err: &net.OpError{Op: "read", Net: "tcp", Err: syscall.ECONNRESET}}}, true},
		{"client timeout", job{err: &url.Error{Op: "Get", URL: "http://x/", Err: context.DeadlineExceeded}}, true},
		{"certificate", job{err: &url.Error{Op: "Get", URL: "https://x/", Err: &tls.CertificateVerificationError{Err: x509.UnknownAuthorityError{}}}}, false},
		{"robots.txt", job{err: colly.ErrRobotsTxtBlocked}, false},
		{"colly refusal", job{err: colly.ErrForbiddenDomain}, false},
	} {
		if got := retryable(&c.j); got != c.want {
			t.Errorf("%s: retryable = %v, want %v", c.name, got, c.want)
		}
	}
}

// TestRetryWaitEndsWithTheCrawl: a worker waiting to retry (here for a
// 60 s Retry-After) stops waiting when the crawl is cancelled, and the URL
// stays queued for the next run instead of being recorded as failed.
func TestRetryWaitEndsWithTheCrawl(t *testing.T) {
	asked := make(chan struct{}, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/" {
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprint(w, `<html><body><p>home page text</p><a href="/busy">busy</a></body></html>`)
			return
		}
		if r.URL.Path == "/robots.txt" {
			// (a 503 robots.txt would disallow the whole host, RFC 9309 §2.3.1.4)
			http.NotFound(w, r)
			return
		}
		select {
		case asked <- struct{}{}:
		default:
		}
		w.Header().Set("Retry-After", "60")
		http.Error(w, "busy", http.StatusServiceUnavailable)
	}))
	defer srv.Close()
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		<-asked
		time.Sleep(100 * time.Millisecond) // the worker is now waiting to retry
		cancel()
	}()
	start := time.Now()
	// A long grace: only the retry's own watch on the crawl can end it soon.
	r := crawlInto(t, ctx, siteConfig(srv.URL), t.TempDir(), nil, nil, func(o *Options) { o.Grace = 40 * time.Second })
	if !errors.Is(r.err, context.Canceled) {
		t.Fatalf("Run: %v, want context.Canceled", r.err)
	}
	if el := time.Since(start); el > 20*time.Second {
		t.Fatalf("Run returned after %v: the retry wait outlived the crawl", el)
	}
	if rec, ok := r.urls["/busy"]; ok {
		t.Errorf("/busy recorded as %+v; want it left queued", rec)
	}
	if r.queue != 1 {
		t.Errorf("queue holds %d entries, want 1 (/busy)", r.queue)
	}
}
