package urlfilter

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func key(i int) string {
	return fmt.Sprintf("https://host%d.example.org/path/%d/page.html?id=%d", i%97, i/97, i)
}

func mustNew(tb testing.TB, o Options) Filter {
	tb.Helper()
	f, err := New(o)
	if err != nil {
		tb.Fatalf("New(%+v): %v", o, err)
	}
	return f
}

var fixedVariants = []string{VariantClassic, VariantBlocked, VariantMDBF, VariantMDBFRouted, VariantScalable, VariantExact}

// TestNoFalseNegativesAndFP inserts n keys, checks every one is seen, then
// measures the false-positive rate on n fresh keys against the formula.
func TestNoFalseNegativesAndFP(t *testing.T) {
	const n = 50_000
	const eps = 0.01
	for _, v := range fixedVariants {
		t.Run(v, func(t *testing.T) {
			f := mustNew(t, Options{Variant: v, Capacity: n, TargetFP: eps})
			for i := 0; i < n; i++ {
				if f.TestAndAdd(key(i)) && v == VariantExact {
					t.Fatalf("exact: fresh key %d reported seen", i)
				}
			}
			for i := 0; i < n; i++ {
				if !f.Test(key(i)) || !f.TestAndAdd(key(i)) {
					t.Fatalf("false negative for key %d", i)
				}
			}
			fp := 0
			for i := n; i < 2*n; i++ {
				if f.Test(key(i)) {
					fp++
				}
			}
			st := f.Stats()
			measured := float64(fp) / n
			t.Logf("%s: keys=%d bits/key=%.2f measured=%.5f predicted=%.5f", v, st.Keys, st.BitsPerKey(), measured, st.PredictedFP)
			if v == VariantExact {
				if fp != 0 || st.PredictedFP != 0 {
					t.Fatalf("exact: %d false positives", fp)
				}
				return
			}
			if st.Keys < n*(1-2*eps) || st.Keys > n {
				t.Errorf("Keys = %d, want about %d", st.Keys, n)
			}
			if st.PredictedFP > eps*1.0001 {
				t.Errorf("predicted FP %.5f above target %.3f at capacity", st.PredictedFP, eps)
			}
			// ~250-500 expected false positives: allow 5 standard deviations.
			exp := st.PredictedFP * n
			if math.Abs(float64(fp)-exp) > 5*math.Sqrt(exp)+5 {
				t.Errorf("measured %d false positives, formula predicts %.0f", fp, exp)
			}
		})
	}
}

func TestSizing(t *testing.T) {
	// The Bloom sizing design's worked example: ε = 0.02, n = 500 → m = 4070 bits, k = 6, f ≈ 0.0156… (the design rounds to 4064).
	m := ClassicBits(500, 0.02)
	if m < 4064 || m > 4075 || OptimalK(m, 500) != 6 {
		t.Errorf("ClassicBits(500, 0.02) = %d, k = %d; want ≈4064, 6", m, OptimalK(m, 500))
	}
	if f := ClassicFP(m, 6, 500); f > 0.021 || f < 0.015 {
		t.Errorf("ClassicFP = %g", f)
	}
	// Sizing by bits per key gives that memory.
	for _, v := range []string{VariantClassic, VariantBlocked, VariantMDBF, VariantMDBFRouted} {
		st := mustNew(t, Options{Variant: v, Capacity: 100_000, BitsPerKey: 10}).Stats()
		if bpk := float64(st.Bits) / 100_000; bpk < 9.9 || bpk > 10.2 {
			t.Errorf("%s at 10 bits/key: %.2f bits/key", v, bpk)
		}
	}
}

func TestMDBFParameters(t *testing.T) {
	f := mustNew(t, Options{Variant: VariantMDBF, Capacity: 10_000, Groups: 3, K1: 4, K2: 2, GroupBits: 60_000})
	if got, want := fmt.Sprint(f), "mdbf S=3 N=60000 V2=10000 k1=4 k2=2"; got != want {
		t.Fatalf("shape = %q, want %q", got, want)
	}
	if st := f.Stats(); st.Bits != 3*70_000 {
		t.Errorf("Bits = %d", st.Bits)
	}
}

