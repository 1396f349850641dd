package urlfilter

import "sync/atomic"

// batchSize is how many keys a batch call hashes and prefetches at once.
const batchSize = 64

// batcher is implemented by filters that can overlap the memory accesses of
// many keys.
type batcher interface {
	// touch loads the first word each hash will probe and returns a value
	// depending on all the loads (so they are not optimised away).
	touch(hs []uint64) uint64
	// testHashes sets seen[i] = seen[i] || test(hs[i]).
	testHashes(hs []uint64, seen []bool)
}

// TestBatch sets seen[i] = f.Test(keys[i]) for every i; seen must be at
// least as long as keys. For the blocked and scalable (default) filters it
// hashes up to 64 keys, issues all their cache-line loads back to back so
// the memory system serves them in parallel, and then tests them; a crawler
// that tests all links of a page at once gets several times the throughput
// of one Test per link. Other filters fall back to one Test per key.
func TestBatch(f Filter, keys []string, seen []bool) {
	_ = seen[:len(keys)]
	t, ok := f.(batcher)
	if !ok {
		for i, k := range keys {
			seen[i] = f.Test(k)
		}
		return
	}
	var hs [batchSize]uint64
	for lo := 0; lo < len(keys); lo += batchSize {
		chunk := keys[lo:min(lo+batchSize, len(keys))]
		for i, k := range chunk {
			hs[i] = hashKey(k)
		}
		sink := t.touch(hs[:len(chunk)])
		out := seen[lo : lo+len(chunk)]
		clear(out)
		t.testHashes(hs[:len(chunk)], out)
		if sink == 0x5eed_5eed_5eed_5eed { // never true in practice; keeps the loads
			seen[lo] = seen[lo] || false
		}
	}
}

// TestAndAddBatch sets seen[i] = f.TestAndAdd(keys[i]) for every i, in
// order, with the same prefetching as TestBatch. Each key is still tested
// and added atomically (a key repeated within keys is new only once).
func TestAndAddBatch(f Filter, keys []string, seen []bool) {
	_ = seen[:len(keys)]
	t, ok := f.(interface {
		batcher
		testAndAddHash(h uint64) bool
	})
	if !ok {
		for i, k := range keys {
			seen[i] = f.TestAndAdd(k)
		}
		return
	}
	var hs [batchSize]uint64
	for lo := 0; lo < len(keys); lo += batchSize {
		chunk := keys[lo:min(lo+batchSize, len(keys))]
		for i, k := range chunk {
			hs[i] = hashKey(k)
		}
		sink := t.touch(hs[:len(chunk)])
		for i := range chunk {
			seen[lo+i] = t.testAndAddHash(hs[i])
		}
		if sink == 0x5eed_5eed_5eed_5eed {
			seen[lo] = seen[lo] || false
		}
	}
}

func (b *blocked) touch(hs []uint64) uint64 {
	var sink uint64
	for _, h := range hs {
		sink += atomic.LoadUint64(&b.words[reduce(h, b.nblocks)*8])
	}
	return sink
}

func (b *blocked) testHashes(hs []uint64, seen []bool) {
	for i, h := range hs {
		if !seen[i] && b.test(h) {
			seen[i] = true
		}
	}
}

func (s *scalable) testHashes(hs []uint64, seen []bool) {
	for _, l := range *s.layers.Load() {
		if t, ok := l.(batcher); ok {
			t.testHashes(hs, seen)
			continue
		}
		for i, h := range hs {
			if !seen[i] && l.test(h) {
				seen[i] = true
			}
		}
	}
}

// touch prefetches every layer's block (the newest layer last).
func (s *scalable) touch(hs []uint64) uint64 {
	var sink uint64
	for _, l := range *s.layers.Load() {
		if t, ok := l.(batcher); ok {
			sink += t.touch(hs)
		}
	}
	return sink
}
