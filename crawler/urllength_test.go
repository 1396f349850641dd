package crawler

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/bloomcrawl/bloomcrawl/configs"
	"github.com/bloomcrawl/bloomcrawl/storage"
)

// TestOverlongURLs: a 20,000-byte seed is refused with a message naming it
// before anything is stored, even with scope.max_url_length at the
// store's limit, and a 20,000-byte link is dropped while the crawl goes on.
func TestOverlongURLs(t *testing.T) {
	long := "/" + strings.Repeat("x", 20_000-len("http://127.0.0.1:65535/"))
	var longHits int
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.URL.Path == "/":
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprint(w, page("Home", "", "", words(1, 80), a(long), a("/b")))
		case r.URL.Path == "/b":
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprint(w, page("B", "", "", words(2, 80)))
		case strings.HasPrefix(r.URL.Path, "/xxx"):
			longHits++
			http.NotFound(w, r)
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()

	dir := t.TempDir()
	cfg := siteConfig(srv.URL)
	cfg.Scope.Sitemaps = configs.Sitemaps{Off: true}
	cfg.Scope.MaxURLLength = storage.MaxURLBytes
	cfg.Seeds = []string{srv.URL + long}
	cfg.Store.Dir = dir
	db, err := storage.Open(dir, StoreOptions(cfg.Store))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	o, err := NewOptions(cfg, Options{Store: db}, false)
	if err == nil {
		_, err = New(o)
	}
	if err == nil || !strings.Contains(err.Error(), "seeds[0]") || !strings.Contains(err.Error(), "is 20000 bytes, longer than scope.max_url_length (16384)") {
		t.Fatalf("New with a 20,000-byte seed: %v", err)
	}
	if n, _ := db.QueueLen(context.Background()); n != 0 {
		t.Errorf("%d entries queued for a refused seed", n)
	}

	cfg.Seeds = []string{srv.URL + "/"}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var logBuf syncBuffer
	r := crawlDB(t, ctx, cfg, db, nil, nil, func(o *Options) { o.Logger = slog.New(slog.NewTextHandler(&logBuf, nil)) })
	if r.err != nil {
		t.Fatalf("crawl with a 20,000-byte link: %v", r.err)
	}
	if _, ok := r.urls["/b"]; !ok || longHits != 0 || len(r.urls) != 2 {
		t.Errorf("records %d, long link requested %d times: want / and /b only", len(r.urls), longHits)
	}
	if log := logBuf.String(); !strings.Contains(log, "link longer than scope.max_url_length; not followed") || !strings.Contains(log, "bytes=20000") {
		t.Errorf("no message for the 20,000-byte link in the log:\n%s", log)
	}
}
