package crawler_test

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"runtime/pprof"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/bloomcrawl/bloomcrawl/configs"
	"github.com/bloomcrawl/bloomcrawl/crawler"
	"github.com/bloomcrawl/bloomcrawl/lab/bench"
	"github.com/bloomcrawl/bloomcrawl/lab/newssite"
	"github.com/bloomcrawl/bloomcrawl/storage"
)

// TestNewsBenchmark is issue 14's benchmark, not a check (it asserts
// nothing about speed): a continuous crawl of a news site of 10 hosts
// publishing 8 articles a second in all (one per host every 1.25 s, every
// third syndicated on the next host), hubs refreshed every 5 s, for
// BLOOMCRAWL_NEWS_BENCH (e.g. 150s). It logs the share of articles
// published more than two intervals before the stop that were fetched,
// the publication-to-fetch delay, articles fetched twice, syndicated
// copies mapped to the original's docId and false merges, and RssAnon
// after the first minute and at the end (with, every 10 s, the Go heap's
// parts beside RssAnon; BLOOMCRAWL_NEWS_BENCH_PROFILE=DIR also writes
// heap profiles at both points). Run it alone, under the bench lock:
//
//	BLOOMCRAWL_NEWS_BENCH=150s flock /tmp/bloomcrawl-bench.lock go test -run TestNewsBenchmark -v -timeout 10m ./crawler
func TestNewsBenchmark(t *testing.T) {
	d := os.Getenv("BLOOMCRAWL_NEWS_BENCH")
	if d == "" {
		t.Skip("a benchmark: set BLOOMCRAWL_NEWS_BENCH=150s to run it (under flock /tmp/bloomcrawl-bench.lock)")
	}
	dur, err := time.ParseDuration(d)
	if err != nil {
		t.Fatalf("BLOOMCRAWL_NEWS_BENCH: %v", err)
	}
	const interval = 5 * time.Second
	site, err := newssite.Start(10)
	if err != nil {
		t.Fatal(err)
	}
	defer site.Close()
	cfg := configs.Default()
	for _, h := range site.Hosts {
		cfg.Seeds = append(cfg.Seeds, h.URL("/"))
	}
	cfg.Scope.Sitemaps = configs.Sitemaps{Off: true}
	cfg.Recrawl.Continuous = true
	cfg.Recrawl.SeedsEvery = configs.Duration(interval)
	cfg.Store.Dir = t.TempDir()
	db, err := storage.Open(cfg.Store.Dir, crawler.StoreOptions(cfg.Store))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	o, err := crawler.NewOptions(cfg, crawler.Options{Store: db}, false)
	if err != nil {
		t.Fatal(err)
	}
	c, err := crawler.New(o)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	var st crawler.Stats
	go func() {
		defer close(done)
		st, _ = c.Run(ctx)
	}()
	start := time.Now()
	tick := time.NewTicker(1250 * time.Millisecond)
	var rssMinute int64
	nextTrace := 10 * time.Second
	for time.Since(start) < dur {
		<-tick.C
		site.Publish()
		if el := time.Since(start); el >= nextTrace {
			nextTrace += 10 * time.Second
			memTrace(t, el, cfg.Store.Dir)
		}
		if rssMinute == 0 && time.Since(start) >= time.Minute {
			rssMinute, _ = bench.RssAnon(os.Getpid())
			memReport(t, "after 1 min", "minute")
		}
	}
	tick.Stop()
	stop := time.Now()
	rssEnd, _ := bench.RssAnon(os.Getpid())
	memReport(t, "at the end", "end")
	cancel()
	<-done

	var old, oldFetched, fetched, twice int
	var delays []time.Duration
	docs := map[storage.DocID]string{}
	falseMerges := 0
	for _, h := range site.Hosts {
		for id := 1; id <= h.Articles(); id++ {
			p := newssite.ArticlePath(id)
			pub, first, hits := h.Published(id), h.FirstHit(p), h.Hits(p)
			if stop.Sub(pub) > 2*interval {
				old++
				if hits > 0 {
					oldFetched++
				}
			}
			if hits > 1 {
				twice++
			}
			if hits == 0 {
				continue
			}
			fetched++
			delays = append(delays, first.Sub(pub))
			rec, err := db.URLRecord(h.URL(p))
			if err != nil {
				continue
			}
			if other, ok := docs[rec.DocID]; ok {
				falseMerges++
				t.Logf("false merge: %s and %s share docId %v", other, rec.URL, rec.DocID)
			}
			docs[rec.DocID] = rec.URL
		}
	}
	var copies, mapped int
	for _, h := range site.Hosts {
		for _, cp := range h.Copies() {
			orig, err1 := db.URLRecord(site.Hosts[cp[0]].URL(newssite.ArticlePath(cp[1])))
			cpy, err2 := db.URLRecord(h.URL(newssite.CopyPath(cp[0], cp[1])))
			if err1 != nil || err2 != nil {
				continue // one of them not fetched before the stop
			}
			copies++
			if cpy.DocID == orig.DocID {
				mapped++
				continue
			}
			if _, ok := docs[cpy.DocID]; ok {
				falseMerges++
			}
			t.Logf("copy not mapped: %s (doc %v, %s, distance %d, fetched %s) vs original %s (doc %v, %s, fetched %s)",
				cpy.URL, cpy.DocID, cpy.Reason, cpy.Distance, cpy.FetchedAt.Format("15:04:05.000"),
				orig.URL, orig.DocID, orig.Reason, orig.FetchedAt.Format("15:04:05.000"))
		}
	}
	slices.Sort(delays)
	pct := func(a, b int) float64 { return 100 * float64(a) / float64(max(b, 1)) }
	t.Logf("ran %v: %d articles fetched; of %d published more than 2 intervals before the stop, %d fetched (%.2f%%)",
		dur, fetched, old, oldFetched, pct(oldFetched, old))
	if len(delays) > 0 {
		t.Logf("publication to fetch: median %v, p99 %v (interval %v)", delays[len(delays)/2], delays[len(delays)*99/100], interval)
	}
	t.Logf("articles fetched more than once: %d; syndicated copies mapped to the original's docId: %d of %d (%.2f%%); false merges: %d",
		twice, mapped, copies, pct(mapped, copies), falseMerges)
	if rssMinute > 0 {
		t.Logf("RssAnon after 1 min %.1f MiB, at the end %.1f MiB (ratio %.2f)", float64(rssMinute)/(1<<20), float64(rssEnd)/(1<<20), float64(rssEnd)/float64(rssMinute))
	}
	t.Logf("summary: refreshed %d, not_modified %d, changed %d (new versions %d), behind_schedule %d, discovery delay median %.3fs p99 %.3fs",
		st.Refreshed, st.NotModified, st.Changed, st.NewVersions, st.BehindSchedule, st.DiscoveryDelayMedian, st.DiscoveryDelayP99)
	if rep, err := db.Check(context.Background()); err != nil {
		t.Errorf("store check: %v", err)
	} else {
		t.Logf("store: %d pages, %d old versions kept (recrawl.keep_versions %d)", rep.Pages, rep.Versions, cfg.Recrawl.KeepVersions)
	}
}