// TestTestAndAddAtomic: many goroutines race on the same keys; exactly one
// caller per key may see "not seen".
func TestTestAndAddAtomic(t *testing.T) {
	const keys, workers = 4000, 8
	for _, v := range append(fixedVariants, VariantChain) {
		t.Run(v, func(t *testing.T) {
			f := mustNew(t, Options{Variant: v, Capacity: keys, TargetFP: 0.001, Window: 100_000})
			var wins [keys]atomic.Int32
			var wg sync.WaitGroup
			start := make(chan struct{})
			for w := 0; w < workers; w++ {
				wg.Add(1)
				go func(w int) {
					defer wg.Done()
					<-start
					for i := 0; i < keys; i++ {
						j := (i + w*keys/workers) % keys
						if !f.TestAndAdd(key(j)) {
							wins[j].Add(1)
						}
					}
				}(w)
			}
			close(start)
			wg.Wait()
			fps := 0
			for i := range wins {
				switch wins[i].Load() {
				case 1:
				case 0:
					fps++ // a false positive on first insert: nobody admitted it
				default:
					t.Fatalf("key %d admitted %d times", i, wins[i].Load())
				}
			}
			if v == VariantExact && fps != 0 {
				t.Fatalf("exact admitted only %d of %d keys", keys-fps, keys)
			}
			if fps > keys/50 {
				t.Errorf("%d of %d keys never admitted", fps, keys)
			}
		})
	}
}

// TestScalableNeverSaturates feeds 8× the capacity and checks the measured
// and predicted rates stay under the target.
func TestScalableNeverSaturates(t *testing.T) {
	const capa, eps = 5000, 0.01
	for _, layer := range []string{VariantBlocked, VariantClassic} {
		f := mustNew(t, Options{Variant: VariantScalable, Capacity: capa, TargetFP: eps, Layer: layer})
		n := 8 * capa
		for i := 0; i < n; i++ {
			f.TestAndAdd(key(i))
		}
		fp := 0
		const fresh = 200_000
		for i := n; i < n+fresh; i++ {
			if f.Test(key(i)) {
				fp++
			}
		}
		st := f.Stats()
		t.Logf("%s layers: %d layers, %d keys, %.2f bits/key, measured %.5f, predicted %.5f", layer, st.Layers, st.Keys, st.BitsPerKey(), float64(fp)/fresh, st.PredictedFP)
		if st.Layers < 3 {
			t.Errorf("%d layers after 8× capacity", st.Layers)
		}
		if st.PredictedFP > eps {
			t.Errorf("predicted %.5f > target", st.PredictedFP)
		}
		if float64(fp)/fresh > eps {
			t.Errorf("measured %.5f > target %.3f", float64(fp)/fresh, eps)
		}
		// A fixed classic filter of the same capacity saturates.
		c := mustNew(t, Options{Variant: VariantClassic, Capacity: capa, TargetFP: eps})
		for i := 0; i < n; i++ {
			c.TestAndAdd(key(i))
		}
		if p := c.Stats().PredictedFP; p < 10*eps {
			t.Errorf("fixed filter at 8× capacity predicts only %.4f", p)
		}
	}
}

func TestChainCountWindow(t *testing.T) {
	const window, gens = 1000, 5
	f := mustNew(t, Options{Variant: VariantChain, Window: window, Generations: gens, TargetFP: 0.001})
	const n = 20 * window
	forgotten := 0
	var recorded []int // keys whose TestAndAdd returned false
	for i := 0; i < n; i++ {
		if !f.TestAndAdd(key(i)) {
			recorded = append(recorded, i)
		}
		// Every one of the last `window` recorded keys must be remembered.
		// (A key that was a false positive on insert was never recorded.)
		if i%500 == 499 {
			for _, j := range recorded[max(0, len(recorded)-window):] {
				if !f.Test(key(j)) {
					t.Fatalf("after %d keys, key %d (within the last %d) forgotten", i+1, j, window)
				}
			}
		}
	}
	// Keys older than G·c = 5·250 are forgotten (up to false positives).
	for j := 0; j < n-2*window; j++ {
		if !f.Test(key(j)) {
			forgotten++
		}
	}
	if forgotten < (n-2*window)*99/100 {
		t.Errorf("only %d of %d old keys forgotten", forgotten, n-2*window)
	}
	if st := f.Stats(); st.Capacity != window || st.PredictedFP > 0.001 {
		t.Errorf("stats %+v", st)
	}
}

