package main

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/bloomcrawl/bloomcrawl/storage"
)

// versionsStore builds a store with one page in three versions (each
// committed as a continuous crawl's refresh commits a new version) and
// keep_versions 3: all three kept.
func versionsStore(t *testing.T) (dir string, id storage.DocID) {
	t.Helper()
	dir = t.TempDir()
	db, err := storage.Open(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	t0 := time.Date(2026, 11, 22, 3, 0, 0, 0, time.UTC)
	p := storage.Page{DocID: 0xabc, URL: "https://news.test/live", Status: 200, ContentType: "text/html",
		FetchedAt: t0, Title: "Live v1", Text: "the first text", HTML: []byte("<p>the first text</p>")}
	if _, err := db.Commit(ctx, storage.Commit{Page: &p}); err != nil {
		t.Fatal(err)
	}
	for n := 2; n <= 3; n++ {
		up := p
		up.Title, up.Text, up.HTML = fmt.Sprintf("Live v%d", n), fmt.Sprintf("text number %d, all new", n), []byte(fmt.Sprintf("<p>v%d</p>", n))
		since := t0
		if n > 2 {
			since = t0.Add(time.Hour)
		}
		at := t0.Add(time.Duration(n-1) * time.Hour)
		rec := storage.URLRecord{URL: p.URL, DocID: p.DocID, Reason: storage.ReasonNew, Status: 200, FetchedAt: at,
			ChangedAt: at, Versions: n, VersionAt: at}
		if _, err := db.Commit(ctx, storage.Commit{Update: &up, Version: &storage.KeepVersion{N: n - 1, Since: since, Keep: 3}, URL: &rec}); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	return dir, p.DocID
}

// TestQueryVersions: query doc lists the kept versions and shows any one
// with --version K (text, JSON; no HTML for an old one); query url counts
// them.
func TestQueryVersions(t *testing.T) {
	dir, id := versionsStore(t)
	out, stderr, code := runQ(t, "--store", dir, "doc", id.String())
	if code != 0 || !strings.Contains(out, "Live v3") || !strings.Contains(out, "versions kept (3 of 3") {
		t.Fatalf("doc: exit %d %s\n%s", code, stderr, out)
	}
	for _, v := range []string{"  1  2026-11-22T03:00:00Z", "  2  2026-11-22T04:00:00Z", "  3  2026-11-22T05:00:00Z"} {
		if !strings.Contains(out, v) {
			t.Errorf("doc: no line %q in\n%s", v, out)
		}
	}
	out, stderr, code = runQ(t, "--store", dir, "doc", id.String(), "--version", "1", "--text")
	if code != 0 || !strings.Contains(out, "the first text") || !strings.Contains(out, "Live v1") || !regexp.MustCompile(`(?m)^version +1 `).MatchString(out) {
		t.Fatalf("doc --version 1: exit %d %s\n%s", code, stderr, out)
	}
	out, _, code = runQ(t, "--store", dir, "doc", id.String(), "--version", "2", "--json")
	var pv struct {
		Version   int                   `json:"version"`
		Text      string                `json:"text"`
		FetchedAt time.Time             `json:"fetched_at"`
		HTMLBytes int                   `json:"html_bytes"`
		Versions  []storage.VersionInfo `json:"versions"`
	}
	if err := json.Unmarshal([]byte(out), &pv); err != nil || code != 0 {
		t.Fatalf("doc --version 2 --json: exit %d, %v\n%s", code, err, out)
	}
	if pv.Version != 2 || pv.Text != "text number 2, all new" || !pv.FetchedAt.Equal(time.Date(2026, 11, 22, 4, 0, 0, 0, time.UTC)) || pv.HTMLBytes != 0 || len(pv.Versions) != 3 {
		t.Errorf("doc --version 2 --json: %+v", pv)
	}
	if out, _, code := runQ(t, "--store", dir, "doc", id.String(), "--html"); code != 0 || out != "<p>v3</p>" {
		t.Errorf("doc --html: exit %d %q", code, out)
	}
	if _, stderr, code := runQ(t, "--store", dir, "doc", id.String(), "--version", "1", "--html"); code == 0 || !strings.Contains(stderr, "not their HTML") {
		t.Errorf("doc --version 1 --html: exit %d %s", code, stderr)
	}
	if _, stderr, code := runQ(t, "--store", dir, "doc", id.String(), "--version", "4"); code == 0 || !strings.Contains(stderr, "versions 1 to 3") {
		t.Errorf("doc --version 4: exit %d %s", code, stderr)
	}
	if _, _, code := runQ(t, "--store", dir, "doc", id.String(), "--version", "-1"); code != 2 {
		t.Errorf("doc --version -1: exit %d, want 2 (usage)", code)
	}
	if out, _, code := runQ(t, "--store", dir, "stats"); code != 0 || !regexp.MustCompile(`(?m)^old versions +2 `).MatchString(out) {
		t.Errorf("stats: exit %d, want 2 old versions\n%s", code, out)
	}
	out, stderr, code = runQ(t, "--store", dir, "url", "https://news.test/live")
	if code != 0 || !regexp.MustCompile(`(?m)^versions +3 `).MatchString(out) {
		t.Fatalf("url: exit %d %s\n%s", code, stderr, out)
	}
	if !strings.Contains(out, "'query doc "+id.String()+"' lists those kept") || !strings.Contains(out, "since 2026-11-22T05:00:00Z") {
		t.Errorf("url: versions not shown:\n%s", out)
	}
}
