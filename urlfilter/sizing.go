package urlfilter

import "math"

// Bloom sizing math. All functions are pure.

// ClassicBits returns m = ceil(n·ln(1/ε)/ln²2), the number of bits a classic
// Bloom filter needs to hold n keys at false-positive rate ε.
func ClassicBits(n uint64, eps float64) uint64 {
	if n == 0 {
		n = 1
	}
	return uint64(math.Ceil(float64(n) * math.Log(1/eps) / (math.Ln2 * math.Ln2)))
}

// OptimalK returns k = round((m/n)·ln 2), at least 1.
func OptimalK(m, n uint64) int {
	if n == 0 {
		n = 1
	}
	k := int(math.Round(float64(m) / float64(n) * math.Ln2))
	if k < 1 {
		k = 1
	}
	return k
}

// ClassicFP returns the classic formula f = (1 − e^(−kn/m))^k.
func ClassicFP(m uint64, k int, n uint64) float64 {
	if m == 0 {
		return 1
	}
	return math.Pow(-math.Expm1(-float64(k)*float64(n)/float64(m)), float64(k))
}

// blockBits is the size of one block of the blocked Bloom filter: one 64-byte
// cache line.
const blockBits = 512

// BlockedFP returns the false-positive rate of a blocked Bloom filter with
// 512-bit blocks, nblocks blocks, k bits per key and n keys: the number of
// keys in a block is Poisson(λ = n/nblocks) and a block holding i keys answers
// a fresh key wrongly with probability (1 − (1 − 1/512)^(k·i))^k (Putze,
// Sanders, Singler 2007).
func BlockedFP(nblocks uint64, k int, n uint64) float64 {
	if nblocks == 0 {
		return 1
	}
	if n == 0 {
		return 0
	}
	lambda := float64(n) / float64(nblocks)
	// Sum the Poisson terms around the mean; outside ±12σ they are negligible.
	sd := math.Sqrt(lambda)
	lo := int(math.Max(0, math.Floor(lambda-12*sd-10)))
	hi := int(math.Ceil(lambda + 12*sd + 10))
	q := math.Log1p(-1.0 / blockBits)
	var sum float64
	for i := lo; i <= hi; i++ {
		lp := -lambda + float64(i)*math.Log(lambda) - lgamma(float64(i)+1)
		p := math.Exp(lp)
		fill := -math.Expm1(float64(k*i) * q)
		sum += p * math.Pow(fill, float64(k))
	}
	return sum
}

func lgamma(x float64) float64 { v, _ := math.Lgamma(x); return v }

// blockedBestK returns the k that minimises BlockedFP at the given size.
func blockedBestK(nblocks, n uint64) (int, float64) {
	bestK, best := 1, math.Inf(1)
	for k := 1; k <= 24; k++ {
		if f := BlockedFP(nblocks, k, n); f < best {
			bestK, best = k, f
		}
	}
	return bestK, best
}

// blockedSize returns the smallest number of 512-bit blocks (within 0.5%) and
// its best k so that n keys give a predicted false-positive rate ≤ ε.
func blockedSize(n uint64, eps float64) (nblocks uint64, k int) {
	if n == 0 {
		n = 1
	}
	c := float64(ClassicBits(n, eps)) / float64(n) // start at the classic size
	for {
		nb := uint64(math.Ceil(c * float64(n) / blockBits))
		if k, f := blockedBestK(nb, n); f <= eps {
			return nb, k
		}
		c *= 1.005
	}
}

// MDBFFP returns the false-positive rate of the multi-dimensional Bloom
// filter as this package reads the MDBF paper (see the package doc): S groups,
// each with V1 of n1 bits probed by k1 hashes and V2 of n2 bits probed by k2
// hashes. In the faithful reading (routed=false) every key goes into every
// group and a query is positive if any group has all its bits set, so
//
//	f_g = (1 − e^(−k1·n/n1))^k1 · (1 − e^(−k2·n/n2))^k2,  f = 1 − (1 − f_g)^S.
//
// In the routed reading a key goes to one group chosen by its hash, each
// group holds about n/S keys and f = f_g(n/S).
func MDBFFP(groups int, n1 uint64, k1 int, n2 uint64, k2 int, n uint64, routed bool) float64 {
	nn := float64(n)
	if routed {
		nn /= float64(groups)
	}
	fg := 1.0
	if k1 > 0 {
		fg *= math.Pow(-math.Expm1(-float64(k1)*nn/float64(n1)), float64(k1))
	}
	if k2 > 0 {
		fg *= math.Pow(-math.Expm1(-float64(k2)*nn/float64(n2)), float64(k2))
	}
	if routed {
		return fg
	}
	return -math.Expm1(float64(groups) * math.Log1p(-fg))
}

// mdbfShape picks V1's size N (and V2 = N/k) for a budget of totalBits bits
// over S groups when k1/k2 are given, or picks k (k1 = k−1, k2 = 1) too when
// they are zero, minimising the predicted FP at n keys.
func mdbfShape(totalBits uint64, groups, k1, k2 int, n uint64, routed bool) (n1, n2 uint64, K1, K2 int) {
	per := float64(totalBits) / float64(groups)
	try := func(a, b int) (uint64, uint64, float64) {
		k := a + b
		N := uint64(per / (1 + 1/float64(k)))
		if N < 64 {
			N = 64
		}
		N2 := N / uint64(k)
		if N2 < 1 {
			N2 = 1
		}
		return N, N2, MDBFFP(groups, N, a, N2, b, n, routed)
	}
	if k1 > 0 || k2 > 0 {
		a, b, _ := try(k1, k2)
		return a, b, k1, k2
	}
	best := math.Inf(1)
	for k := 2; k <= 24; k++ {
		a, b, f := try(k-1, 1)
		if f < best {
			best, n1, n2, K1, K2 = f, a, b, k-1, 1
		}
	}
	return
}

// mdbfSize finds the smallest total bit budget (within 0.5%) whose best
// shape predicts FP ≤ ε at n keys.
func mdbfSize(n uint64, eps float64, groups, k1, k2 int, routed bool) (n1, n2 uint64, K1, K2 int) {
	if n == 0 {
		n = 1
	}
	total := float64(ClassicBits(n, eps))
	if !routed {
		total *= 0.5
	}
	for {
		a, b, c, d := mdbfShape(uint64(total), groups, k1, k2, n, routed)
		if MDBFFP(groups, a, c, b, d, n, routed) <= eps {
			return a, b, c, d
		}
		total *= 1.005
	}
}
