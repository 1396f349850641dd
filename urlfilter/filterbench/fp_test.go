package filterbench

import (
	"context"
	"io"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/bloomcrawl/bloomcrawl/urlfilter"
)

func mustFilter(tb testing.TB, o urlfilter.Options) urlfilter.Filter {
	tb.Helper()
	f, err := urlfilter.New(o)
	if err != nil {
		tb.Fatalf("urlfilter.New(%+v): %v", o, err)
	}
	return f
}

// prefixFilter is a test filter whose false positives are known by
// construction: it calls every key starting with "lost-" seen.
type prefixFilter struct {
	mu   sync.Mutex
	seen map[string]bool
}

func (p *prefixFilter) TestAndAdd(k string) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if strings.HasPrefix(k, "lost-") || p.seen[k] {
		return true
	}
	p.seen[k] = true
	return false
}
func (p *prefixFilter) Test(k string) bool { return strings.HasPrefix(k, "lost-") || p.seen[k] }
func (p *prefixFilter) Stats() urlfilter.Stats {
	return urlfilter.Stats{Variant: "prefix", Bits: 800}
}
func (p *prefixFilter) WriteTo(w io.Writer) (int64, error) { return 0, nil }

// stream: 10 distinct keys, 3 of them "lost-", each repeated; total 25.
var stream = []string{"a", "b", "lost-1", "a", "c", "lost-2", "b", "d", "lost-1", "e", "f", "a", "g", "lost-3",
	"g", "g", "b", "c", "d", "e", "f", "lost-2", "lost-3", "a", "b"}

func TestReplayCounts(t *testing.T) {
	tiny := mustFilter(t, urlfilter.Options{Variant: urlfilter.VariantClassic, Capacity: 1, BitsPerKey: 64}) // 64 bits: saturates
	res, err := replay(context.Background(), stream, []replayFilter{
		{"prefix", &prefixFilter{seen: map[string]bool{}}},
		{"exact", urlfilter.NewExact()},
		{"chain", mustFilter(t, urlfilter.Options{Variant: urlfilter.VariantChain, Window: 2, Generations: 2, TargetFP: 0.01})},
		{"tiny", tiny},
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	p, x, c := res[0], res[1], res[2]
	if p.Tested != 25 || p.Distinct != 10 || p.FalsePositives != 3 || p.Forgotten != 0 || p.MeasuredFP != 0.3 || p.BitsPerKey != 80 {
		t.Errorf("prefix filter: %+v", p)
	}
	if x.FalsePositives != 0 || x.Forgotten != 0 || x.Distinct != 10 || x.Variant != urlfilter.VariantExact {
		t.Errorf("exact: %+v", x)
	}
	// A chain remembering only 2-4 keys forgets most repeats.
	if c.Forgotten == 0 || c.Forgotten > 15 {
		t.Errorf("chain: %+v", c)
	}
	// The saturated 64-bit filter: its FP count equals an independent
	// recount on a twin filter.
	twin := mustFilter(t, urlfilter.Options{Variant: urlfilter.VariantClassic, Capacity: 1, BitsPerKey: 64})
	if want := shadowFalsePositives(twin, stream); res[3].FalsePositives != want {
		t.Errorf("tiny filter: %d false positives, recount says %d", res[3].FalsePositives, want)
	}
}

// shadowFalsePositives replays stream through f next to an exact set and
// counts the distinct keys f called seen.
func shadowFalsePositives(f urlfilter.Filter, stream []string) uint64 {
	seen := map[string]bool{}
	var n uint64
	for _, k := range stream {
		if f.TestAndAdd(k) && !seen[k] {
			n++
		}
		seen[k] = true
	}
	return n
}

// TestFP: on generated streams with a known exact set, every row's counts
// equal an exact-set shadow count on a twin filter built the same way.
func TestFP(t *testing.T) {
	tests := []struct {
		name     string
		stream   []string
		budgets  []float64
		targets  []float64
		distinct uint64
	}{
		{"handmade", stream, []float64{0.5, 8}, nil, 10},
		{"synthetic", SyntheticStream(6000), []float64{4}, []float64{0.01}, 2001},
		{"all distinct", URLKeys(3000), []float64{6}, nil, 3000},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rows, err := FP(context.Background(), FPOptions{Source: tc.name, Stream: tc.stream, Budgets: tc.budgets, Targets: tc.targets})
			if err != nil {
				t.Fatal(err)
			}
			if want := len(FPVariants) * (len(tc.budgets) + len(tc.targets)); len(rows) != want {
				t.Fatalf("%d rows, want %d", len(rows), want)
			}
			lossy := 0
			for _, r := range rows {
				if r.Tested != uint64(len(tc.stream)) || r.Distinct != tc.distinct || r.Source != tc.name {
					t.Errorf("%s: tested %d distinct %d source %q, want %d %d %q", r.Variant, r.Tested, r.Distinct, r.Source, len(tc.stream), tc.distinct, tc.name)
				}
				twins, err := fpFilters([]string{r.Variant}, tc.distinct, urlfilter.Options{BitsPerKey: r.BudgetBits, TargetFP: r.TargetFP})
				if err != nil {
					t.Fatal(err)
				}
				if want := shadowFalsePositives(twins[0].Filter, tc.stream); r.FalsePositives != want {
					t.Errorf("%s at %g bits / fp %g: %d false positives, shadow count %d", r.Variant, r.BudgetBits, r.TargetFP, r.FalsePositives, want)
				}
				if r.MeasuredFP != float64(r.FalsePositives)/float64(tc.distinct) || r.Forgotten != 0 {
					t.Errorf("%s: measured %g forgotten %d for %d false positives", r.Variant, r.MeasuredFP, r.Forgotten, r.FalsePositives)
				}
				if r.FalsePositives > 0 {
					lossy++
				}
			}
			if tc.name == "synthetic" && lossy < len(FPVariants) {
				t.Errorf("only %d of %d rows at 4 bits per URL lost a URL: the shadow comparison was hardly exercised", lossy, len(rows))
			}
		})
	}
	if _, err := FP(context.Background(), FPOptions{Source: "empty", Budgets: []float64{8}}); err == nil {
		t.Error("an empty stream was accepted")
	}
}

func TestURLKeys(t *testing.T) {
	keys := URLKeys(5000)
	seen := map[string]bool{}
	for _, k := range keys {
		if !strings.HasPrefix(k, "https://www.site") || seen[k] {
			t.Fatalf("key %q: malformed or repeated", k)
		}
		seen[k] = true
	}
	if again := URLKeys(5000); again[4999] != keys[4999] || again[0] != keys[0] {
		t.Error("keys differ between two calls: runs would not compare")
	}
}

func TestThreadCPUTime(t *testing.T) {
	// The clock is per OS thread: pin the goroutine, or it may move to a
	// thread that has used less CPU and the clock appears to run backwards.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	a, ok := threadCPUTime()
	if !ok {
		t.Skip("no per-thread CPU clock on this platform")
	}
	x := 0
	for i := 0; i < 3_000_000; i++ {
		x += i ^ (x >> 3)
	}
	b, _ := threadCPUTime()
	if b <= a {
		t.Fatalf("thread CPU time did not advance over a busy loop (%v → %v, %d)", a, b, x)
	}
}
