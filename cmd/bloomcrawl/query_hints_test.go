package main

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/bloomcrawl/bloomcrawl/storage"
)

// TestQueryURLDeclarations: `query url` shows what the site declared: the
// canonical a page named, that a noindex page was not stored, a sitemap
// record, and a sitemap's lastmod and news fields; --json the same.
func TestQueryURLDeclarations(t *testing.T) {
	dir := t.TempDir()
	db, err := storage.Open(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	lm := time.Date(2026, 11, 22, 8, 0, 0, 0, time.UTC)
	ctx := context.Background()
	commits := []storage.Commit{
		{Page: &storage.Page{DocID: 7, URL: "https://a.test/article", Status: 200, Title: "A", Text: "a",
			Hints: storage.Hints{LastMod: lm, NewsPublished: lm, NewsTitle: "Breaking"}}},
		{URL: &storage.URLRecord{URL: "https://a.test/article?ref=x", DocID: 7, Duplicate: true, Reason: "canonical", Status: 200,
			Hints: storage.Hints{Canonical: "https://a.test/article"}}},
		{URL: &storage.URLRecord{URL: "https://a.test/hidden", Reason: "noindex", Status: 200}},
		{URL: &storage.URLRecord{URL: "https://a.test/sitemap.xml", Reason: "sitemap", Status: 404, Err: "HTTP 404", Hints: storage.Hints{Sitemap: true}}},
	}
	for _, c := range commits {
		if _, err := db.Commit(ctx, c); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()
	for _, c := range []struct{ url, want string }{
		{"https://a.test/article?ref=x", "declared canonical https://a.test/article"},
		{"https://a.test/article?ref=x", "duplicate yes (canonical, distance 0)"},
		{"https://a.test/hidden", "stored no: the page asked not to be indexed"},
		{"https://a.test/sitemap.xml", "sitemap yes (read for its URLs, not stored)"},
		{"https://a.test/article", "sitemap lastmod 2026-11-22T08:00:00Z"},
		{"https://a.test/article", "news 2026-11-22T08:00:00Z Breaking"},
	} {
		out, stderr, code := runQ(t, "--store", dir, "url", c.url)
		if code != 0 || !strings.Contains(strings.Join(strings.Fields(out), " "), c.want) {
			t.Errorf("query url %s: exit %d %s\n%s\nwant a line %q", c.url, code, stderr, out, c.want)
		}
	}
	out, _, code := runQ(t, "--store", dir, "--json", "url", "https://a.test/article?ref=x")
	var j struct {
		URL struct {
			Canonical string `json:"canonical"`
			Reason    string `json:"reason"`
		} `json:"url_record"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &j) != nil || j.URL.Canonical != "https://a.test/article" || j.URL.Reason != "canonical" {
		t.Errorf("query --json url: exit %d\n%s", code, out)
	}
}
