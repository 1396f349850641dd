package crawler

import (
	"context"
	"slices"
	"testing"
	"time"
)

// TestDepthIsDistance crawls a generated site with a frontier window far
// smaller than its queue, so that most entries wait in the store, and
// interrupts and resumes the crawl a third of the way. The
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
	// Concurrent workers may discover a page from a level further out than
	// its distance when another worker is slower: two levels of slack (an
	// out-of-order queue went 5 levels deeper on this site).
	cfg.Scope.MaxDepth = maxDist + 2
	// Interrupted a third of the way and resumed, as after Ctrl-C: the
	// resumed crawl starts with its whole queue in the store.
	dir := t.TempDir()
	ctx := cs.cancelAt(t, n/3)
	small := func(o *Options) { o.Window, o.Grace = 16, time.Minute }
	if r1 := crawlInto(t, ctx, cfg, dir, nil, nil, small); r1.err == nil || r1.queue == 0 {
		t.Fatalf("first run: err %v, %d queued; want it interrupted with URLs queued", r1.err, r1.queue)
	}
	r := crawlInto(t, context.Background(), cfg, dir, nil, nil, small)
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
	if worst > 2 {
		t.Errorf("%d pages stored deeper than their distance from the seed, by up to %d links (site's largest distance %d)", over, worst, maxDist)
	}
	t.Logf("largest distance %d; %d pages deeper than their distance (by %d links at most)", maxDist, over, worst)
}
