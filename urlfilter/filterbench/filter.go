package filterbench

import (
	"context"
	"fmt"
	"io"
	"math"
	"runtime"
	"slices"
	"text/tabwriter"
	"time"

	"github.com/cespare/xxhash/v2"

	"github.com/bloomcrawl/bloomcrawl/urlfilter"
)

// FilterVariants are the rows Filter can measure without o.Peers, in its
// default order.
var FilterVariants = []string{"mdbf", "mdbf-routed", "classic", "blocked", "exact", "default", "default-single",
	"peer-map", "scalable-3x"}

// Peer is another library's filter for Filter to measure beside ours. The
// product links none: cmd/bloomcrawl-lab passes them in FilterOptions.Peers.
type Peer struct {
	Impl      string            // what the row's impl column says
	Add       func(string) bool // test-and-add; true = seen
	Test      func(string) bool
	Bits      func() uint64 // memory in bits; 0 = measure the heap
	Predicted func() float64
}

// FilterOptions says what Filter measures.
type FilterOptions struct {
	// Keys holds the 2N distinct keys: the first N are inserted, the last N
	// tested fresh. FilterKeys builds them.
	Keys     []string
	FP       float64  // target false-positive rate the filters are sized for, in (0, 0.5)
	Variants []string // some of FilterVariants and the names in Peers; nil = FilterVariants
	// Peers are more rows by name, each built for n keys at the target FP;
	// nil = none.
	Peers map[string]func(n uint64, fp float64) Peer
	Reps  int       // timing repetitions of the test pass, the median is reported; 0 = 1
	Log   io.Writer // progress lines; nil = none
}

// FilterRow is one variant: what Filter measured.
type FilterRow struct {
	Variant        string  `json:"variant"`
	Impl           string  `json:"impl"`
	N              int     `json:"n"`
	Fed            int     `json:"fed"`
	Capacity       uint64  `json:"capacity"`
	TargetFP       float64 `json:"target_fp"`
	BitsPerURL     float64 `json:"bits_per_url"`
	MeasuredFP     float64 `json:"measured_fp"`
	TheoreticalFP  float64 `json:"theoretical_fp"`
	FalsePositives int     `json:"false_positives"`
	AddNs          float64 `json:"add_ns"`       // CPU time of this thread per add (wall time where unsupported)
	TestNs         float64 `json:"test_ns"`      // median over Reps passes, CPU time of this thread per test
	AddWallNs      float64 `json:"add_wall_ns"`  // wall time per add (includes GC and other processes)
	TestWallNs     float64 `json:"test_wall_ns"` // median wall time per test
	Clock          string  `json:"clock"`        // "thread-cpu" or "wall": what add_ns/test_ns measure
	Layers         int     `json:"layers,omitempty"`
}

// FilterKeys returns 2n distinct keys for Filter: generated URL-shaped keys
// (URLKeys) when path is "", else the first 2n distinct lines of path. A
// file with fewer lines gives fewer keys, split half and half, and a line on
// log says so; fewer than 2 is an error.
func FilterKeys(path string, n int, log io.Writer) ([]string, error) {
	if log == nil {
		log = io.Discard
	}
	if path == "" {
		fmt.Fprintf(log, "bench filter: generating %d URL-shaped keys\n", 2*n)
		return URLKeys(2 * n), nil
	}
	keys, err := ReadURLs(path, true, 2*n)
	if err != nil {
		return nil, err
	}
	if len(keys) < 2*n {
		if len(keys) < 2 {
			return nil, fmt.Errorf("bench filter: %s: need at least 2 distinct URLs", path)
		}
		fmt.Fprintf(log, "bench filter: %s has %d distinct URLs; using n=%d (half inserted, half fresh)\n", path, len(keys), len(keys)/2)
		keys = keys[:len(keys)/2*2]
	}
	return keys, nil
}

// filterSubject is one filter under test, ours or a peer's.
type filterSubject struct {
	variant, impl string
	capacity      uint64
	filter        urlfilter.Filter  // ours only
	add           func(string) bool // test-and-add; true = seen
	test          func(string) bool
	addBatch      func([]string, []bool) // optional: batch forms (urlfilter.TestAndAddBatch, TestBatch)
	testBatch     func([]string, []bool)
	bits          func() uint64 // memory; 0 = measure the heap
	predicted     func() float64
	layers        func() int
}

