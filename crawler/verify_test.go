package crawler

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bloomcrawl/bloomcrawl/configs"
	"github.com/bloomcrawl/bloomcrawl/lab/synthsite"
	"github.com/bloomcrawl/bloomcrawl/urlfilter"
)

// shadowSet is a URL filter that answers with its filter, as the crawl's
// filter does, and counts beside it, against an exact set, the "seen"
// answers for keys never added before: the filter's false positives.
type shadowSet struct {
	f     urlfilter.Filter
	mu    sync.Mutex
	exact map[string]struct{}
	fps   uint64
}

func newShadow(t *testing.T) *shadowSet {
	t.Helper()
	// Far too small for the site: it saturates after a few hundred URLs
	// and then answers "seen" for most new ones.
	f, err := urlfilter.New(urlfilter.Options{Variant: urlfilter.VariantClassic, Capacity: 200, TargetFP: 0.2})
	if err != nil {
		t.Fatal(err)
	}
	return &shadowSet{f: f, exact: map[string]struct{}{}}
}

func (s *shadowSet) TestAndAdd(k string) bool {
	out := []bool{false}
	s.TestAndAddBatch([]string{k}, out)
	return out[0]
}

func (s *shadowSet) TestAndAddBatch(keys []string, out []bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, k := range keys {
		out[i] = s.f.TestAndAdd(k)
		if _, had := s.exact[k]; out[i] && !had {
			s.fps++
		}
		s.exact[k] = struct{}{}
	}
}

func (s *shadowSet) falsePositives() uint64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.fps
}

// countingSite serves a synthetic site and counts the requests for each
// page; cancel, if set, is called once the pages requested reach stopAt.
type countingSite struct {
	site   synthsite.Site
	mu     sync.Mutex
	counts map[int]int
	total  int
	stopAt int
	cancel func()
}

func (c *countingSite) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if i, ok := c.site.PageIndex(r.URL.Path); ok {
		c.mu.Lock()
		c.counts[i]++
		c.total++
		if c.cancel != nil && c.total == c.stopAt {
			c.cancel()
		}
		c.mu.Unlock()
	}
	c.site.ServeHTTP(w, r)
}

// cancelAt returns a context that is cancelled once the site has served
// n page requests (a crawl interrupted part of the way, as by Ctrl-C).
func (c *countingSite) cancelAt(t *testing.T, n int) context.Context {
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	c.mu.Lock()
	c.stopAt, c.cancel = n, cancel
	c.mu.Unlock()
	return ctx
}

func startCounting(t *testing.T, n int) (*countingSite, string) {
	t.Helper()
	site, err := synthsite.New(n, 7)
	if err != nil {
		t.Fatal(err)
	}
	cs := &countingSite{site: site, counts: map[int]int{}}
	srv := httptest.NewServer(cs)
	t.Cleanup(srv.Close)
	return cs, srv.URL
}

// fetchedOnce asserts that every page of the site was requested exactly
// once and that the store holds a URL record for each.
func (c *countingSite) fetchedOnce(t *testing.T, r crawlResult) {
	t.Helper()
	c.mu.Lock()
	defer c.mu.Unlock()
	never, twice := 0, 0
	for i := range c.site.N {
		switch n := c.counts[i]; {
		case n == 0:
			never++
		case n > 1:
			twice++
		}
	}
	if never > 0 || twice > 0 {
		t.Errorf("of %d pages, %d never requested and %d requested more than once", c.site.N, never, twice)
	}
	recorded := 0
	for p := range r.urls {
		if strings.HasPrefix(p, "/p/") {
			recorded++
		}
	}
	if recorded != c.site.N || r.queue != 0 {
		t.Errorf("store holds %d page URLs of %d, %d queued", recorded, c.site.N, r.queue)
	}
}

