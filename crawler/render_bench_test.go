package crawler

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/bloomcrawl/bloomcrawl/configs"
	"github.com/bloomcrawl/bloomcrawl/lab/jssite"
	"github.com/bloomcrawl/bloomcrawl/storage"
)

// BenchmarkRenderJSSite crawls a generated JavaScript site (40 script-
// written pages, 40 SPA routes, the lists, plain pages) with fetch.render
// auto and 1, 2 and 4 tabs, and reports pages/s, the CPU seconds per
// rendered page (this process and the browser's, which are its children)
// and the largest RssAnon of this process and its children together.
//
//	flock /tmp/bench.lock go test ./crawler -run '^$' -bench RenderJSSite -benchtime 1x
func BenchmarkRenderJSSite(b *testing.B) {
	site := jssite.New(jssite.Options{Plain: 20, JSPages: 40, Routes: 40, FeedPages: 3, MorePages: 2})
	srv := site.Serve(b)
	for _, tabs := range []int{1, 2, 4} {
		b.Run(fmt.Sprintf("tabs=%d", tabs), func(b *testing.B) {
			var pages, rendered int64
			var cpu, wall time.Duration
			var peak int64
			for range b.N {
				cfg := jsConfig(b, srv.URL, "auto")
				cfg.Fetch.RenderConcurrency = tabs
				cfg.Politeness.Concurrency, cfg.Politeness.PerHostParallelism = 8, 8
				stop := sampleRssAnon(&peak)
				c0 := cpuSeconds()
				t0 := time.Now()
				st, err := benchCrawl(b, cfg)
				wall += time.Since(t0)
				cpu += cpuSeconds() - c0
				stop()
				if err != nil {
					b.Fatal(err)
				}
				pages += st.Stored + st.Duplicates
				rendered += st.Render.Rendered
			}
			b.ReportMetric(float64(pages)/wall.Seconds(), "pages/s")
			b.ReportMetric(cpu.Seconds()/float64(rendered)*1000, "cpu-ms/rendered")
			b.ReportMetric(float64(rendered)/float64(b.N), "rendered/op")
			b.ReportMetric(float64(peak)/(1<<20), "rssanon-MiB")
		})
	}
}

// benchCrawl runs the crawl of cfg into a fresh store.
func benchCrawl(b *testing.B, cfg *configs.Config) (Stats, error) {
	cfg.Store.Dir = b.TempDir()
	db, err := storage.Open(cfg.Store.Dir, StoreOptions(cfg.Store))
	if err != nil {
		return Stats{}, err
	}
	defer db.Close()
	c, err := newCrawler(cfg, Options{Store: db, Grace: time.Second})
	if err != nil {
		return Stats{}, err
	}
	return c.Run(context.Background())
}

// cpuSeconds is the user+system CPU of this process and its reaped
// children (the browser, once closed).
func cpuSeconds() time.Duration {
	var self, kids syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &self)
	syscall.Getrusage(syscall.RUSAGE_CHILDREN, &kids)
	tv := func(t syscall.Timeval) time.Duration {
		return time.Duration(t.Sec)*time.Second + time.Duration(t.Usec)*time.Microsecond
	}
	return tv(self.Utime) + tv(self.Stime) + tv(kids.Utime) + tv(kids.Stime)
}

// sampleRssAnon samples, every 100ms until stop, the RssAnon of this
// process and all its descendants together, keeping the largest in peak.
func sampleRssAnon(peak *int64) (stop func()) {
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(100 * time.Millisecond)
		defer t.Stop()
		for {
			if n := treeRssAnon(os.Getpid()); n > *peak {
				*peak = n
			}
			select {
			case <-done:
				return
			case <-t.C:
			}
		}
	}()
	return func() { close(done); wg.Wait() }
}

// treeRssAnon sums RssAnon (bytes) over pid and its descendants.
func treeRssAnon(pid int) int64 {
	parent := map[int]int{}
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	for _, d := range dirs {
		p, _ := strconv.Atoi(filepath.Base(d))
		b, err := os.ReadFile(d + "/stat")
		if err != nil {
			continue
		}
		s := string(b)
		if i := strings.LastIndexByte(s, ')'); i >= 0 {
			f := strings.Fields(s[i+1:])
			if len(f) > 1 {
				pp, _ := strconv.Atoi(f[1])
				parent[p] = pp
			}
		}
	}
	in := func(p int) bool {
		for i := 0; p > 1 && i < 64; i++ {
			if p == pid {
				return true
			}
			p = parent[p]
		}
		return false
	}
	var total int64
	for p := range parent {
		if !in(p) {
			continue
		}
		f, err := os.Open(fmt.Sprintf("/proc/%d/status", p))
		if err != nil {
			continue
		}
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			if v, ok := strings.CutPrefix(sc.Text(), "RssAnon:"); ok {
				kb, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
				total += kb << 10
			}
		}
		f.Close()
	}
	return total
}