// Filter inserts the first half of o.Keys into a fresh filter of each
// variant (ours sized for that many keys at o.FP, a map, and o.Peers), then tests
// the second half, which is fresh: every positive is a false positive. It
// reports memory per key, measured and predicted FP, and ns per add and per
// test, timed on one locked OS thread with its CPU clock.
func Filter(ctx context.Context, o FilterOptions) ([]FilterRow, error) {
	n := len(o.Keys) / 2
	if n < 1 {
		return nil, fmt.Errorf("bench filter: %d keys: need at least 2", len(o.Keys))
	}
	if !(o.FP > 0 && o.FP < 0.5) {
		return nil, fmt.Errorf("bench filter: FP %g: must be in (0, 0.5)", o.FP)
	}
	known := slices.Clone(FilterVariants)
	for name := range o.Peers {
		known = append(known, name)
	}
	if o.Variants == nil {
		o.Variants = FilterVariants
	}
	vs, err := pickVariants(o.Variants, known)
	if err != nil {
		return nil, fmt.Errorf("bench filter: %w", err)
	}
	reps := max(o.Reps, 1)
	log := o.Log
	if log == nil {
		log = io.Discard
	}
	ins, fresh := o.Keys[:n], o.Keys[n:2*n]
	var rows []FilterRow
	for _, v := range vs {
		if err := ctx.Err(); err != nil {
			return rows, err
		}
		runtime.GC()
		heapBefore := heapInUse()
		subj, err := newFilterSubject(v, uint64(n), o.FP, o.Peers)
		if err != nil {
			return rows, err
		}
		fmt.Fprintf(log, "bench filter: %-22s inserting %d keys\n", v, len(ins))
		runtime.LockOSThread()
		start, cpu0 := time.Now(), clock()
		if subj.addBatch != nil {
			batchRun(ins, subj.addBatch)
		} else {
			for _, k := range ins {
				subj.add(k)
			}
		}
		addNs := float64(clock()-cpu0) / float64(len(ins))
		addWall := float64(time.Since(start).Nanoseconds()) / float64(len(ins))
		runtime.UnlockOSThread()
		runtime.GC()
		heap := heapInUse() - heapBefore
		fmt.Fprintf(log, "bench filter: %-22s testing %d fresh keys ×%d\n", v, len(fresh), reps)
		var times, walls []float64
		positives := 0
		for r := 0; r < reps; r++ {
			if err := ctx.Err(); err != nil {
				return rows, err
			}
			p := 0
			runtime.LockOSThread()
			start, cpu0 = time.Now(), clock()
			if subj.testBatch != nil {
				p = batchRun(fresh, subj.testBatch)
			} else {
				for _, k := range fresh {
					if subj.test(k) {
						p++
					}
				}
			}
			times = append(times, float64(clock()-cpu0)/float64(len(fresh)))
			walls = append(walls, float64(time.Since(start).Nanoseconds())/float64(len(fresh)))
			runtime.UnlockOSThread()
			positives = p
		}
		slices.Sort(times)
		slices.Sort(walls)
		bits := subj.bits()
		if bits == 0 {
			bits = heap * 8
		}
		row := FilterRow{Variant: v, Impl: subj.impl, N: n, Fed: len(ins), Capacity: subj.capacity, TargetFP: o.FP,
			BitsPerURL: float64(bits) / float64(len(ins)), MeasuredFP: float64(positives) / float64(len(fresh)),
			TheoreticalFP: subj.predicted(), FalsePositives: positives, AddNs: addNs, TestNs: times[len(times)/2],
			AddWallNs: addWall, TestWallNs: walls[len(walls)/2], Clock: clockName}
		if subj.layers != nil {
			row.Layers = subj.layers()
		}
		rows = append(rows, row)
		subj = filterSubject{} // let the filter go before the next one is built
	}
	return rows, nil
}

// batchRun feeds keys to fn in slices of 64 (as a crawler would pass the
// links of one page) and returns how many came back true.
func batchRun(keys []string, fn func([]string, []bool)) int {
	var out [64]bool
	n := 0
	for lo := 0; lo < len(keys); lo += len(out) {
		chunk := keys[lo:min(lo+len(out), len(keys))]
		fn(chunk, out[:len(chunk)])
		for _, b := range out[:len(chunk)] {
			if b {
				n++
			}
		}
	}
	return n
}