// TestVerifyLosesNothing crawls a generated site with a URL filter far
// too small for it. Trusting the filter (dedup.verify false) loses pages;
// verified, every page is requested exactly once and the false positives
// counted are exactly those an exact shadow set finds: with the default
// cache of recent URLs (which then holds the whole site, so only the
// filter's false positives go to the store) and with none (every "seen"
// answer not in flight goes to the store).
func TestVerifyLosesNothing(t *testing.T) {
	const n = 1500
	cs, base := startCounting(t, n)
	cfg := siteConfig(base)
	cfg.Seeds = []string{base + synthsite.SeedPath}
	cfg.Dedup.Verify = false
	pure := crawlInto(t, context.Background(), cfg, t.TempDir(), newShadow(t), nil)
	if pure.err != nil {
		t.Fatal(pure.err)
	}
	cs.mu.Lock()
	lost := n - len(cs.counts)
	cs.mu.Unlock()
	if lost == 0 {
		t.Fatal("the pure-Bloom crawl lost no page: the filter is not small enough to test verification")
	}

	keys := map[int64]uint64{}
	for _, cache := range []int64{configs.DefaultVerifyCacheBytes, 0} {
		cs.mu.Lock()
		cs.counts, cs.total = map[int]int{}, 0
		cs.mu.Unlock()
		cfg = siteConfig(base)
		cfg.Seeds = []string{base + synthsite.SeedPath}
		cfg.Dedup.VerifyCacheBytes = cache
		shadow := newShadow(t)
		r := crawlInto(t, context.Background(), cfg, t.TempDir(), shadow, nil)
		if r.err != nil {
			t.Fatal(r.err)
		}
		cs.fetchedOnce(t, r)
		if r.stats.FalsePositives == nil || *r.stats.FalsePositives != shadow.falsePositives() || shadow.falsePositives() == 0 {
			t.Errorf("cache %d: false positives counted %v, exact shadow set %d (want equal, > 0)", cache, r.stats.FalsePositives, shadow.falsePositives())
		}
		done := r.stats.Fetched
		if r.stats.FilterStoreReads > uint64(done)+1 {
			t.Errorf("cache %d: %d store read batches for %d pages: want at most one per page (and the seeds)", cache, r.stats.FilterStoreReads, done)
		}
		keys[cache] = r.stats.FilterStoreKeys
		if cache > 0 && r.stats.FilterMemoryHits == 0 {
			t.Errorf("cache %d: no \"seen\" answer confirmed in memory", cache)
		}
		t.Logf("pure Bloom lost %d of %d pages; verified, cache %d bytes: %d false positives (shadow %d), %d store reads (%d URLs), %d confirmed in memory, for %d pages",
			lost, n, cache, *r.stats.FalsePositives, shadow.falsePositives(), r.stats.FilterStoreReads, r.stats.FilterStoreKeys, r.stats.FilterMemoryHits, done)
	}
	if keys[0] <= keys[configs.DefaultVerifyCacheBytes] {
		t.Errorf("URLs looked up in the store: %d with no cache, %d with the default one; want fewer with it", keys[0], keys[configs.DefaultVerifyCacheBytes])
	}
}

// TestVerifyResumeLosesNothing interrupts a verified crawl with a tiny
// filter a third of the way and resumes it with a fresh filter: across
// both runs every page is requested exactly once, and each run's false
// positives are the shadow set's (counted after the resume rebuild).
func TestVerifyResumeLosesNothing(t *testing.T) {
	const n = 1500
	cs, base := startCounting(t, n)
	cfg := siteConfig(base)
	cfg.Seeds = []string{base + synthsite.SeedPath}
	dir := t.TempDir()
	ctx := cs.cancelAt(t, n/3)
	grace := func(o *Options) { o.Grace = time.Minute }
	shadow1 := newShadow(t)
	r1 := crawlInto(t, ctx, cfg, dir, shadow1, nil, grace)
	if r1.err == nil || r1.queue == 0 {
		t.Fatalf("first run: err %v, %d queued; want it interrupted with URLs queued", r1.err, r1.queue)
	}
	if *r1.stats.FalsePositives != shadow1.falsePositives() {
		t.Errorf("first run: %d false positives counted, shadow set %d", *r1.stats.FalsePositives, shadow1.falsePositives())
	}

	shadow2 := newShadow(t)
	var base2 uint64
	r2 := crawlInto(t, context.Background(), cfg, dir, shadow2, nil, grace, func(o *Options) {
		o.Started = func() { base2 = shadow2.falsePositives() }
	})
	if r2.err != nil {
		t.Fatal(r2.err)
	}
	cs.fetchedOnce(t, r2)
	if got, want := *r2.stats.FalsePositives, shadow2.falsePositives()-base2; got != want || want == 0 {
		t.Errorf("resumed run: %d false positives counted, shadow set %d (want equal, > 0)", got, want)
	}
	t.Logf("interrupted after %d pages with %d queued; resumed: %d false positives, %d store reads",
		r1.stats.Fetched, r1.queue, *r2.stats.FalsePositives, r2.stats.FilterStoreReads)
}
