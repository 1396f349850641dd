package similar

import (
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

func TestMulmod61(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 1))
	m := new(big.Int).SetUint64(mersenne61)
	for i := 0; i < 10000; i++ {
		x, y := r.Uint64N(mersenne61), r.Uint64N(mersenne61)
		if i == 0 {
			x, y = mersenne61-1, mersenne61-1
		}
		want := new(big.Int).Mul(new(big.Int).SetUint64(x), new(big.Int).SetUint64(y))
		want.Mod(want, m)
		if got := mulmod61(x, y); got != want.Uint64() {
			t.Fatalf("mulmod61(%d, %d) = %d, want %s", x, y, got, want)
		}
	}
}

// TestMinHashEstimate: the mean estimate over many set pairs is close to
// their exact Jaccard similarity (the estimator is unbiased).
func TestMinHashEstimate(t *testing.T) {
	m, err := New(Options{Shingle: 1})
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(2, 2))
	for _, shared := range []int{0, 50, 100, 180} {
		sum, trials := 0.0, 200
		for trial := 0; trial < trials; trial++ {
			var a, b []string
			for i := 0; i < 200; i++ {
				w := fmt.Sprintf("w%d-%d", trial, i)
				a = append(a, w)
				if i < shared {
					b = append(b, w)
				} else {
					b = append(b, fmt.Sprintf("v%d-%d-%d", trial, i, r.IntN(1e9)))
				}
			}
			sum += Estimate(m.Signature(a), m.Signature(b))
		}
		exact := float64(shared) / float64(400-shared)
		if got := sum / float64(trials); math.Abs(got-exact) > 0.03 {
			t.Errorf("%d shared of 200: mean estimate %.3f, exact %.3f", shared, got, exact)
		}
	}
}

// TestDistinct: distinct keeps each value once (0 included), in hs's
// storage, and a Signature over it equals the minimums over the sorted set.
func TestDistinct(t *testing.T) {
	hs := []uint64{5, 0, 7, 5, 1 << 63, 0, 7, 9, 1 << 63}
	got := distinct(slices.Clone(hs))
	slices.Sort(got)
	if want := []uint64{0, 5, 7, 9, 1 << 63}; !slices.Equal(got, want) {
		t.Fatalf("distinct(%v) = %v, want %v", hs, got, want)
	}
	words := strings.Fields(strings.Repeat("the quick brown fox jumps over the lazy dog and the cat ", 20) + "one two three four five six seven")
	m := NewPages()
	set := FeatureHashes(nil, words, 1)
	slices.Sort(set)
	set = slices.Compact(set)
	for i, sig := range m.Signature(words) {
		lo := uint64(mersenne61)
		for _, h := range set {
			v := m.a[i] + mulmod61(m.b[i], h%mersenne61)
			if v >= mersenne61 {
				v -= mersenne61
			}
			lo = min(lo, v)
		}
		if sig != lo {
			t.Fatalf("minimum %d: %d, want %d over the sorted set", i, sig, lo)
		}
	}
}
