package main

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/bloomcrawl/bloomcrawl/storage"
)

func TestQueryMarkdown(t *testing.T) {
	dir := queryStore(t) // pages stored without Markdown: their text stands in
	db, err := storage.Open(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	p := &storage.Page{DocID: 0xe000000000000001, URL: "https://c.test/story", Status: 200, ContentType: "text/html",
		FetchedAt: time.Date(2026, 11, 27, 1, 0, 0, 0, time.UTC), Title: "Story", Text: "Story\nBody.",
		Lang: "en", Author: "A. Writer", Markdown: "# Story\n\nBody.\n"}
	if _, err := db.Commit(context.Background(), storage.Commit{Page: p}); err != nil {
		t.Fatal(err)
	}
	// as a crawl stores pages: HTML, no Markdown (rendered on read)
	crawled := &storage.Page{DocID: 0xe000000000000002, URL: "https://c.test/guide/", Status: 200, ContentType: "text/html",
		FetchedAt: p.FetchedAt, Title: "Guide", Text: "Guide\nSee the docs.",
		HTML: []byte(`<html><body><nav><a href="/">Home</a></nav><main><h1>Guide</h1><p>See <a href="docs.html">the docs</a>.</p></main></body></html>`)}
	if _, err := db.Commit(context.Background(), storage.Commit{Page: crawled}); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	out, errs, code := runQ(t, "--store", dir, "doc", "e000000000000001", "--markdown")
	if code != 0 || out != "# Story\n\nBody.\n" {
		t.Errorf("doc --markdown: %d %q %s", code, out, errs)
	}
	out, _, code = runQ(t, "--store", dir, "--json", "doc", "e000000000000001", "--markdown")
	if code != 0 || !strings.Contains(out, `"markdown": "# Story\n\nBody.\n"`) || !strings.Contains(out, `"author": "A. Writer"`) {
		t.Errorf("doc --json --markdown: %d %s", code, out)
	}
	out, _, code = runQ(t, "--store", dir, "doc", "f000000000000003", "--markdown")
	if code != 0 || out != "text of page 3\n" {
		t.Errorf("doc --markdown of a page stored without it: %d %q", code, out)
	}
	out, _, code = runQ(t, "--store", dir, "doc", "e000000000000002", "--markdown")
	if want := "# Guide\n\nSee [the docs](https://c.test/guide/docs.html) .\n"; code != 0 || out != want {
		t.Errorf("doc --markdown rendered from the stored HTML: %d %q, want %q", code, out, want)
	}
	out, errs, code = runQ(t, "--store", dir, "export", "--format", "markdown")
	if code != 0 || strings.Count(out, "\n---\n\n") != 27 || !strings.Contains(out, "# Guide\n\nSee [the docs]") || !strings.Contains(out, "lang: \"en\"\nauthor: \"A. Writer\"\n---\n\n# Story\n\nBody.\n") {
		t.Errorf("export --format markdown: %d %s\n%s", code, errs, out)
	}
	if _, _, code = runQ(t, "--store", dir, "export", "--format", "xml"); code == 0 {
		t.Errorf("export --format xml: exit 0")
	}
}
