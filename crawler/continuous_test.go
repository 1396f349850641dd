package crawler

import (
	"context"
	"errors"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/bloomcrawl/bloomcrawl/configs"
	"github.com/bloomcrawl/bloomcrawl/lab/newssite"
	"github.com/bloomcrawl/bloomcrawl/storage"
)

// newsConfig is a continuous crawl of site's hubs, refreshed every 300 ms.
func newsConfig(site *newssite.Site, dir string) *configs.Config {
	cfg := configs.Default()
	for _, h := range site.Hosts {
		cfg.Seeds = append(cfg.Seeds, h.URL("/"))
	}
	cfg.Scope.Sitemaps = configs.Sitemaps{Off: true}
	cfg.Politeness.ObeyRobots = false
	cfg.Politeness.Concurrency = 4
	cfg.Recrawl.Continuous = true
	cfg.Recrawl.SeedsEvery = configs.Duration(300 * time.Millisecond)
	cfg.Store.Dir = dir
	return cfg
}

// waitFor polls cond every 20 ms until it holds or 30 s have passed.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); !cond(); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}

// allFetched reports whether every article and syndicated copy published
// so far was requested at least once.
func allFetched(site *newssite.Site) bool {
	for _, h := range site.Hosts {
		for id := 1; id <= h.Articles(); id++ {
			if h.Hits(newssite.ArticlePath(id)) == 0 {
				return false
			}
		}
		for _, c := range h.Copies() {
			if h.Hits(newssite.CopyPath(c[0], c[1])) == 0 {
				return false
			}
		}
	}
	return true
}

