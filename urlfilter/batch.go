package urlfilter

// batchSize is how many keys a batch call hashes ahead of the ones it tests.
const batchSize = 64

// TestBatch sets seen[i] = f.Test(keys[i]) for every i; seen must be at
// least as long as keys. For the blocked and scalable (default) filters it
// works on 64 keys at a time: as it hashes each key it prefetches the key's
// cache line in every layer, then tests the 64 keys, whose lines have been
// arriving meanwhile; the memory accesses of many keys overlap each other
// and the hashing, instead of costing one full miss per key as Test does. A
// crawler that tests all links of a page at once gets several times the
// throughput of one Test per link. Other filters fall back to one Test per
// key. It does not allocate.
func TestBatch(f Filter, keys []string, seen []bool) {
	_ = seen[:len(keys)]
	var one [1]layer
	if batchLayers(f, &one) == nil {
		for i, k := range keys {
			seen[i] = f.Test(k)
		}
		return
	}
	var hs [batchSize]uint64
	for lo := 0; lo < len(keys); lo += batchSize {
		n := hashPrefetch(&hs, keys[lo:], batchLayers(f, &one))
		testLayers(batchLayers(f, &one), hs[:n], seen[lo:lo+n])
	}
}

// TestAndAddBatch sets seen[i] = f.TestAndAdd(keys[i]) for every i, in
// order; seen must be at least as long as keys. Each key is tested and added
// atomically, exactly as by TestAndAdd: a key repeated within keys is new
// only once, and of goroutines adding the same new key at once exactly one
// gets false. For the blocked and scalable (default) filters it tests the
// keys lock-free 64 at a time, with TestBatch's prefetching, and takes the
// add path (which re-tests under the key's lock) only for the keys that
// looked new; other filters fall back to one TestAndAdd per key. It does not
// allocate.
func TestAndAddBatch(f Filter, keys []string, seen []bool) {
	_ = seen[:len(keys)]
	var one [1]layer
	if batchLayers(f, &one) == nil {
		for i, k := range keys {
			seen[i] = f.TestAndAdd(k)
		}
		return
	}
	add := f.(layer)
	var hs [batchSize]uint64
	for lo := 0; lo < len(keys); lo += batchSize {
		n := hashPrefetch(&hs, keys[lo:], batchLayers(f, &one))
		out := seen[lo : lo+n]
		testLayers(batchLayers(f, &one), hs[:n], out)
		for i, s := range out {
			if !s {
				out[i] = add.testAndAddHash(hs[i])
			}
		}
	}
}

// batchLayers returns the layers a batch call tests f against: the layers
// of a scalable filter, or f itself (stored in one) if it is blocked; nil
// for the other filters, which have no batch path.
func batchLayers(f Filter, one *[1]layer) []layer {
	switch f := f.(type) {
	case *scalable:
		return *f.layers.Load()
	case *blocked:
		one[0] = f
		return one[:]
	}
	return nil
}

// hashPrefetch hashes the first min(len(keys), batchSize) keys into hs,
// prefetching each key's block in every blocked layer as soon as its hash
// is known, and returns how many keys it hashed. Prefetching key by key,
// rather than all 64 blocks after hashing, spaces the requests out so the
// CPU's miss buffers do not overflow (measured: 36 against 66 ns per key).
func hashPrefetch(hs *[batchSize]uint64, keys []string, ls []layer) int {
	n := min(len(keys), batchSize)
	for i, k := range keys[:n] {
		h := hashKey(k)
		hs[i] = h
		for _, l := range ls {
			if b, ok := l.(*blocked); ok {
				prefetch(&b.words[reduce(h, b.nblocks)*8])
			}
		}
	}
	return n
}

// testLayers sets seen[i] to whether any layer has hs[i].
func testLayers(ls []layer, hs []uint64, seen []bool) {
	clear(seen)
	for _, l := range ls {
		if b, ok := l.(*blocked); ok {
			for i, h := range hs {
				if b.test(h) {
					seen[i] = true
				}
			}
			continue
		}
		for i, h := range hs {
			if !seen[i] && l.test(h) {
				seen[i] = true
			}
		}
	}
}

// Every filter New returns, and Audit, also has TestAndAddBatch as a method
// (the function above), so that a consumer can declare a small interface
// with it instead of importing this package; frontier does.

func (c *classic) TestAndAddBatch(keys []string, seen []bool)  { TestAndAddBatch(c, keys, seen) }
func (b *blocked) TestAndAddBatch(keys []string, seen []bool)  { TestAndAddBatch(b, keys, seen) }
func (f *mdbf) TestAndAddBatch(keys []string, seen []bool)     { TestAndAddBatch(f, keys, seen) }
func (e *exact) TestAndAddBatch(keys []string, seen []bool)    { TestAndAddBatch(e, keys, seen) }
func (s *scalable) TestAndAddBatch(keys []string, seen []bool) { TestAndAddBatch(s, keys, seen) }
func (c *chain) TestAndAddBatch(keys []string, seen []bool)    { TestAndAddBatch(c, keys, seen) }

// TestAndAddBatch is TestAndAdd for every key, in order, through the wrapped
// filter's batch path; seen must be at least as long as keys. It counts
// exactly as len(keys) TestAndAdd calls would.
func (a *Audit) TestAndAddBatch(keys []string, seen []bool) {
	_ = seen[:len(keys)]
	TestAndAddBatch(a.f, keys, seen)
	for i, k := range keys {
		seen[i] = a.record(k, seen[i])
	}
}
