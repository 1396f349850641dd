package contentdedup

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"runtime/metrics"
	"slices"
	"testing"
	"unsafe"
)

// BenchmarkIndexLookup compares Index.Within with LinearScan over the same
// 1M and 10M fingerprints (k = 3), on queries 0..4 bits away from a member,
// and fails if the two ever disagree. Compare the ns/op of the index and
// linear sub-benchmarks of one size for the speed-up.
func BenchmarkIndexLookup(b *testing.B) {
	for _, n := range []int{1_000_000, 10_000_000} {
		r := rand.New(rand.NewPCG(7, uint64(n)))
		fps := make([]uint64, n)
		for i := range fps {
			fps[i] = r.Uint64()
		}
		x, _ := NewIndex(3)
		x.AddBatch(fps)
		queries := make([]uint64, 1024)
		for i := range queries {
			queries[i] = flipBits(r, fps[r.IntN(n)], r.IntN(5))
		}
		var hits int
		for i, q := range queries {
			got := x.Within(q, nil)
			want := slices.Sorted(slices.Values(LinearScan(fps, q, 3, nil)))
			if !slices.Equal(got, want) {
				b.Fatalf("query %d: index %x, linear scan %x", i, got, want)
			}
			hits += len(got)
		}
		b.Run(fmt.Sprintf("n=%d/index", n), func(b *testing.B) {
			var dst []uint64
			i := 0
			for b.Loop() {
				dst = x.Within(queries[i%len(queries)], dst[:0])
				i++
			}
			b.ReportMetric(float64(hits)/float64(len(queries)), "hits/query")
		})
		b.Run(fmt.Sprintf("n=%d/linear", n), func(b *testing.B) {
			var dst []uint64
			i := 0
			for b.Loop() {
				dst = LinearScan(fps, queries[i%len(queries)], 3, dst[:0])
				i++
			}
		})
	}
}

// BenchmarkIndexRebuild measures rebuilding an Index from 1M stored
// fingerprints (start-up), k = 3 and k = 6.
func BenchmarkIndexRebuild(b *testing.B) {
	r := rand.New(rand.NewPCG(8, 8))
	fps := make([]uint64, 1_000_000)
	for i := range fps {
		fps[i] = r.Uint64()
	}
	for _, k := range []int{3, 6} {
		b.Run(fmt.Sprintf("n=1000000/k=%d", k), func(b *testing.B) {
			for b.Loop() {
				x, _ := NewIndex(k)
				x.AddBatch(fps)
			}
		})
	}
}

// BenchmarkIndexAdd measures one-at-a-time inserts into an Index that
// already holds 1M fingerprints (pending-buffer merges included).
func BenchmarkIndexAdd(b *testing.B) {
	r := rand.New(rand.NewPCG(9, 9))
	fps := make([]uint64, 1_000_000)
	for i := range fps {
		fps[i] = r.Uint64()
	}
	x, _ := NewIndex(3)
	x.AddBatch(fps)
	for b.Loop() {
		x.Add(r.Uint64())
	}
}

// BenchmarkDeduperRestore measures a start-up rebuild: RestoreDoc for 1M
// stored documents (random SimHash contents with sketches, exact-hash
// titles) and the first Check, which indexes them in one batch; with the
// sketches and URLs in memory and in a spill file (Options.SpillDir, as a
// crawl does, with the large arrays mapped from it). It reports the live
// heap and the mapped arrays per document after the rebuild.
func BenchmarkDeduperRestore(b *testing.B) {
	r := rand.New(rand.NewPCG(10, 10))
	const n = 1_000_000
	sigs := make([]Signature, n)
	for i := range sigs {
		sigs[i] = Signature{Title: r.Uint64(), Content: r.Uint64(), Flags: FlagTitleExact}
		for j := range sigs[i].Sketch {
			sigs[i].Sketch[j] = uint8(r.Uint32()) | 1
		}
	}
	if err := LoadDictionary(); err != nil { // not part of the rebuild
		b.Fatal(err)
	}
	for _, spill := range []bool{false, true} {
		b.Run(fmt.Sprintf("spill=%v", spill), func(b *testing.B) {
			o := Options{}
			if spill {
				o.SpillDir, o.MapArrays = b.TempDir(), true
			}
			var perDoc, mappedPerDoc float64
			var parts map[string]int
			for b.Loop() {
				runtime.GC()
				before := liveHeap()
				d := mustNew(b, o)
				for i, s := range sigs {
					d.RestoreDoc(uint64(i+1), fmt.Sprintf("https://example.org/%d", i), s)
				}
				d.Check("https://example.org/new", "t", "some words of a new document")
				if d.Len() != n+1 {
					b.Fatalf("Len %d", d.Len())
				}
				runtime.GC()
				perDoc = float64(liveHeap()-before) / n
				parts = d.footprint()
				mappedPerDoc = float64(d.MappedBytes()) / n
				d.Close()
			}
			b.ReportMetric(perDoc, "live-B/doc")
			b.ReportMetric(mappedPerDoc, "mapped-B/doc")
			for name, bytes := range parts {
				b.ReportMetric(float64(bytes)/n, name+"-B/doc")
			}
		})
	}
}

// liveHeap returns the bytes the last collection marked live.
func liveHeap() int64 {
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(s)
	return int64(s[0].Value.Uint64())
}

// footprint returns the bytes of the Deduper's arrays by structure (the
// recent-key maps of the packed maps and the Index's pending buffers are
// left out: they are the difference to the live heap).
func (d *Deduper) footprint() map[string]int {
	d.mu.Lock()
	defer d.mu.Unlock()
	packed := func(m *packedMap) int { return 8 * (cap(m.keys) + cap(m.vals)) }
	index := func(x *Index) int {
		n := 0
		for _, t := range x.tables {
			n += 8*cap(t.fps) + 4*cap(t.dir)
		}
		return n
	}
	return map[string]int{
		"entries":      len(d.entries.chunks) * entryChunk * int(unsafe.Sizeof(entry{})),
		"urls":         packed(&d.urls),
		"docs":         packed(&d.docs),
		"byFP":         packed(&d.byFP),
		"byTitle":      packed(&d.byTitle),
		"contentIndex": index(d.content),
		"blobsInMem":   cap(d.blobs.mem),
	}
}

// BenchmarkIndexCrawlStep measures what a crawl does per page with an
// Index of n members: look a new fingerprint up (Within) and add it, the
// merges of the pending buffer into the tables amortized over the adds.
// Compare the sizes: a crawl's cost per page should not grow with n.
func BenchmarkIndexCrawlStep(b *testing.B) {
	for _, n := range []int{50_000, 500_000, 2_000_000, 10_000_000} {
		r := rand.New(rand.NewPCG(11, uint64(n)))
		fps := make([]uint64, n)
		for i := range fps {
			fps[i] = r.Uint64()
		}
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			x, _ := NewIndex(3)
			x.AddBatch(fps)
			var dst []uint64
			for b.Loop() {
				q := r.Uint64()
				dst = x.Within(q, dst[:0])
				x.Add(q)
			}
		})
	}
}
