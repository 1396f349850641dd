package urlfilter

import (
	"fmt"
	"math"
	"sync/atomic"
	"unsafe"
)

// alignedWords returns n zeroed uint64 words whose first word starts on a
// 64-byte boundary, so that each 8-word block of the blocked filter is one
// cache line.
// Large arrays are advised to use transparent huge pages (see adviseHuge).
func alignedWords(n uint64) []uint64 {
	buf := make([]uint64, n+8)
	off := (64 - uintptr(unsafe.Pointer(&buf[0]))%64) % 64 / 8
	w := buf[off : off+uintptr(n) : off+uintptr(n)]
	adviseHuge(w)
	return w
}

func testBit(w []uint64, pos uint64) bool {
	return atomic.LoadUint64(&w[pos>>6])&(1<<(pos&63)) != 0
}

func setBit(w []uint64, pos uint64) {
	atomic.OrUint64(&w[pos>>6], 1<<(pos&63))
}

// counted is what each one-array filter (classic, blocked, mdbf) keeps
// besides its bits: how many keys it holds, what it was sized for, and the
// stripe locks that make a key's test-then-set atomic.
type counted struct {
	keys     atomic.Uint64
	capacity uint64
	target   float64
	locks    stripes
}

func (c *counted) load() (uint64, uint64) { return c.keys.Load(), c.capacity }

// stats returns the Stats of a one-array filter of the variant with bits
// bits, whose predicted FP rate at n keys is fp(n).
func (c *counted) stats(variant string, bits uint64, fp func(n uint64) float64) Stats {
	n := c.keys.Load()
	return Stats{Variant: variant, Keys: n, Bits: bits, PredictedFP: fp(n), Capacity: c.capacity, TargetFP: c.target, Layers: 1}
}

// addLocked is the second half of TestAndAdd, for a key h whose lock-free
// test said "new": under h's stripe lock it tests again (another goroutine
// may have added h meanwhile), sets h and counts it. It returns whether h
// was there after all.
func (c *counted) addLocked(h uint64, test func(uint64) bool, set func(uint64)) bool {
	mu := c.locks.lock(h)
	defer mu.Unlock()
	if test(h) {
		return true
	}
	set(h)
	c.keys.Add(1)
	return false
}

// ---------------------------------------------------------------- classic

// classic is the textbook Bloom filter: m bits, k positions per key from
// Kirsch–Mitzenmacher double hashing g_i = h1 + i·h2 over one 64-bit hash,
// each reduced onto [0, m) by multiply-shift.
type classic struct {
	words []uint64
	m     uint64
	k     int
	counted
}

// sizedBy returns a one-array filter's capacity (at least 1) and, when it
// is sized by memory (bitsPerKey > 0), its bits, capacity·bitsPerKey
// rounded up, with target 0; sized by a target rate, bits is 0 and the
// target is eps.
func sizedBy(capacity uint64, eps, bitsPerKey float64) (n, bits uint64, target float64) {
	n = max(capacity, 1)
	if bitsPerKey > 0 {
		return n, uint64(math.Ceil(float64(n) * bitsPerKey)), 0
	}
	return n, 0, eps
}

func newClassicOpts(capacity uint64, eps, bitsPerKey float64) *classic {
	capacity, m, eps := sizedBy(capacity, eps, bitsPerKey)
	if m == 0 {
		m = ClassicBits(capacity, eps)
	}
	m = max(m, 64)
	return newClassic(m, OptimalK(m, capacity), capacity, eps)
}

func newClassic(m uint64, k int, capacity uint64, eps float64) *classic {
	return &classic{words: alignedWords((m + 63) / 64), m: m, k: k, counted: counted{capacity: capacity, target: eps}}
}

func (c *classic) test(h uint64) bool { return classicTest(c.words, c.m, c.k, h) }

func (c *classic) set(h uint64) { classicSet(c.words, c.m, c.k, h) }

// classicTest reports whether the k positions of hash h among the first m
// bits of w are all set (the classic filter's and [Block]'s test).
func classicTest(w []uint64, m uint64, k int, h uint64) bool {
	h1, h2 := h, mix64(h)|1
	for i := 0; i < k; i++ {
		if !testBit(w, reduce(h1, m)) {
			return false
		}
		h1 += h2
	}
	return true
}

// classicSet sets the k positions of hash h among the first m bits of w.
func classicSet(w []uint64, m uint64, k int, h uint64) {
	h1, h2 := h, mix64(h)|1
	for i := 0; i < k; i++ {
		setBit(w, reduce(h1, m))
		h1 += h2
	}
}

func (c *classic) Test(key string) bool { return c.test(hashKey(key)) }

func (c *classic) TestAndAdd(key string) bool { return c.testAndAddHash(hashKey(key)) }

