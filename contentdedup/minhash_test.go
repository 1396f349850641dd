package contentdedup

import (
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
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
	m, err := NewMinHash(MinHashOptions{Shingle: 1})
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
			sum += EstimateJaccard(m.Signature(a), m.Signature(b))
		}
		exact := float64(shared) / float64(400-shared)
		if got := sum / float64(trials); math.Abs(got-exact) > 0.03 {
			t.Errorf("%d shared of 200: mean estimate %.3f, exact %.3f", shared, got, exact)
		}
	}
}

func TestMinHashIndexFindsNearDuplicates(t *testing.T) {
	tok := NewTokenizer()
	m, _ := NewMinHash(MinHashOptions{})
	x := NewMinHashIndex(m)
	pairs := readPairs(t)
	for i, p := range pairs {
		x.Add(uint64(i+1), m.Signature(tok.Tokens(nil, p.A.Text)))
	}
	for i, p := range pairs {
		if p.Want != "duplicate" || len(tok.Tokens(nil, p.A.Text)) < 100 {
			continue
		}
		ns := x.Similar(m.Signature(tok.Tokens(nil, p.B.Text)), 3)
		if len(ns) == 0 || ns[0].DocID != uint64(i+1) || ns[0].Jaccard < 0.5 {
			t.Errorf("%s: neighbours %+v, want doc %d first", p.Name, ns, i+1)
		}
	}
	if x.Len() != len(pairs) {
		t.Fatalf("Len %d", x.Len())
	}
}
