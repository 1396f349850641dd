// Package minhash holds the MinHash arithmetic that both contentdedup
// (which computes MinHash signatures and clusters them in memory) and
// storage (which keeps them on disk and ranks the pages sharing bands)
// need; those two packages must not import each other.
package minhash

// Estimate returns the fraction of equal positions of two signatures of
// one MinHash: an unbiased estimate of the Jaccard similarity of the two
// sets. It is 0 when the lengths differ or are 0.
func Estimate(a, b []uint64) float64 {
	if len(a) != len(b) || len(a) == 0 {
		return 0
	}
	n := 0
	for i := range a {
		if a[i] == b[i] {
			n++
		}
	}
	return float64(n) / float64(len(a))
}