func (c *classic) testAndAddHash(h uint64) bool { return c.test(h) || c.addLocked(h, c.test, c.set) }

func (c *classic) emptyCopy() layer { return newClassic(c.m, c.k, c.capacity, c.target) }

func (c *classic) Stats() Stats {
	return c.stats(VariantClassic, c.m, func(n uint64) float64 { return ClassicFP(c.m, c.k, n) })
}

// ---------------------------------------------------------------- blocked

// blocked is a blocked Bloom filter (Putze, Sanders, Singler): the key's
// hash picks one 512-bit block (one cache line), and all k bits of the key
// lie in that block, at positions taken 9 bits at a time from a remix of the
// hash. A test costs one cache miss instead of k.
type blocked struct {
	words   []uint64
	nblocks uint64
	k       int
	counted
}

func newBlockedOpts(capacity uint64, eps, bitsPerKey float64) *blocked {
	capacity, bits, eps := sizedBy(capacity, eps, bitsPerKey)
	if bits == 0 {
		nb, k := blockedSize(capacity, eps)
		return newBlocked(nb, k, capacity, eps)
	}
	nb := (bits + blockBits - 1) / blockBits
	k, _ := blockedBestK(nb, capacity)
	return newBlocked(nb, k, capacity, eps)
}

func newBlocked(nblocks uint64, k int, capacity uint64, eps float64) *blocked {
	return &blocked{words: alignedWords(nblocks * 8), nblocks: nblocks, k: k, counted: counted{capacity: capacity, target: eps}}
}

// block returns the key's 512-bit block.
func (b *blocked) block(h uint64) *[8]uint64 {
	i := reduce(h, b.nblocks) * 8
	return (*[8]uint64)(b.words[i : i+8])
}

// masks returns, for each of the block's 8 words, the bits of the key
// (set uses it; test walks the same positions).
//
// Each 64-bit remix yields 7 positions of 9 bits; keys with k > 7 take the
// next 7 from a fresh remix of the hash (not of the exhausted remainder).
func (b *blocked) masks(h uint64) (m [8]uint64) {
	base := mix64(h)
	g := base
	for i := 0; i < b.k; i++ {
		if i > 0 && i%7 == 0 {
			g = mix64(base + uint64(i)*golden)
		}
		p := g & 511
		g >>= 9
		m[p>>6] |= 1 << (p & 63)
	}
	return m
}

// test reports whether all the key's bits are set in its block. It derives
// the same positions as masks but tests each bit in its word directly (no
// mask array to build), with no early exit: the only data-dependent branch
// is the final answer (almost always "no" for fresh keys, so well
// predicted), which lets the CPU overlap the cache misses of consecutive
// calls.
func (b *blocked) test(h uint64) bool {
	blk := b.block(h)
	base := mix64(h)
	var miss uint64
	for i := 0; i < b.k; i += 7 {
		g := base
		if i > 0 {
			g = mix64(base + uint64(i)*golden)
		}
		for range min(7, b.k-i) {
			p := g & 511
			g >>= 9
			miss |= ^atomic.LoadUint64(&blk[p>>6]) >> (p & 63)
		}
	}
	return miss&1 == 0
}

func (b *blocked) set(h uint64) {
	blk := b.block(h)
	m := b.masks(h)
	for j := range m {
		if m[j] != 0 {
			atomic.OrUint64(&blk[j], m[j])
		}
	}
}

func (b *blocked) Test(key string) bool { return b.test(hashKey(key)) }

func (b *blocked) TestAndAdd(key string) bool { return b.testAndAddHash(hashKey(key)) }

func (b *blocked) testAndAddHash(h uint64) bool { return b.test(h) || b.addLocked(h, b.test, b.set) }

func (b *blocked) emptyCopy() layer { return newBlocked(b.nblocks, b.k, b.capacity, b.target) }

func (b *blocked) Stats() Stats {
	return b.stats(VariantBlocked, b.nblocks*blockBits, func(n uint64) float64 { return BlockedFP(b.nblocks, b.k, n) })
}

// ---------------------------------------------------------------- mdbf

// mdbf is the multi-dimensional Bloom filter (MDBF). Each of S groups
// holds V1 (n1 bits, probed by k1 hashes) and V2 (n2 = N/k bits, probed by k2
// hashes); group g's hashes come from double hashing over mix64(h + g·φ).
// Faithful (routed=false): a key is set in every group and is reported
// present if any group has all its bits set. Routed: the key's hash picks one
// group, where it is set and tested.
type mdbf struct {
	words  []uint64 // group g: V1 at [g*gw, g*gw+w1), V2 after it
	groups int
	n1, n2 uint64
	k1, k2 int
	w1, gw uint64 // words in V1, words per group
	routed bool
	counted
}

