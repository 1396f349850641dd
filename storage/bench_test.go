package storage

import (
	"context"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// Benchmarks use real documentation pages of 20–100 KB when the lab
// corpora are unpacked (BLOOMCRAWL_BENCH_HTML, a colon-separated list of
// directories; default /tmp/corpora/python311:/tmp/corpora/rust), and
// generated pages of the same size range otherwise. Run them under the
// lock:
//
//	flock /tmp/bloomcrawl-bench.lock go test -run '^$' -bench . -benchtime 2000x ./storage/

var benchHTML = sync.OnceValues(func() ([][]byte, string) {
	dirs := os.Getenv("BLOOMCRAWL_BENCH_HTML")
	if dirs == "" {
		dirs = "/tmp/corpora/python311:/tmp/corpora/rust"
	}
	var pages [][]byte
	for _, d := range strings.Split(dirs, ":") {
		root, err := filepath.EvalSymlinks(d)
		if err != nil {
			continue
		}
		filepath.WalkDir(root, func(path string, e fs.DirEntry, err error) error {
			if err != nil || e.IsDir() || !strings.HasSuffix(path, ".html") || len(pages) >= 3000 {
				return nil
			}
			if info, err := e.Info(); err != nil || info.Size() < 20<<10 || info.Size() > 100<<10 {
				return nil
			}
			if b, err := os.ReadFile(path); err == nil {
				pages = append(pages, b)
			}
			return nil
		})
	}
	if len(pages) < 100 {
		return nil, "generated pages (lab corpora not found)"
	}
	return pages, fmt.Sprintf("%d real pages from %s", len(pages), dirs)
})

var tagRe = regexp.MustCompile(`(?s)<script.*?</script>|<style.*?</style>|<[^>]*>`)

// benchPage returns page i: real HTML (cycled) or a generated page, with
// a unique docId and URL.
func benchPage(i int) *Page {
	p := genPage(uint64(i) + 1)
	real, _ := benchHTML()
	if len(real) > 0 {
		p.HTML = real[i%len(real)]
		p.Text = benchText()[i%len(real)]
	}
	return p
}

// benchText is the tag-stripped text of each benchHTML page (a stand-in
// for the crawler's main-text extraction).
var benchText = sync.OnceValue(func() []string {
	real, _ := benchHTML()
	texts := make([]string, len(real))
	for i, html := range real {
		texts[i] = strings.Join(strings.Fields(tagRe.ReplaceAllString(string(html), " ")), " ")
	}
	return texts
})

func dirBytes(tb testing.TB, dir string) int64 {
	var n int64
	filepath.WalkDir(dir, func(_ string, e fs.DirEntry, err error) error {
		if err == nil && !e.IsDir() {
			if info, err := e.Info(); err == nil {
				n += info.Size()
			}
		}
		return nil
	})
	return n
}

// BenchmarkCommit measures pages committed per second (one page, its URL
// record, two queue entries and a trace chunk per Commit), and after
// Close the bytes on disk per page against the raw HTML size.
func BenchmarkCommit(b *testing.B) {
	for _, bc := range []struct {
		workers int
		level   string
		minFree int64 // Options.MinFreeBytes: 0 default watch, -1 off
	}{{1, "default", 0}, {4, "default", 0}, {4, "fastest", 0}, {4, "fastest", -1}, {4, "better", 0}} {
		workers := bc.workers
		name := fmt.Sprintf("workers=%d/zstd=%s/space-watch=on", workers, bc.level)
		if bc.minFree < 0 {
			name = strings.TrimSuffix(name, "on") + "off"
		}
		b.Run(name, func(b *testing.B) {
			_, src := benchHTML()
			b.Logf("source: %s", src)
			pages := make([]*Page, b.N)
			var rawHTML, rawText int64
			for i := range pages {
				pages[i] = benchPage(i)
				rawHTML += int64(len(pages[i].HTML))
				rawText += int64(len(pages[i].Text))
			}
			dir := b.TempDir()
			db, err := Open(dir, &Options{GCInterval: -1, Compression: bc.level, MinFreeBytes: bc.minFree})
			if err != nil {
				b.Fatal(err)
			}
			var next atomic.Int64
			var wg sync.WaitGroup
			b.ResetTimer()
			start := time.Now()
			for w := 0; w < workers; w++ {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for {
						i := int(next.Add(1) - 1)
						if i >= len(pages) {
							return
						}
						p := pages[i]
						_, err := db.Commit(context.Background(), Commit{
							Page:    p,
							Enqueue: []QueueEntry{{URL: p.URL + "/a"}, {URL: p.URL + "/b"}},
							Trace:   []string{p.URL, p.URL + "/a", p.URL + "/b"},
						})
						if err != nil {
							b.Error(err)
							return
						}
					}
				}()
			}
			wg.Wait()
			elapsed := time.Since(start)
			b.StopTimer()
			if err := db.Close(); err != nil {
				b.Fatal(err)
			}
			disk := dirBytes(b, dir)
			if ents, err := os.ReadDir(dir); err == nil {
				var files []string
				for _, e := range ents {
					if info, err := e.Info(); err == nil {
						files = append(files, fmt.Sprintf("%s=%d", e.Name(), info.Size()))
					}
				}
				b.Logf("%d pages: store files %v", b.N, files)
			}
			n := float64(b.N)
			b.ReportMetric(n/elapsed.Seconds(), "pages/s")
			b.ReportMetric(float64(rawHTML)/n, "rawHTML-B/page")
			b.ReportMetric(float64(rawHTML+rawText)/n, "raw-B/page")
			b.ReportMetric(float64(disk)/n, "disk-B/page")
			b.ReportMetric(float64(disk)/float64(rawHTML), "disk/rawHTML")
		})
	}
}