// memReport logs the Go runtime's view of memory (what of RssAnon is Go
// heap, what is stacks and runtime overhead) and, with
// BLOOMCRAWL_NEWS_BENCH_PROFILE=DIR, writes DIR/heap-NAME.pprof (the
// in-use heap as of the last GC; read with go tool pprof -sample_index=inuse_space).
func memReport(t *testing.T, when, name string) {
	t.Helper()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	live := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(live)
	mib := func(v uint64) float64 { return float64(v) / (1 << 20) }
	t.Logf("Go memory %s: live heap at the last GC %.1f MiB; heap in use %.1f MiB (allocated %.1f), idle not returned %.1f MiB, stacks %.1f MiB, runtime other %.1f MiB, GCs %d",
		when, mib(live[0].Value.Uint64()), mib(ms.HeapInuse), mib(ms.HeapAlloc), mib(ms.HeapIdle-ms.HeapReleased), mib(ms.StackSys), mib(ms.MSpanSys+ms.MCacheSys+ms.BuckHashSys+ms.GCSys+ms.OtherSys), ms.NumGC)
	dir := os.Getenv("BLOOMCRAWL_NEWS_BENCH_PROFILE")
	if dir == "" {
		return
	}
	f, err := os.Create(filepath.Join(dir, "heap-"+name+".pprof"))
	if err != nil {
		t.Errorf("heap profile: %v", err)
		return
	}
	defer f.Close()
	if err := pprof.Lookup("heap").WriteTo(f, 0); err != nil {
		t.Errorf("heap profile: %v", err)
	}
}

// memTrace logs, every 10 s of the run, RssAnon next to the Go heap's
// parts and the disk blocks of Badger's memtable logs (*.mem: about what
// the memtables hold, whose arenas are Go heap touched as they fill).
func memTrace(t *testing.T, el time.Duration, dir string) {
	t.Helper()
	rss, _ := bench.RssAnon(os.Getpid())
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	var mem int64
	if files, err := filepath.Glob(filepath.Join(dir, "*.mem")); err == nil {
		for _, f := range files {
			if fi, err := os.Stat(f); err == nil {
				if st, ok := fi.Sys().(*syscall.Stat_t); ok {
					mem += st.Blocks * 512
				}
			}
		}
	}
	mib := func(v uint64) float64 { return float64(v) / (1 << 20) }
	t.Logf("t=%3.0fs RssAnon %.1f MiB | heap alloc %.1f in use %.1f idle-unreleased %.1f next GC %.1f, GCs %d | memtable logs %.1f MiB",
		el.Seconds(), mib(uint64(rss)), mib(ms.HeapAlloc), mib(ms.HeapInuse), mib(ms.HeapIdle-ms.HeapReleased), mib(ms.NextGC), ms.NumGC, mib(uint64(mem)))
}
