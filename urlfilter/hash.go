package urlfilter

import (
	"math/bits"
	"sync"

	"github.com/cespare/xxhash/v2"
)

// hashKey is the one hash computed per key: 64-bit xxHash of the key bytes.
// Every bit position of every variant is derived from it (Kirsch–Mitzenmacher
// double hashing or a cheap remix), so a key is hashed exactly once per call.
func hashKey(key string) uint64 { return xxhash.Sum64String(key) }

// mix64 is the splitmix64 finalizer: a bijective remix of a 64-bit value,
// used to derive the second hash of double hashing and per-group seeds.
func mix64(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return x
}

// reduce maps x uniformly onto [0, n) without a division (Lemire's
// multiply-shift "fastrange").
func reduce(x, n uint64) uint64 {
	hi, _ := bits.Mul64(x, n)
	return hi
}

// stripes serialises the add path of TestAndAdd per key: two callers with the
// same key hash to the same stripe, so exactly one of them sees "not seen".
// Test never takes a lock.
type stripes [256]sync.Mutex

func (s *stripes) lock(h uint64) *sync.Mutex {
	m := &s[h&255]
	m.Lock()
	return m
}
