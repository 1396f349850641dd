package crawler

import (
	"context"
	"testing"
	"time"

	"github.com/bloomcrawl/bloomcrawl/internal/samplesite"
	"github.com/bloomcrawl/bloomcrawl/storage"
)

// TestCrawlIndexesSimilarPages: every page a crawl stores gets its
// similar-pages entry in its own commit (none is missing afterwards, and
// the store's check finds the band index consistent), and a stored page's
// similar list never holds its own docId.
func TestCrawlIndexesSimilarPages(t *testing.T) {
	site := samplesite.NewWithOptions(samplesite.Options{SlowDelay: 10 * time.Millisecond})
	base, stop, err := site.Start(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	dir := t.TempDir()
	r := crawlInto(t, context.Background(), siteConfig(base), dir, nil, nil)
	if r.err != nil {
		t.Fatal(r.err)
	}
	checkSimilarIndex(t, dir, r)
}

// checkSimilarIndex asserts that every stored page of the crawl in dir has
// its similar-pages entry, that the store's check finds the band index
// consistent, and that no page lists itself or a non-page as similar.
func checkSimilarIndex(t *testing.T, dir string, r crawlResult) {
	t.Helper()
	db, err := storage.Open(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	missing, err := db.MinHashMissing(ctx)
	if err != nil || len(missing) != 0 {
		t.Fatalf("%d of %d stored pages have no similar-pages entry (%v)", len(missing), len(r.pages), err)
	}
	if _, err := db.Check(ctx); err != nil {
		t.Fatal(err)
	}
	for id := range r.pages {
		sims, err := db.Similar(ctx, id, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range sims {
			if s.DocID == id {
				t.Fatalf("%s lists itself as similar", id)
			}
			if _, ok := r.pages[s.DocID]; !ok {
				t.Fatalf("%s lists %s, which is not a stored page", id, s.DocID)
			}
		}
	}
}