// lookupStore is a store of benchLookupPages pages, built once per test
// binary (it takes a minute or two), or kept in BLOOMCRAWL_BENCH_STORE
// and reused by later runs.
var lookupStore = sync.OnceValues(func() (string, error) {
	dir := os.Getenv("BLOOMCRAWL_BENCH_STORE") // kept, and reused when complete
	if dir == "" {
		var err error
		if dir, err = os.MkdirTemp("", "bloomcrawl-bench-lookup-"); err != nil {
			return "", err
		}
		lookupDir = dir // removed by TestMain
	}
	db, err := Open(dir, &Options{GCInterval: -1})
	if err != nil {
		return "", err
	}
	if st, err := db.Stats(context.Background()); err == nil && st.Pages == benchLookupPages {
		return dir, db.Close()
	}
	var wg sync.WaitGroup
	var next atomic.Int64
	errc := make(chan error, 2)
	for w := 0; w < 2; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1) - 1)
				if i >= benchLookupPages {
					return
				}
				p := benchPage(i)
				if _, err := db.Commit(context.Background(), Commit{Page: p,
					URL: &URLRecord{URL: p.URL + "?dup", DocID: p.DocID, Duplicate: true, Reason: "url"}}); err != nil {
					errc <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errc)
	if err := <-errc; err != nil {
		return "", err
	}
	return dir, db.Close()
})

const benchLookupPages = 100_000

var lookupDir string

func openLookupStore(b *testing.B) *DB {
	b.Helper()
	if testing.Short() {
		b.Skip("builds a 100k-page store")
	}
	dir, err := lookupStore()
	if err != nil {
		b.Fatal(err)
	}
	db, err := Open(dir, &Options{ReadOnly: true})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
	return db
}

// BenchmarkPageByURL looks up random URLs (half of them duplicate URLs)
// in a 100k-page store and reports p50/p99 latency.
func BenchmarkPageByURL(b *testing.B) {
	db := openLookupStore(b)
	r := rand.New(rand.NewPCG(7, 7))
	lat := make([]time.Duration, 0, b.N)
	ids := make([]uint64, b.N)
	urls := make([]string, b.N)
	for i := range ids {
		ids[i] = uint64(r.IntN(benchLookupPages)) + 1
		urls[i] = genURL(ids[i])
		if i%2 == 1 {
			urls[i] += "?dup"
		}
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		id, u := ids[i], urls[i]
		t := time.Now()
		p, _, err := db.PageByURL(u)
		lat = append(lat, time.Since(t))
		if err != nil || p.DocID != DocID(id) {
			b.Fatalf("PageByURL(%s): %v", u, err)
		}
	}
	b.StopTimer()
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds()), "p50-µs")
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds()), "p99-µs")
}

