package console_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/bloomcrawl/bloomcrawl/archive"
	"github.com/bloomcrawl/bloomcrawl/configs"
	"github.com/bloomcrawl/bloomcrawl/console"
	"github.com/bloomcrawl/bloomcrawl/crawler"
	"github.com/bloomcrawl/bloomcrawl/internal/samplesite"
	"github.com/bloomcrawl/bloomcrawl/storage"
)

// TestDocumentWARCRecord crawls the sample site with WARC output; once
// the WARC files are closed (and indexed), the document view links a
// page's response record and serves it.
func TestDocumentWARCRecord(t *testing.T) {
	site := samplesite.NewWithOptions(samplesite.Options{SlowDelay: -1})
	base, stop, err := site.Start(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	cfg := configs.Default()
	cfg.Seeds = []string{base + "/"}
	cfg.Scope.Exclude = []string{site.Manifest().Trap.Exclude}
	cfg.Store.Dir, cfg.Store.WARCDir = t.TempDir(), t.TempDir()
	db, err := storage.Open(cfg.Store.Dir, crawler.StoreOptions(cfg.Store))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	aw, err := archive.Open(crawler.ArchiveOptions(cfg, db))
	if err != nil {
		t.Fatal(err)
	}
	opts, err := crawler.NewOptions(cfg, crawler.Options{Store: db, Archive: aw, Grace: time.Second}, false)
	if err != nil {
		t.Fatal(err)
	}
	c, err := crawler.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := aw.Close(); err != nil {
		t.Fatal(err)
	}
	page, _, err := db.PageByURL(base + "/articles/en/what-is-debian")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	srv := httptest.NewServer(console.New(ctx, console.Options{Store: db, WARCDir: cfg.Store.WARCDir}))
	defer srv.Close()
	get := func(path string) string {
		t.Helper()
		resp, err := http.Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("GET %s: %s %.300s", path, resp.Status, b)
		}
		return string(b)
	}
	if doc := get("/console/doc/" + page.DocID.String()); !strings.Contains(doc, `href="/console/warc/`+page.DocID.String()+`"`) {
		t.Errorf("document view has no WARC link: %.3000s", doc)
	}
	rec := get("/console/warc/" + page.DocID.String())
	for _, want := range []string{"WARC/1.1", "WARC-Type: response", "WARC-Target-URI: " + page.URL, "HTTP/1.1 200", page.Title} {
		if !strings.Contains(rec, want) {
			t.Errorf("WARC record lacks %q: %.1000s", want, rec)
		}
	}
}
