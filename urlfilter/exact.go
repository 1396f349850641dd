package urlfilter

import (
	"sync"
	"sync/atomic"
)

// exact is a set of the keys themselves: no false positives, the ground
// truth the probabilistic variants are measured against. It is sharded by
// hash, 64 shards each behind a mutex.
type exact struct {
	shards [64]struct {
		mu sync.Mutex
		m  map[string]struct{}
		_  [40]byte // keep shards on separate cache lines
	}
	keys  atomic.Uint64
	bytes atomic.Uint64 // sum of key lengths
}

func newExact() *exact {
	e := &exact{}
	for i := range e.shards {
		e.shards[i].m = make(map[string]struct{})
	}
	return e
}

// NewExact returns the exact set as a *Exact-free Filter; equivalent to
// New(Options{Variant: "exact"}).
func NewExact() Filter { return newExact() }

func (e *exact) shard(key string) int { return int(hashKey(key) >> 58) }

func (e *exact) Test(key string) bool {
	s := &e.shards[e.shard(key)]
	s.mu.Lock()
	_, ok := s.m[key]
	s.mu.Unlock()
	return ok
}

func (e *exact) TestAndAdd(key string) bool {
	s := &e.shards[e.shard(key)]
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.m[key]; ok {
		return true
	}
	s.m[key] = struct{}{}
	e.keys.Add(1)
	e.bytes.Add(uint64(len(key)))
	return false
}

// exactEntryOverhead is the estimated heap per key beyond its bytes: a
// 16-byte string header in the map slot, about 1.5× slot slack and the
// control byte of Go's swiss-table map.
const exactEntryOverhead = 28

func (e *exact) Stats() Stats {
	n := e.keys.Load()
	return Stats{Variant: VariantExact, Keys: n, Bits: 8 * (e.bytes.Load() + n*exactEntryOverhead), Capacity: n, Layers: 1}
}

func (e *exact) each(fn func(string)) {
	for i := range e.shards {
		s := &e.shards[i]
		s.mu.Lock()
		for k := range s.m {
			fn(k)
		}
		s.mu.Unlock()
	}
}