func TestChainTimeWindow(t *testing.T) {
	now := time.Unix(1_700_000_000, 0)
	clock := func() time.Time { return now }
	f := mustNew(t, Options{Variant: VariantChain, Period: time.Hour, Generations: 4, Capacity: 1000, TargetFP: 0.001, Now: clock})
	f.TestAndAdd("a")
	now = now.Add(150 * time.Minute) // 2.5 periods: "a" is in the oldest of the 3 kept generations
	f.TestAndAdd("b")
	if !f.Test("a") {
		t.Fatal(`"a" forgotten within (G−1)·Period`)
	}
	now = now.Add(2 * time.Hour) // "a" is now > 4 periods old
	f.TestAndAdd("c")
	if f.Test("a") {
		t.Fatal(`"a" remembered after G·Period`)
	}
	if !f.Test("b") || !f.Test("c") {
		t.Fatal("recent keys forgotten")
	}
	// A burst far past Capacity inside one period does not saturate.
	for i := 0; i < 20_000; i++ {
		f.TestAndAdd(key(i))
	}
	if p := f.Stats().PredictedFP; p > 0.001 {
		t.Errorf("predicted FP %.5f after a burst of 20× capacity", p)
	}
}

func TestOptionsErrors(t *testing.T) {
	for _, tt := range []struct {
		o    Options
		want string
	}{
		{Options{Variant: "bogus"}, `unknown variant "bogus"`},
		{Options{TargetFP: 0.7}, "TargetFP 0.7"},
		{Options{Variant: VariantChain}, "chain needs Window or Period"},
		{Options{Groups: 100}, "Groups 100"},
		{Options{Tightening: 1.5}, "Tightening 1.5"},
		{Options{Variant: VariantExact, BitsPerKey: 8}, "exact cannot be sized"},
	} {
		_, err := New(tt.o)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("New(%+v) = %v, want error containing %q", tt.o, err, tt.want)
		}
	}
}

func snapshotVariants(tb testing.TB) map[string]Filter {
	tb.Helper()
	fs := map[string]Filter{}
	for _, v := range fixedVariants {
		fs[v] = mustNew(tb, Options{Variant: v, Capacity: 300, TargetFP: 0.01})
	}
	fs["chain-window"] = mustNew(tb, Options{Variant: VariantChain, Window: 200, Generations: 3, TargetFP: 0.01})
	fs["chain-period"] = mustNew(tb, Options{Variant: VariantChain, Period: time.Minute, Capacity: 100, TargetFP: 0.01})
	for _, f := range fs {
		for i := 0; i < 1000; i++ {
			f.TestAndAdd(key(i))
		}
	}
	return fs
}

func TestSnapshotRoundTrip(t *testing.T) {
	for name, f := range snapshotVariants(t) {
		var buf bytes.Buffer
		n, err := f.WriteTo(&buf)
		if err != nil || n != int64(buf.Len()) {
			t.Fatalf("%s: WriteTo = %d, %v (buffer %d)", name, n, err, buf.Len())
		}
		g, err := ReadFilter(bytes.NewReader(buf.Bytes()))
		if err != nil {
			t.Fatalf("%s: ReadFilter: %v", name, err)
		}
		if fs, gs := f.Stats(), g.Stats(); fs != gs {
			t.Errorf("%s: stats %+v after round trip, want %+v", name, gs, fs)
		}
		for i := 0; i < 3000; i++ {
			if f.Test(key(i)) != g.Test(key(i)) {
				t.Fatalf("%s: key %d answers differ after round trip", name, i)
			}
		}
		var again bytes.Buffer
		g.WriteTo(&again)
		if name != VariantExact && !bytes.Equal(buf.Bytes(), again.Bytes()) {
			t.Errorf("%s: second snapshot differs", name)
		}
	}
}

