package contentdedup

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

func TestSortHashes(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, n := range []int{1, 2, 300, 4096, 4097, 20000} {
		for _, mask := range []uint64{^uint64(0), 0xff, 0xff00ff0000000000, 0} {
			hs := make([]uint64, n)
			for i := range hs {
				hs[i] = rng.Uint64() & mask
			}
			want := slices.Sorted(slices.Values(hs))
			r := slices.Clone(hs)
			sortHashes(hs)
			radixSort(r)
			if !slices.Equal(hs, want) || !slices.Equal(r, want) {
				t.Fatalf("n=%d mask=%x: not sorted", n, mask)
			}
		}
	}
}

// BenchmarkSortHashes compares sortHashes with slices.Sort on page-sized
// sets of feature hashes.
func BenchmarkSortHashes(b *testing.B) {
	rng := rand.New(rand.NewPCG(7, 8))
	for _, n := range []int{300, 2000, 4000, 10000} {
		src := make([]uint64, n)
		for i := range src {
			src[i] = rng.Uint64()
		}
		hs := make([]uint64, n)
		for _, c := range []struct {
			name string
			sort func([]uint64)
		}{{"radix", radixSort}, {"pdqsort", slices.Sort[[]uint64]}} {
			b.Run(fmt.Sprintf("n=%d/%s", n, c.name), func(b *testing.B) {
				for b.Loop() {
					copy(hs, src)
					c.sort(hs)
				}
			})
		}
	}
}
