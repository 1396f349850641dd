package similar

import (
	"math/bits"
	"strings"

	"github.com/cespare/xxhash/v2"
)

// FeatureHashes appends to dst one 64-bit hash per feature of words (the
// features SimHash, the sketches and MinHash are computed over): each
// word alone when shingle <= 1, else each run of shingle consecutive words
// (one feature for the whole text if it has fewer words than that).
func FeatureHashes(dst []uint64, words []string, shingle int) []uint64 {
	if shingle < 1 {
		shingle = 1
	}
	if shingle == 1 || len(words) <= shingle {
		if shingle > 1 && len(words) > 0 {
			return append(dst, xxhash.Sum64String(strings.Join(words, "\x1f")))
		}
		for _, w := range words {
			dst = append(dst, xxhash.Sum64String(w))
		}
		return dst
	}
	hs := make([]uint64, len(words))
	for i, w := range words {
		hs[i] = xxhash.Sum64String(w)
	}
	for i := 0; i+shingle <= len(hs); i++ {
		h := uint64(0x9E3779B97F4A7C15)
		for _, x := range hs[i : i+shingle] {
			h = (h ^ x) * 0xBF58476D1CE4E5B9
			h = bits.RotateLeft64(h, 31)
		}
		dst = append(dst, Mix64(h))
	}
	return dst
}

// Mix64 is the splitMix64 finalizer.
func Mix64(z uint64) uint64 {
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9
	z = (z ^ (z >> 27)) * 0x94D049BB133111EB
	return z ^ (z >> 31)
}
