package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"runtime"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/bits-and-blooms/bloom/v3"
	"github.com/cespare/xxhash/v2"

	"github.com/bloomcrawl/bloomcrawl/urlfilter"
)

func init() {
	registerBench(command{
		name:    "filter",
		summary: "URL-filter variants vs peers: bits/URL, measured vs predicted FP, ns per add/test",
		run:     runBenchFilter,
	})
}

// filterRow is one line of 'bench filter' output.
type filterRow struct {
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
	TestNs         float64 `json:"test_ns"`      // median over --reps passes, CPU time of this thread per test
	AddWallNs      float64 `json:"add_wall_ns"`  // wall time per add (includes GC and other processes)
	TestWallNs     float64 `json:"test_wall_ns"` // median wall time per test
	Clock          string  `json:"clock"`        // "thread-cpu" or "wall": what add_ns/test_ns measure
	Layers         int     `json:"layers,omitempty"`
}

// benchFilterRows are the rows 'bench filter' can measure.
var benchFilterRows = []string{"mdbf", "mdbf-routed", "classic", "blocked", "exact", "default", "default-single",
	"peer-bits-and-blooms", "peer-map", "scalable-3x"}

// benchSubject is one filter under test, ours or a peer's.
type benchSubject struct {
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

func runBenchFilter(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("bench filter", "bench filter [--n N] [--fp RATE] [--urls FILE] [--json] [--variants LIST]", stderr)
	n := fs.Int("n", 10_000_000, "distinct keys to insert (and as many fresh keys to test)")
	fp := fs.Float64("fp", 0.01, "target false-positive rate the filters are sized for")
	urls := fs.String("urls", "", "file of real URLs, one per line (default: generated URL-shaped keys)")
	asJSON := fs.Bool("json", false, "print one JSON object per variant")
	variants := fs.String("variants", strings.Join(benchFilterRows, ","), "comma-separated rows to measure")
	reps := fs.Int("reps", 3, "timing repetitions of the test pass (the median is reported)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *n < 1 {
		return usagef("--n %d: must be at least 1", *n)
	}
	if !(*fp > 0 && *fp < 0.5) {
		return usagef("--fp %g: must be in (0, 0.5)", *fp)
	}
	if *reps < 1 {
		return usagef("--reps %d: must be at least 1", *reps)
	}
	for _, v := range strings.Split(*variants, ",") {
		if v = strings.TrimSpace(v); v != "" && !slices.Contains(benchFilterRows, v) {
			return usagef("--variants: unknown row %q (want some of %s)", v, strings.Join(benchFilterRows, ","))
		}
	}
	var keys []string
	var err error
	if *urls != "" {
		keys, err = readDistinctLines(*urls, 2**n)
		if err != nil {
			return err
		}
		if len(keys) < 2**n {
			fmt.Fprintf(stderr, "bench filter: %s has %d distinct URLs; using n=%d (half inserted, half fresh)\n", *urls, len(keys), len(keys)/2)
			*n = len(keys) / 2
			if *n < 1 {
				return fmt.Errorf("bench filter: %s: need at least 2 distinct URLs", *urls)
			}
		}
	} else {
		fmt.Fprintf(stderr, "bench filter: generating %d URL-shaped keys\n", 2**n)
		keys = generateURLKeys(2 * *n)
	}
	ins, fresh := keys[:*n], keys[*n:2**n]

	var rows []filterRow
	for _, v := range strings.Split(*variants, ",") {
		v = strings.TrimSpace(v)
		if v == "" {
			continue
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		runtime.GC()
		heapBefore := heapInUse()
		subj, err := newBenchSubject(v, uint64(*n), *fp)
		if err != nil {
			return usagef("--variants: %v", err)
		}
		fmt.Fprintf(stderr, "bench filter: %-22s inserting %d keys\n", v, len(ins))
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
		fmt.Fprintf(stderr, "bench filter: %-22s testing %d fresh keys ×%d\n", v, len(fresh), *reps)
		var times, walls []float64
		positives := 0
		for r := 0; r < *reps; r++ {
			if err := ctx.Err(); err != nil {
				return err
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
		row := filterRow{Variant: v, Impl: subj.impl, N: *n, Fed: len(ins), Capacity: subj.capacity, TargetFP: *fp,
			BitsPerURL: float64(bits) / float64(len(ins)), MeasuredFP: float64(positives) / float64(len(fresh)),
			TheoreticalFP: subj.predicted(), FalsePositives: positives, AddNs: addNs, TestNs: times[len(times)/2],
			AddWallNs: addWall, TestWallNs: walls[len(walls)/2], Clock: clockName}
		if subj.layers != nil {
			row.Layers = subj.layers()
		}
		rows = append(rows, row)
		if *asJSON {
			b, _ := json.Marshal(row)
			fmt.Fprintln(stdout, string(b))
		}
		subj = benchSubject{} // let the filter go before the next one is built
	}
	if !*asJSON {
		printFilterRows(stdout, rows)
	}
	return nil
}

// clock returns this OS thread's CPU time where the platform reports it
// (callers lock the goroutine to its thread), else the wall time since
// start-up; clockName says which.
var clock, clockName = func() (func() time.Duration, string) {
	if _, ok := urlfilter.ThreadCPUTime(); ok {
		return func() time.Duration { d, _ := urlfilter.ThreadCPUTime(); return d }, "thread-cpu"
	}
	t0 := time.Now()
	return func() time.Duration { return time.Since(t0) }, "wall"
}()

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

func heapInUse() uint64 {
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapInuse
}

func newBenchSubject(v string, n uint64, fp float64) (benchSubject, error) {
	ours := func(o urlfilter.Options, impl string) (benchSubject, error) {
		f, err := urlfilter.New(o)
		if err != nil {
			return benchSubject{}, err
		}
		s := benchSubject{variant: v, impl: impl, capacity: o.Capacity, filter: f, add: f.TestAndAdd, test: f.Test,
			bits: func() uint64 { return f.Stats().Bits }, predicted: func() float64 { return f.Stats().PredictedFP },
			layers: func() int { return f.Stats().Layers }}
		if o.Variant == urlfilter.VariantExact {
			s.bits = func() uint64 { return 0 } // measure the real heap
		}
		if g, n1, n2, k1, k2 := urlfilter.MDBFShape(f); g > 0 {
			s.impl = fmt.Sprintf("%s S=%d N=%d V2=%d k1=%d k2=%d", impl, g, n1, n2, k1, k2)
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
	case "peer-bits-and-blooms":
		b := bloom.NewWithEstimates(uint(n), fp)
		return benchSubject{variant: v, impl: "github.com/bits-and-blooms/bloom/v3", capacity: n,
			add: b.TestAndAddString, test: b.TestString,
			bits:      func() uint64 { return uint64(b.Cap()) },
			predicted: func() float64 { return urlfilter.ClassicFP(uint64(b.Cap()), int(b.K()), uint64(b.ApproximatedSize())) }}, nil
	case "peer-map":
		m := make(map[uint64]struct{})
		return benchSubject{variant: v, impl: "map[uint64]struct{} of xxhash64 (as colly)", capacity: n,
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
	return benchSubject{}, fmt.Errorf("unknown row %q", v)
}

func printFilterRows(w io.Writer, rows []filterRow) {
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

// generateURLKeys returns n distinct URL-shaped keys: realistic hosts, path
// depths and query strings, with a sequence number that makes each unique.
// The keys are substrings of one buffer, in order, as the links of a parsed
// page lie close together; allocated one by one, they would be scattered
// through a heap of GBs by the garbage collector, and every variant's test
// would pay a cache and TLB miss just to read its key (measured: +25 ns per
// key for all variants).
func generateURLKeys(n int) []string {
	rng := rand.New(rand.NewPCG(1, 2))
	words := []string{"news", "docs", "blog", "article", "product", "category", "user", "search", "tag", "archive", "2024", "index", "page", "api", "guide"}
	tlds := []string{"com", "org", "net", "cn", "de", "io"}
	ends := make([]int, n)
	var b strings.Builder
	b.Grow(n * 72)
	for i := range ends {
		host := rng.IntN(50_000)
		fmt.Fprintf(&b, "https://www.site%d.example.%s/", host, tlds[host%len(tlds)])
		for d := rng.IntN(4); d >= 0; d-- {
			b.WriteString(words[rng.IntN(len(words))])
			b.WriteByte('/')
		}
		fmt.Fprintf(&b, "%d.html", i)
		if rng.IntN(3) == 0 {
			fmt.Fprintf(&b, "?page=%d&sort=%s", rng.IntN(100), words[rng.IntN(len(words))])
		}
		ends[i] = b.Len()
	}
	all := b.String()
	keys := make([]string, n)
	start := 0
	for i, e := range ends {
		keys[i] = all[start:e]
		start = e
	}
	return keys
}

// readDistinctLines reads up to max distinct non-empty lines of path.
func readDistinctLines(path string, max int) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("bench: read URLs: %w", err)
	}
	defer f.Close()
	seen := make(map[string]struct{})
	var out []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	for sc.Scan() && len(out) < max {
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		if _, dup := seen[line]; dup {
			continue
		}
		seen[line] = struct{}{}
		out = append(out, line)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("bench: read URLs %s: %w", path, err)
	}
	return out, nil
}
