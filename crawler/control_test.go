package crawler

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/bloomcrawl/bloomcrawl/configs"
	"github.com/bloomcrawl/bloomcrawl/internal/samplesite"
	"github.com/bloomcrawl/bloomcrawl/storage"
)

// TestControlPauseExcludeResume crawls the sample site slowly, with the
// calendar trap in scope: it pauses (no request reaches the site while
// paused), excludes the trap while paused, resumes, and the crawl then
// finishes by itself, the trap's queued months recorded as excluded. A
// second run on the store keeps the exclusion.
func TestControlPauseExcludeResume(t *testing.T) {
	site, cfg, db, c := slowCrawl(t, 20*time.Millisecond, func(cfg *configs.Config) {
		cfg.Scope.Exclude = nil // the calendar trap is in scope ...
		cfg.Scope.MaxDepth = 60 // ... up to a bound, should the exclusion fail
	})
	if err := c.AddExclusion("("); err == nil {
		t.Fatal("AddExclusion accepted a malformed pattern")
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	type result struct {
		st  Stats
		err error
	}
	done := make(chan result, 1)
	go func() { st, err := c.Run(ctx); done <- result{st, err} }()

	waitFor(t, "a calendar month fetched", func() bool { return site.Hits("/calendar?month=2") > 0 })
	c.Pause()
	waitFor(t, "nothing in flight", func() bool { return c.InFlight() == 0 })
	if s := c.State(); s != StatePaused {
		t.Errorf("State() = %q while paused", s)
	}
	reqs, _ := site.Requests()
	time.Sleep(300 * time.Millisecond)
	if now, _ := site.Requests(); len(now) != len(reqs) {
		t.Fatalf("paused, yet the site got %d more requests: %v", len(now)-len(reqs), now[len(reqs):])
	}
	if err := c.AddExclusion(`/calendar\?`); err != nil {
		t.Fatal(err)
	}
	reqs, _ = site.Requests()
	c.Resume()
	var r result
	select {
	case r = <-done:
	case <-ctx.Done():
		t.Fatal("the crawl did not finish after the calendar trap was excluded")
	}
	if r.err != nil {
		t.Fatal(r.err)
	}
	if c.State() != StateFinished {
		t.Errorf("State() = %q after Run returned", c.State())
	}
	now, _ := site.Requests()
	for _, u := range now[len(reqs):] {
		if strings.HasPrefix(u, "/calendar") {
			t.Errorf("%s requested after the exclusion", u)
		}
	}
	x := c.Exclusions()
	if len(x) != 1 || x[0].Matched == 0 {
		t.Errorf("Exclusions() = %+v, want one that matched queued URLs", x)
	}
	var excluded int
	for _, s := range c.Skipped() {
		if s.Reason == SkipExcluded {
			excluded++
			if rec, err := db.URLRecord(s.URL); err != nil || rec.Reason != ReasonExcluded {
				t.Errorf("excluded %s: record %+v, %v", s.URL, rec, err)
			}
		}
	}
	if excluded == 0 {
		t.Error("no excluded URL among Skipped()")
	}
	b := c.Breakdown()
	if b.Status[200] == 0 || b.Status[404] == 0 || b.ContentType["text/html"] == 0 || b.Bytes == 0 {
		t.Errorf("Breakdown() = %+v: want 200s, 404s, text/html and bytes", b)
	}
	hosts := c.Hosts()
	if len(hosts) != 1 || hosts[0].Fetched != r.st.Fetched || hosts[0].Errors == 0 || hosts[0].Robots != "read" {
		t.Errorf("Hosts() = %+v, want the site's host with %d fetched, some errors, robots.txt read", hosts, r.st.Fetched)
	}
	reasons := map[string]bool{}
	for _, s := range c.Skipped() {
		reasons[s.Reason] = true
	}
	for _, want := range []string{SkipError, SkipRobots, SkipType, SkipScope, SkipExcluded} {
		if !reasons[want] {
			t.Errorf("no %q among Skipped(): %v", want, reasons)
		}
	}

	// The exclusion is kept in the store: a new crawler over it has it.
	c2, err := newCrawler(cfg, Options{Store: db, Grace: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c2.Run(ctx); err != nil {
		t.Fatal(err)
	}
	if x := c2.Exclusions(); len(x) != 1 || x[0].Pattern != `/calendar\?` {
		t.Errorf("resumed crawl's exclusions %+v", x)
	}
	if ok, err := c2.RemoveExclusion(`/calendar\?`); !ok || err != nil {
		t.Errorf("RemoveExclusion = %v, %v", ok, err)
	}
	if b, err := db.GetMeta(ExclusionsMetaKey); err != nil || string(b) != "[]" {
		t.Errorf("exclusions kept after removal: %q, %v", b, err)
	}
}

// TestControlStop stops a crawl from outside: Run returns
// context.Canceled with the rest left queued.
func TestControlStop(t *testing.T) {
	_, _, _, c := slowCrawl(t, 50*time.Millisecond, nil)
	time.AfterFunc(300*time.Millisecond, c.Stop)
	st, err := c.Run(context.Background())
	if err != context.Canceled {
		t.Fatalf("Run after Stop: %v", err)
	}
	if st.Queued == 0 {
		t.Errorf("stopped crawl left nothing queued: %+v", st)
	}
}

// slowCrawl readies a crawler of the sample site, one request at a time
// delay apart, over a new store; mod, if set, changes the config first.
func slowCrawl(t *testing.T, delay time.Duration, mod func(*configs.Config)) (*samplesite.Site, *configs.Config, *storage.DB, *Crawler) {
	t.Helper()
	site := samplesite.NewWithOptions(samplesite.Options{SlowDelay: -1})
	base, stop, err := site.Start(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(stop)
	cfg := siteConfig(base)
	cfg.Politeness.PerHostParallelism = 1
	cfg.Politeness.Delay = configs.Duration(delay)
	cfg.Store.Dir = t.TempDir()
	if mod != nil {
		mod(cfg)
	}
	db, err := storage.Open(cfg.Store.Dir, StoreOptions(cfg.Store))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	c, err := newCrawler(cfg, Options{Store: db, Grace: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	return site, cfg, db, c
}

// TestControlIdle: a continuous crawl with nothing left to fetch until
// its next refresh reads as idle, and refreshes are counted.
func TestControlIdle(t *testing.T) {
	_, _, _, c := slowCrawl(t, 0, func(cfg *configs.Config) {
		cfg.Politeness.PerHostParallelism = 8
		cfg.Recrawl.Continuous = true
		cfg.Recrawl.SeedsEvery = configs.Duration(time.Hour)
	})
	done := make(chan error, 1)
	go func() { _, err := c.Run(context.Background()); done <- err }()
	waitFor(t, "the crawl to be idle", func() bool { return c.State() == StateIdle })
	if st := c.Stats(); st.Fetched == 0 || st.Queued != 0 {
		t.Errorf("idle with %+v", st)
	}
	c.Stop()
	if err := <-done; err != context.Canceled {
		t.Errorf("Run after Stop: %v", err)
	}
	if s := c.State(); s != StateFinished {
		t.Errorf("State() = %q after Run returned", s)
	}
}
