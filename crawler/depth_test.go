package crawler

import (
	"context"
	"slices"
	"testing"
)

// TestDepthIsDistance crawls a generated site with a frontier window far
// smaller than its queue, so that most entries wait in the store. The
// crawl must stay breadth-first: each page's depth is its link distance
// from the seed (a page reached first along a longer path would get a
// larger depth, and with scope.max_depth just above the site's largest
// distance its links would be dropped and pages lost). A 10M-page crawl
// lost 71 pages this way with the default max_depth of 50, when entries
// published while older ones waited in the store were handed out first.
func TestDepthIsDistance(t *testing.T) {
	const n = 6000
	cs, base := startCounting(t, n)
	dist := cs.site.Distances()
	maxDist := int(slices.Max(dist))
	cfg := siteConfig(base)
	cfg.Seeds = []string{base + "/p/0"}
	cfg.Dedup.Capacity = 1_000_000
	// Concurrent workers may discover a page from one level further out
	// than its distance when another worker is slower: one level of slack.
	cfg.Scope.MaxDepth = maxDist + 1
	r := crawlInto(t, context.Background(), cfg, t.TempDir(), nil, nil, func(o *Options) { o.Window = 16 })
	if r.err != nil {
		t.Fatal(r.err)
	}
	cs.fetchedOnce(t, r)
	over, worst := 0, 0
	for p, rec := range r.urls {
		i, ok := cs.site.PageIndex(p)
		if !ok || rec.Duplicate {
			continue
		}
		pg, ok := r.pages[rec.DocID]
		if !ok {
			continue
		}
		if d := pg.Depth - int(dist[i]); d > 0 {
			over++
			worst = max(worst, d)
		}
	}
	if worst > 1 {
		t.Errorf("%d pages stored deeper than their distance from the seed, by up to %d links (site's largest distance %d)", over, worst, maxDist)
	}
	t.Logf("largest distance %d; %d pages deeper than their distance (by one link at most)", maxDist, over)
}
