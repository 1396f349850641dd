// Package memlimit keeps a long crawl's Go heap bounded: it follows the
// heap's soft limit (runtime/debug.SetMemoryLimit) as the crawl's lasting
// state grows, up to a share of the memory the process may use (Ceiling:
// the cgroup limit or the RAM), and writes heap profiles at the live heap's
// peaks; Start runs those and the CPU and lock-contention profiles for
// one command. Only cmd/bloomcrawl uses it (crawl --mem-limit-mb,
// --memprofile, --cpuprofile, --mutexprofile).
// It logs nothing itself: Follow's warnings go to the function it is given
// (Start's to the Options.Logger).
package memlimit

import (
	"context"
	"math"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"runtime/pprof"
	"slices"
	"time"

	"github.com/bloomcrawl/bloomcrawl/storage"
)

// Follow sets the Go heap's soft limit to base bytes, and raises it
// while ctx lasts when the live heap stays above 60% of it over ten garbage
// collections in a row (the dedup index and URL filter grow with the crawl;
// one huge page's DOM does not last): a limit below the lasting live heap
// would make the GC run continuously instead of bounding memory. The live
// heap is what the last collection marked, so a sample is taken only after
// a new collection. The raised limit is 1.67 times the lasting heap: a
// fixed headroom (the lasting heap plus 40% of base) measured 16% more CPU
// per page at 500k synthetic pages for 200 MB less RssAnon (bench
// synthetic), because Badger's table builders, pooled in the Go heap, come
// and go by tens of MB during compactions.
//
// The limit never goes above 3/4 of ceiling (Ceiling: the cgroup limit
// or the RAM, 0 = unknown; the rest is for Badger's mapped files, caches
// and the runtime). When the lasting heap needs more, the limit stays there:
// the GC then runs more often and the crawl slows down instead of being
// OOM-killed without a word, and warn is called to say so (once, and again
// each time the lasting heap has grown by another tenth).
func Follow(ctx context.Context, base, ceiling int64, every time.Duration, warn func(msg string, args ...any)) {
	maxLimit := int64(math.MaxInt64)
	if ceiling > 0 {
		maxLimit = ceiling / 4 * 3
	}
	limit := min(base, maxLimit)
	debug.SetMemoryLimit(limit)
	sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}, {Name: "/gc/cycles/total:gc-cycles"}}
	var recent [10]int64 // live heap after the last collections, a ring
	var n, lastCycle uint64
	var warned int64 // lasting heap at the last warning
	readMetricsEvery(ctx, every, sample, func() bool {
		cycle := sample[1].Value.Uint64()
		if cycle == lastCycle {
			return true // no collection since the last sample
		}
		lastCycle = cycle
		recent[n%uint64(len(recent))] = int64(sample[0].Value.Uint64())
		if n++; n < uint64(len(recent)) {
			return true
		}
		lasting := slices.Min(recent[:])
		if lasting <= limit*6/10 {
			return true
		}
		want := lasting * 10 / 6
		if want > maxLimit {
			want = maxLimit
			if warn != nil && lasting > warned+warned/10 {
				warned = lasting
				warn("memory: the crawl's lasting state is near the memory available; the garbage collector runs more often and the crawl slows down (lower politeness.concurrency or dedup.capacity, or give it more memory)",
					"live_heap", storage.FormatBytes(lasting), "heap_limit", storage.FormatBytes(maxLimit), "ceiling", storage.FormatBytes(ceiling))
			}
		}
		if want != limit {
			limit = want
			debug.SetMemoryLimit(limit)
		}
		return true
	})
}

// ProfileHeapPeaks writes a heap profile to path every time the live heap
// (as the last collection marked it) passes 110% of the highest seen so
// far, checking every interval until ctx is done. It stops, silently, when
// path cannot be created.
func ProfileHeapPeaks(ctx context.Context, path string, every time.Duration) {
	sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	var high uint64
	readMetricsEvery(ctx, every, sample, func() bool {
		if live := sample[0].Value.Uint64(); live > high+high/10 {
			high = live
			f, err := os.Create(path)
			if err != nil {
				return false
			}
			pprof.WriteHeapProfile(f)
			f.Close()
		}
		return true
	})
}

// WriteHeapProfile collects garbage and writes the heap profile to path.
func WriteHeapProfile(path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	runtime.GC()
	if err := pprof.WriteHeapProfile(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// readMetricsEvery reads samples every interval and calls fn, until ctx is
// done or fn returns false; it stops as well when a sample is not a uint64
// (a metric this Go version does not have).
func readMetricsEvery(ctx context.Context, every time.Duration, samples []metrics.Sample, fn func() bool) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		metrics.Read(samples)
		for _, s := range samples {
			if s.Value.Kind() != metrics.KindUint64 {
				return
			}
		}
		if !fn() {
			return
		}
	}
}