// TestContinuousNewsSite crawls a news site of three hosts that publishes
// articles in rounds while the crawl runs, with its hubs as seeds
// refreshed every 300 ms: the crawl keeps running with an empty queue,
// finds each round's articles through the refreshed hubs, fetches every
// article and syndicated copy exactly once, maps each copy to the
// original's docId, and fetches the hubs at their interval, not more
// (counted with generous bounds: no timing asserts). A restart on the same
// store then refreshes the hubs from the schedule rebuilt from the store
// (the seeds are in the URL filter: without the schedule nothing would be
// fetched).
func TestContinuousNewsSite(t *testing.T) {
	site, err := newssite.Start(3)
	if err != nil {
		t.Fatal(err)
	}
	defer site.Close()
	site.Publish()
	dir := t.TempDir()
	db, err := storage.Open(dir, StoreOptions(configs.Default().Store))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()

	cfg := newsConfig(site, dir)
	// Article 1 of the first host is refreshed too, and edited during the
	// crawl (a near-duplicate: updated in place); article 1 of the second
	// host is refreshed and rewritten twice (new versions; two kept).
	edited := site.Hosts[0].URL(newssite.ArticlePath(1))
	rewritten := site.Hosts[1].URL(newssite.ArticlePath(1))
	cfg.Recrawl.Rules = []configs.RecrawlRule{{Match: "^(" + regexp.QuoteMeta(edited) + "|" + regexp.QuoteMeta(rewritten) + ")$", Every: configs.Duration(300 * time.Millisecond)}}
	cfg.Recrawl.KeepVersions = 2
	var texts []string // the rewritten article's versions
	texts = append(texts, site.Hosts[1].ArticleText(1))
	ctx, cancel := context.WithCancel(context.Background())
	c, err := newCrawler(cfg, Options{Store: db, Grace: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	var st Stats
	var runErr error
	start := time.Now()
	go func() {
		defer close(done)
		st, runErr = c.Run(ctx)
	}()
	const rounds = 5
	for r := range rounds {
		waitFor(t, "round's articles fetched", func() bool { return allFetched(site) })
		if r < rounds-1 {
			site.Publish()
		}
		switch r {
		case 1:
			site.Hosts[0].Edit(1)
			site.Hosts[1].Rewrite(1)
			texts = append(texts, site.Hosts[1].ArticleText(1))
		case 2:
			waitFor(t, "the first rewrite recorded", func() bool {
				rec, err := db.URLRecord(rewritten)
				return err == nil && rec.Versions == 2
			})
			site.Hosts[1].Rewrite(1)
			texts = append(texts, site.Hosts[1].ArticleText(1))
		}
	}
	waitFor(t, "the edit and the rewrites recorded", func() bool {
		rec, err := db.URLRecord(edited)
		rw, err2 := db.URLRecord(rewritten)
		return err == nil && rec.Edits == 1 && err2 == nil && rw.Versions == 3
	})
	// The queue is empty now and the crawl keeps running: it waits for
	// the next refresh, a conditional GET the unchanged hubs answer 304.
	waitFor(t, "a 304 from every hub", func() bool {
		for _, h := range site.Hosts {
			if h.NotModified() == 0 {
				return false
			}
		}
		return true
	})
	cancel()
	<-done
	elapsed := time.Since(start)
	if runErr != context.Canceled {
		t.Fatalf("Run: %v, want context.Canceled (stopped)", runErr)
	}

	var published, copies int
	for hi, h := range site.Hosts {
		for id := 1; id <= h.Articles(); id++ {
			published++
			if u := h.URL(newssite.ArticlePath(id)); u == edited || u == rewritten {
				continue // refreshed: checked below
			}
			if n := h.Hits(newssite.ArticlePath(id)); n != 1 {
				t.Errorf("host %d article %d fetched %d times, want 1", hi, id, n)
			}
		}
		for _, cp := range h.Copies() {
			copies++
			p := newssite.CopyPath(cp[0], cp[1])
			if n := h.Hits(p); n != 1 {
				t.Errorf("host %d copy %s fetched %d times, want 1", hi, p, n)
			}
			orig, err := db.URLRecord(site.Hosts[cp[0]].URL(newssite.ArticlePath(cp[1])))
			if err != nil {
				t.Fatal(err)
			}
			cpy, err := db.URLRecord(h.URL(p))
			if err != nil {
				t.Fatal(err)
			}
			if orig.DocID == 0 || cpy.DocID != orig.DocID {
				t.Errorf("copy %s has docId %v, original %v", cpy.URL, cpy.DocID, orig.DocID)
			}
		}
		// Hubs: fetched at their interval, not more: at most one fetch per
		// 300 ms of the run (plus the first); at least the refreshes the
		// rounds needed.
		hub := h.Hits("/")
		if max := int(elapsed/(300*time.Millisecond)) + 2; hub > max {
			t.Errorf("host %d hub fetched %d times in %v, want <= %d", hi, hub, elapsed, max)
		}
		if hub < rounds {
			t.Errorf("host %d hub fetched %d times, want >= %d (one per round)", hi, hub, rounds)
		}
		rec, err := db.URLRecord(h.URL("/"))
		if err != nil {
			t.Fatal(err)
		}
		if rec.Duplicate || rec.Reason != storage.ReasonNew {
			t.Errorf("hub record after refreshes: duplicate %v reason %q, want its own new document", rec.Duplicate, rec.Reason)
		}
	}
	// The edited article: same docId, the stored copy is the edited text,
	// the change time and one edit recorded, still one version (an edit is
	// a near-duplicate: no version kept); unchanged refreshes of it
	// recorded no change.
	rec, err := db.URLRecord(edited)
	if err != nil {
		t.Fatal(err)
	}
	if rec.Duplicate || rec.VersionCount() != 1 || rec.Edits != 1 || rec.ChangedAt.IsZero() || rec.ChangedAt.After(rec.FetchedAt) {
		t.Errorf("edited article's record: %+v, want its own document, 1 version, 1 edit, a change time", rec)
	}
	if v := rec.View(); v.Versions != 1 || v.Edits != 1 || v.ChangedAt == nil || !v.FetchedAt.Equal(rec.FetchedAt) {
		t.Errorf("edited article's view (query url, API): %+v", v)
	}
	if p, err := db.Page(rec.DocID); err != nil || !strings.Contains(p.Text, "edit0") || p.URL != edited {
		t.Errorf("edited article's page: %v; text %.80q, want the edited text under docId %v", err, p.Text, rec.DocID)
	}
	if vs, err := db.Versions(rec.DocID); err != nil || len(vs) != 1 {
		t.Errorf("edited article's versions: %+v, %v; want the latest only", vs, err)
	}
	// The rewritten article: same docId, 3 versions, the latest 2 kept
	// (keep_versions 2), each with its own text; version 1 not kept.
	rw, err := db.URLRecord(rewritten)
	if err != nil {
		t.Fatal(err)
	}
	if rw.Duplicate || rw.Versions != 3 || rw.Edits != 0 || rw.VersionAt.IsZero() || !rw.VersionAt.Equal(rw.ChangedAt) {
		t.Errorf("rewritten article's record: %+v, want its own document, 3 versions, no edit", rw)
	}
	vs, err := db.Versions(rw.DocID)
	if err != nil || len(vs) != 2 || vs[0].N != 2 || vs[1].N != 3 || !vs[1].Latest || !vs[1].FetchedAt.Equal(rw.VersionAt) || !vs[0].FetchedAt.Before(vs[1].FetchedAt) {
		t.Errorf("rewritten article's versions: %+v, %v; want versions 2 and 3", vs, err)
	}
	for n := 2; n <= 3; n++ { // version n has texts[n-1], not the other's (5-n)
		p, err := db.PageVersion(rw.DocID, n)
		if err != nil || !strings.Contains(p.Text, strings.Fields(texts[n-1])[0]) || strings.Contains(p.Text, strings.Fields(texts[5-n-1])[0]) {
			t.Errorf("rewritten article's version %d: %v; text %.60q, want %.60q", n, err, p.Text, texts[n-1])
		}
	}
	if _, err := db.PageVersion(rw.DocID, 1); !errors.Is(err, storage.ErrNotFound) {
		t.Errorf("version 1 of the rewritten article: %v, want not kept", err)
	}
	// Changes: the edit, the rewrites, and every hub change (each round's
	// hub lists new articles: an edit or a new version); unchanged
	// refreshes and 304s change nothing.
	changes, versions := int64(3), int64(2)
	for _, h := range site.Hosts {
		hub, err := db.URLRecord(h.URL("/"))
		if err != nil {
			t.Fatal(err)
		}
		if hub.VersionCount()+hub.Edits < rounds {
			t.Errorf("hub %s: %d versions and %d edits, want >= %d changes (one per round)", hub.URL, hub.VersionCount(), hub.Edits, rounds-1)
		}
		changes += int64(hub.VersionCount() - 1 + hub.Edits)
		versions += int64(hub.VersionCount() - 1)
	}
	if st.Changed != changes || st.NewVersions != versions {
		t.Errorf("Stats.Changed = %d, NewVersions = %d; want %d and %d (the edit, the rewrites and the hubs' changes)", st.Changed, st.NewVersions, changes, versions)
	}
	if rep, err := db.Check(context.Background()); err != nil || rep.Versions < 1 {
		t.Errorf("Check: %+v, %v", rep, err)
	}
	// Hubs answered 304 when no article was published since: counted,
	// exactly as the site gave them.
	var notMod int
	for _, h := range site.Hosts {
		notMod += h.NotModified()
	}
	if notMod == 0 || st.NotModified != int64(notMod) {
		t.Errorf("Stats.NotModified = %d, the site answered 304 %d times", st.NotModified, notMod)
	}
	if published != 3*rounds || copies == 0 {
		t.Fatalf("site published %d articles and %d copies", published, copies)
	}
	if st.Refreshed < int64(3*rounds) {
		t.Errorf("Stats.Refreshed = %d, want >= %d", st.Refreshed, 3*rounds)
	}
	if st.RefreshScheduled != 5 {
		t.Errorf("Stats.RefreshScheduled = %d, want the 3 hubs, the edited and the rewritten article", st.RefreshScheduled)
	}
	if st.DiscoveryDelayMedian <= 0 || st.DiscoveryDelayP99 < st.DiscoveryDelayMedian {
		t.Errorf("discovery delay median %v p99 %v", st.DiscoveryDelayMedian, st.DiscoveryDelayP99)
	}
	t.Logf("%d articles, %d copies in %v: %+v", published, copies, elapsed, st)

	// Restart on the same store: the hubs' schedule comes back from their
	// URL records, so they are refreshed; the articles are not fetched again.
	before := make([]int, len(site.Hosts))
	for i, h := range site.Hosts {
		before[i] = h.Hits("/")
	}
	ctx2, cancel2 := context.WithCancel(context.Background())
	c2, err := newCrawler(cfg, Options{Store: db, Grace: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	done2 := make(chan struct{})
	go func() {
		defer close(done2)
		c2.Run(ctx2)
	}()
	waitFor(t, "hubs refreshed after the restart", func() bool {
		for i, h := range site.Hosts {
			if h.Hits("/") == before[i] {
				return false
			}
		}
		return true
	})
	cancel2()
	<-done2
	for hi, h := range site.Hosts {
		for id := 1; id <= h.Articles(); id++ {
			if u := h.URL(newssite.ArticlePath(id)); u != edited && u != rewritten && h.Hits(newssite.ArticlePath(id)) != 1 {
				n := h.Hits(newssite.ArticlePath(id))
				t.Errorf("after restart: host %d article %d fetched %d times, want 1", hi, id, n)
			}
		}
	}
}