func newFilterSubject(v string, n uint64, fp float64, peers map[string]func(uint64, float64) Peer) (filterSubject, error) {
	if peer, ok := peers[v]; ok {
		p := peer(n, fp)
		return filterSubject{variant: v, impl: p.Impl, capacity: n, add: p.Add, test: p.Test, bits: p.Bits, predicted: p.Predicted}, nil
	}
	ours := func(o urlfilter.Options, impl string) (filterSubject, error) {
		f, err := urlfilter.New(o)
		if err != nil {
			return filterSubject{}, fmt.Errorf("bench filter: %s: %w", v, err)
		}
		s := filterSubject{variant: v, impl: impl, capacity: o.Capacity, filter: f, add: f.TestAndAdd, test: f.Test,
			bits: func() uint64 { return f.Stats().Bits }, predicted: func() float64 { return f.Stats().PredictedFP },
			layers: func() int { return f.Stats().Layers }}
		if o.Variant == urlfilter.VariantExact {
			s.bits = func() uint64 { return 0 } // measure the real heap
		}
		if shape, ok := f.(fmt.Stringer); ok { // mdbf and mdbf-routed describe their shape
			s.impl = shape.String()
		}
		return s, nil
	}
	switch v {
	case "mdbf", "mdbf-routed", "classic", "blocked", "exact":
		return ours(urlfilter.Options{Variant: v, Capacity: n, TargetFP: fp}, v)
	case "default":
		// As the crawler uses it: frontier.Reserve tests each page's links
		// with TestAndAddBatch, so adds go through TestAndAddBatch and tests
		// through TestBatch (its read-only half), 64 keys a call.
		s, err := ours(urlfilter.Options{Capacity: n, TargetFP: fp}, urlfilter.DefaultVariant+"(blocked layers) via TestAndAddBatch/TestBatch, 64 keys a call, as frontier.Reserve")
		if err != nil {
			return s, err
		}
		f := s.filter
		s.addBatch = func(k []string, o []bool) { urlfilter.TestAndAddBatch(f, k, o) }
		s.testBatch = func(k []string, o []bool) { urlfilter.TestBatch(f, k, o) }
		return s, nil
	case "default-single":
		return ours(urlfilter.Options{Capacity: n, TargetFP: fp}, urlfilter.DefaultVariant+"(blocked layers) via TestAndAdd/Test, one key a call")
	case "scalable-3x":
		return ours(urlfilter.Options{Variant: urlfilter.VariantScalable, Capacity: max(1, n/3), TargetFP: fp}, "scalable(blocked layers) fed 3× capacity")
	case "peer-map":
		m := make(map[uint64]struct{})
		return filterSubject{variant: v, impl: "map[uint64]struct{} of xxhash64 (as colly)", capacity: n,
			add: func(k string) bool {
				h := xxhash.Sum64String(k)
				if _, ok := m[h]; ok {
					return true
				}
				m[h] = struct{}{}
				return false
			},
			test: func(k string) bool { _, ok := m[xxhash.Sum64String(k)]; return ok },
			bits: func() uint64 { return 0 },
			// A fresh key collides with one of len(m) 64-bit hashes.
			predicted: func() float64 { return float64(len(m)) / math.Exp2(64) }}, nil
	}
	return filterSubject{}, fmt.Errorf("bench filter: unknown row %q", v)
}

// WriteFilterTable writes rows as an aligned text table and, when the
// default and the bits-and-blooms peer both ran, their ratio of test times.
func WriteFilterTable(w io.Writer, rows []FilterRow) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "variant\tn\tfed\tbits/URL\tmeasured FP\tpredicted FP\tadd ns\ttest ns\ttest wall ns\timpl\t")
	var peer float64
	for _, r := range rows {
		if r.Variant == "peer-bits-and-blooms" {
			peer = r.TestNs
		}
	}
	for _, r := range rows {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%.2f\t%.5f\t%.5f\t%.0f\t%.0f\t%.0f\t%s\t\n", r.Variant, r.N, r.Fed, r.BitsPerURL, r.MeasuredFP, r.TheoreticalFP, r.AddNs, r.TestNs, r.TestWallNs, r.Impl)
	}
	tw.Flush()
	for _, r := range rows {
		if r.Variant == "default" && peer > 0 {
			fmt.Fprintf(w, "\nns are %s time; default test_ns / peer-bits-and-blooms test_ns = %.2f\n", rows[0].Clock, r.TestNs/peer)
		}
	}
}
