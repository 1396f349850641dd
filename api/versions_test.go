package api_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/bloomcrawl/bloomcrawl/api"
	"github.com/bloomcrawl/bloomcrawl/storage"
)

// TestPageVersions: GET /v1/pages/{docId} lists the kept versions of a
// page that a continuous crawl found changed, ?version=K reads one (its
// own text and first fetch time, no HTML), a version not kept is a 404
// naming those kept, and a bad version a 400; /v1/pages?url=U counts them.
func TestPageVersions(t *testing.T) {
	e := newEnv(t, api.HandlerOptions{})
	ctx := context.Background()
	t0 := time.Date(2026, 11, 22, 3, 0, 0, 0, time.UTC)
	p := storage.Page{DocID: 0x5eed, URL: "https://news.test/", Status: 200, ContentType: "text/html",
		FetchedAt: t0, Title: "Front v1", Text: "front page one", HTML: []byte("<p>front page one</p>")}
	if _, err := e.db.Commit(ctx, storage.Commit{Page: &p}); err != nil {
		t.Fatal(err)
	}
	// Four versions, two kept in all (keep_versions 2).
	for n := 2; n <= 4; n++ {
		up := p
		up.Title, up.Text, up.HTML = fmt.Sprintf("Front v%d", n), fmt.Sprintf("front page number %d", n), []byte("<p>new</p>")
		since := t0.Add(time.Duration(n-2) * time.Hour)
		at := t0.Add(time.Duration(n-1) * time.Hour)
		rec := storage.URLRecord{URL: p.URL, DocID: p.DocID, Reason: storage.ReasonNew, Status: 200, FetchedAt: at, ChangedAt: at, Versions: n, VersionAt: at, Edits: 1}
		if _, err := e.db.Commit(ctx, storage.Commit{Update: &up, Version: &storage.KeepVersion{N: n - 1, Since: since, Keep: 2}, URL: &rec}); err != nil {
			t.Fatal(err)
		}
	}
	var ans api.PageByIDAnswer
	e.call("GET", "/v1/pages/"+p.DocID.String(), "", 200, &ans)
	if ans.Page.Title != "Front v4" || ans.Page.Version != 0 || len(ans.Versions) != 2 || ans.Versions[0].N != 3 || ans.Versions[1].N != 4 || !ans.Versions[1].Latest {
		t.Fatalf("latest: %+v", ans)
	}
	ans = api.PageByIDAnswer{}
	e.call("GET", "/v1/pages/"+p.DocID.String()+"?version=3", "", 200, &ans)
	if ans.Page.Version != 3 || ans.Page.Text == nil || *ans.Page.Text != "front page number 3" || !ans.Page.FetchedAt.Equal(t0.Add(2*time.Hour)) || ans.Page.HTMLBytes != 0 {
		t.Fatalf("version 3: %+v", ans.Page)
	}
	code, body, _ := e.do("GET", "/v1/pages/"+p.DocID.String()+"?version=1", "")
	if code != 404 || !strings.Contains(string(body), "3 to 4 are kept") {
		t.Errorf("version 1 (not kept): %d %s", code, body)
	}
	for _, bad := range []string{"0", "x", "-2"} {
		if code, body, _ := e.do("GET", "/v1/pages/"+p.DocID.String()+"?version="+bad, ""); code != 400 {
			t.Errorf("version=%s: %d %s, want 400", bad, code, body)
		}
	}
	var pa api.PageAnswer
	e.call("GET", "/v1/pages?url=https://news.test/", "", 200, &pa)
	if pa.URL.Versions != 4 || pa.URL.Edits != 1 || pa.URL.VersionAt == nil || !pa.URL.VersionAt.Equal(t0.Add(3*time.Hour)) {
		t.Errorf("url record: %+v", pa.URL)
	}
}