const golden = 0x9e3779b97f4a7c15

func newMDBFOpts(o Options) *mdbf {
	routed := o.Variant == VariantMDBFRouted
	capacity := o.Capacity
	var n1, n2 uint64
	var k1, k2 int
	eps := o.TargetFP
	switch {
	case o.GroupBits > 0:
		k1, k2 = o.K1, o.K2
		if k1 == 0 && k2 == 0 {
			k1, k2 = OptimalK(o.GroupBits, capacity)-1, 1
			if k1 < 1 {
				k1 = 1
			}
		}
		n1 = o.GroupBits
		n2 = n1 / uint64(k1+k2)
		if o.BitsPerKey > 0 {
			eps = 0
		}
	case o.BitsPerKey > 0:
		n1, n2, k1, k2 = mdbfShape(uint64(float64(capacity)*o.BitsPerKey), o.Groups, o.K1, o.K2, capacity, routed)
		eps = 0
	default:
		n1, n2, k1, k2 = mdbfSize(capacity, eps, o.Groups, o.K1, o.K2, routed)
	}
	if n2 < 1 {
		n2 = 1
	}
	return newMDBF(o.Groups, n1, k1, n2, k2, routed, capacity, eps)
}

func newMDBF(groups int, n1 uint64, k1 int, n2 uint64, k2 int, routed bool, capacity uint64, eps float64) *mdbf {
	w1 := (n1 + 63) / 64
	gw := w1 + (n2+63)/64
	return &mdbf{words: alignedWords(gw * uint64(groups)), groups: groups, n1: n1, n2: n2, k1: k1, k2: k2,
		w1: w1, gw: gw, routed: routed, counted: counted{capacity: capacity, target: eps}}
}

// group returns where group g starts in words and the double-hashing
// start h1 and step h2 of hash h in it.
func (f *mdbf) group(g int, h uint64) (base, h1, h2 uint64) {
	h1 = mix64(h + uint64(g+1)*golden)
	return uint64(g) * f.gw, h1, mix64(h1) | 1
}

func (f *mdbf) groupTest(g int, h uint64) bool {
	base, h1, h2 := f.group(g, h)
	v1, v2 := f.words[base:base+f.w1], f.words[base+f.w1:base+f.gw]
	for i := 0; i < f.k1; i++ {
		if !testBit(v1, reduce(h1, f.n1)) {
			return false
		}
		h1 += h2
	}
	for i := 0; i < f.k2; i++ {
		if !testBit(v2, reduce(h1, f.n2)) {
			return false
		}
		h1 += h2
	}
	return true
}

func (f *mdbf) groupSet(g int, h uint64) {
	base, h1, h2 := f.group(g, h)
	v1, v2 := f.words[base:base+f.w1], f.words[base+f.w1:base+f.gw]
	for i := 0; i < f.k1; i++ {
		setBit(v1, reduce(h1, f.n1))
		h1 += h2
	}
	for i := 0; i < f.k2; i++ {
		setBit(v2, reduce(h1, f.n2))
		h1 += h2
	}
}

func (f *mdbf) route(h uint64) int { return int(reduce(mix64(h^golden), uint64(f.groups))) }

func (f *mdbf) test(h uint64) bool {
	if f.routed {
		return f.groupTest(f.route(h), h)
	}
	for g := 0; g < f.groups; g++ {
		if f.groupTest(g, h) {
			return true
		}
	}
	return false
}

func (f *mdbf) Test(key string) bool { return f.test(hashKey(key)) }

func (f *mdbf) TestAndAdd(key string) bool {
	h := hashKey(key)
	return f.test(h) || f.addLocked(h, f.test, f.set)
}

func (f *mdbf) set(h uint64) {
	if f.routed {
		f.groupSet(f.route(h), h)
		return
	}
	for g := 0; g < f.groups; g++ {
		f.groupSet(g, h)
	}
}

func (f *mdbf) variant() string {
	if f.routed {
		return VariantMDBFRouted
	}
	return VariantMDBF
}

func (f *mdbf) Stats() Stats {
	return f.stats(f.variant(), uint64(f.groups)*(f.n1+f.n2), func(n uint64) float64 {
		return MDBFFP(f.groups, f.n1, f.k1, f.n2, f.k2, n, f.routed)
	})
}

// String describes the filter's shape: its variant, groups S, V1 bits N,
// V2 bits and the hash counts k1 and k2, e.g. "mdbf S=2 N=196967 V2=24620
// k1=7 k2=1".
func (f *mdbf) String() string {
	return fmt.Sprintf("%s S=%d N=%d V2=%d k1=%d k2=%d", f.variant(), f.groups, f.n1, f.n2, f.k1, f.k2)
}