func TestSnapshotRefusesBadData(t *testing.T) {
	f := snapshotVariants(t)[VariantScalable]
	var buf bytes.Buffer
	f.WriteTo(&buf)
	good := buf.Bytes()
	// Every truncation is refused.
	for cut := 0; cut < len(good); cut += 1 + cut/50 {
		if _, err := ReadFilter(bytes.NewReader(good[:cut])); !errors.Is(err, ErrSnapshot) {
			t.Fatalf("truncated at %d of %d: err = %v", cut, len(good), err)
		}
	}
	// Every single-bit flip is refused.
	for i := 0; i < len(good); i += 1 + i/40 {
		bad := bytes.Clone(good)
		bad[i] ^= 0x10
		if _, err := ReadFilter(bytes.NewReader(bad)); !errors.Is(err, ErrSnapshot) {
			t.Fatalf("bit flip at byte %d: err = %v", i, err)
		}
	}
	bad := bytes.Clone(good)
	bad[4] = 2
	if _, err := ReadFilter(bytes.NewReader(bad)); err == nil || !strings.Contains(err.Error(), "format version 2") {
		t.Errorf("other version: %v", err)
	}
	if _, err := ReadFilter(strings.NewReader("PK\x03\x04 not a snapshot at all")); err == nil || !strings.Contains(err.Error(), "not a urlfilter snapshot") {
		t.Errorf("wrong magic: %v", err)
	}
	// A well-framed snapshot of an unknown variant is refused by name.
	var w bytes.Buffer
	writeSnapshot(&w, func(e *enc) { e.str("cuckoo") })
	if _, err := ReadFilter(&w); err == nil || !strings.Contains(err.Error(), `unknown variant "cuckoo"`) {
		t.Errorf("unknown variant: %v", err)
	}
}

func FuzzSnapshot(f *testing.F) {
	for _, flt := range snapshotVariants(f) {
		var buf bytes.Buffer
		flt.WriteTo(&buf)
		if buf.Len() < 20_000 {
			f.Add(buf.Bytes())
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		g, err := ReadFilter(bytes.NewReader(data))
		if err != nil {
			if !errors.Is(err, ErrSnapshot) {
				t.Fatalf("error not wrapping ErrSnapshot: %v", err)
			}
			return
		}
		// Whatever loads must round-trip and keep working.
		var buf bytes.Buffer
		if _, err := g.WriteTo(&buf); err != nil {
			t.Fatal(err)
		}
		h, err := ReadFilter(&buf)
		if err != nil {
			t.Fatalf("re-read of a loaded snapshot: %v", err)
		}
		if g.Stats() != h.Stats() {
			t.Fatalf("stats differ after round trip")
		}
		g.TestAndAdd("x")
		g.Test("y")
	})
}

// TestBlockedManyHashes checks the formula for k > 7, where the in-block
// positions need a second remix of the hash.
func TestBlockedManyHashes(t *testing.T) {
	const n, fresh = 20_000, 1_000_000
	f := mustNew(t, Options{Variant: VariantBlocked, Capacity: n, BitsPerKey: 16})
	if k := f.(*blocked).k; k <= 7 {
		t.Fatalf("k = %d at 16 bits per key; the test needs k > 7", k)
	}
	for i := 0; i < n; i++ {
		f.TestAndAdd(key(i))
	}
	fp := 0
	for i := n; i < n+fresh; i++ {
		if f.Test(key(i)) {
			fp++
		}
	}
	exp := f.Stats().PredictedFP * fresh
	t.Logf("k=%d: %d false positives, formula %.0f", f.(*blocked).k, fp, exp)
	if math.Abs(float64(fp)-exp) > 5*math.Sqrt(exp)+5 {
		t.Errorf("%d false positives in %d tests, formula predicts %.0f", fp, fresh, exp)
	}
}