// BenchmarkForEachFingerprint scans the fingerprint entries of a
// 100k-page store (what the dedup index rebuild reads at start-up).
func BenchmarkForEachFingerprint(b *testing.B) {
	db := openLookupStore(b)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		n := 0
		if err := db.ForEachFingerprint(context.Background(), func(Fingerprint) error { n++; return nil }); err != nil {
			b.Fatal(err)
		}
		if n != benchLookupPages {
			b.Fatalf("%d fingerprints, want %d", n, benchLookupPages)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/benchLookupPages, "ns/doc")
}

// BenchmarkStats counts a 100k-page store.
func BenchmarkStats(b *testing.B) {
	db := openLookupStore(b)
	for i := 0; i < b.N; i++ {
		st, err := db.Stats(context.Background())
		if err != nil || st.Pages != benchLookupPages {
			b.Fatalf("Stats = %+v, %v", st, err)
		}
	}
}

// BenchmarkKnown measures confirming a URL filter's "seen" answers: Known
// on 3 queued URLs at a time (what a page of a large crawl asks when its
// links are not in the frontier's memory), drawn at random from n queued
// URLs with the key shapes of a synthetic crawl, with the crawl's block
// cache (16 MiB) and none. BLOOMCRAWL_BENCH_KNOWN sets n (default
// 1,000,000); the store is built once, then reopened for each setting.
func BenchmarkKnown(b *testing.B) {
	n := 1_000_000
	if v := os.Getenv("BLOOMCRAWL_BENCH_KNOWN"); v != "" {
		fmt.Sscan(v, &n)
	}
	dir := b.TempDir()
	url := func(i int) string { return fmt.Sprintf("http://127.0.0.1:41234/p/%d", i) }
	db, err := Open(dir, &Options{MemTableSize: 32 << 20})
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	for i := 0; i < n; i += 8 {
		var c Commit
		for j := i; j < min(i+8, n); j++ {
			c.Enqueue = append(c.Enqueue, QueueEntry{URL: url(j), Depth: 5, Referrer: url(j / 8)})
		}
		c.URL = &URLRecord{URL: url(i/8) + "x", Status: 200}
		if _, err := db.Commit(ctx, c); err != nil {
			b.Fatal(err)
		}
	}
	if err := db.Close(); err != nil {
		b.Fatal(err)
	}
	for _, cache := range []int64{16 << 20, 0} {
		b.Run(fmt.Sprintf("n=%d/blockcache=%dMiB", n, cache>>20), func(b *testing.B) {
			o := &Options{MemTableSize: 32 << 20, BlockCacheSize: cache}
			if cache == 0 {
				o.BlockCacheSize = -1 // none
			}
			db, err := Open(dir, o)
			if err != nil {
				b.Fatal(err)
			}
			defer db.Close()
			r := rand.New(rand.NewPCG(1, 2))
			urls, known := make([]string, 3), make([]bool, 3)
			cpu0 := processCPU()
			for b.Loop() {
				for k := range urls {
					urls[k] = url(r.IntN(n))
				}
				if err := db.Known(ctx, urls, known); err != nil {
					b.Fatal(err)
				}
				if !known[0] || !known[1] || !known[2] {
					b.Fatalf("%v not known", urls)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(3*b.N), "ns/URL")
			b.ReportMetric(float64((processCPU()-cpu0).Nanoseconds())/float64(3*b.N), "cpu-ns/URL")
		})
	}
}

// processCPU returns the CPU time (user + system) the process used so far.
func processCPU() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
