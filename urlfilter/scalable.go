package urlfilter

import (
	"math"
	"sync"
	"sync/atomic"
)

// layer is a fixed-size filter that can also be addressed by hash.
type layer interface {
	Filter
	test(h uint64) bool
	testAndAddHash(h uint64) bool
	load() (keys, capacity uint64)
	// emptyCopy returns an empty filter with the same parameters, without
	// redoing the sizing search (chains rotate often).
	emptyCopy() layer
}

// scalable is a scalable Bloom filter (Almeida et al. 2007): a list of
// fixed-size layers; layer i holds Capacity·Growth^i keys at a target rate
// TargetFP·(1−r)·r^i, so the compound false-positive rate
// 1 − Π(1 − f_i) ≤ Σ f_i ≤ TargetFP however many keys arrive. Only the newest
// layer takes new keys; a key is seen if any layer has it.
type scalable struct {
	mu     sync.RWMutex            // held shared by TestAndAdd, exclusively to add a layer
	layers atomic.Pointer[[]layer] // copy-on-write, read lock-free by Test
	o      scalableParams
}

type scalableParams struct {
	capacity   uint64
	target     float64
	bitsPerKey float64
	growth     float64
	tightening float64
	layer      string
}

func newScalable(o Options) *scalable {
	s := &scalable{o: scalableParams{capacity: o.Capacity, target: o.TargetFP, bitsPerKey: o.BitsPerKey,
		growth: o.Growth, tightening: o.Tightening, layer: o.Layer}}
	if s.o.bitsPerKey > 0 {
		s.o.target = 0
	}
	ls := []layer{s.newLayer(0)}
	s.layers.Store(&ls)
	return s
}

// layerParams returns the capacity and error target (or bits per key) of layer i.
func (s *scalable) layerParams(i int) (capacity uint64, eps, bpk float64) {
	capacity = uint64(math.Ceil(float64(s.o.capacity) * math.Pow(s.o.growth, float64(i))))
	if s.o.bitsPerKey > 0 {
		// Memory-budget mode: layer 0 gets the budget; each later layer adds
		// log2(1/r)/ln2 bits per key, the cost of tightening its error by r.
		return capacity, 0, s.o.bitsPerKey + float64(i)*math.Log2(1/s.o.tightening)/math.Ln2
	}
	return capacity, s.o.target * (1 - s.o.tightening) * math.Pow(s.o.tightening, float64(i)), 0
}

func (s *scalable) newLayer(i int) layer {
	c, eps, bpk := s.layerParams(i)
	return newFixed(s.o.layer, c, eps, bpk).(layer)
}

func (s *scalable) Test(key string) bool { return s.test(hashKey(key)) }

func (s *scalable) test(h uint64) bool {
	for _, l := range *s.layers.Load() {
		if l.test(h) {
			return true
		}
	}
	return false
}

func (s *scalable) TestAndAdd(key string) bool { return s.testAndAddHash(hashKey(key)) }

func (s *scalable) testAndAddHash(h uint64) bool {
	for {
		s.mu.RLock()
		ls := *s.layers.Load()
		last := len(ls) - 1
		for _, l := range ls {
			if l.test(h) {
				s.mu.RUnlock()
				return true
			}
		}
		active := ls[last]
		// Grow lazily, when a new key finds the newest layer full, so a
		// filter fed exactly its capacity keeps one layer.
		if n, c := active.load(); n >= c {
			s.mu.RUnlock()
			s.grow(last)
			continue
		}
		seen := active.testAndAddHash(h)
		s.mu.RUnlock()
		return seen
	}
}

// grow adds layer last+1 unless another goroutine already did.
func (s *scalable) grow(last int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	ls := *s.layers.Load()
	if len(ls)-1 != last {
		return
	}
	nl := append(append(make([]layer, 0, len(ls)+1), ls...), s.newLayer(len(ls)))
	s.layers.Store(&nl)
}

func (s *scalable) emptyCopy() layer {
	c := &scalable{o: s.o}
	ls := []layer{(*s.layers.Load())[0].emptyCopy()}
	c.layers.Store(&ls)
	return c
}

func (s *scalable) load() (uint64, uint64) {
	var n, c uint64
	for _, l := range *s.layers.Load() {
		ln, lc := l.load()
		n += ln
		c += lc
	}
	return n, c
}

func (s *scalable) Stats() Stats {
	ls := *s.layers.Load()
	st := Stats{Variant: VariantScalable, TargetFP: s.o.target, Layers: len(ls)}
	miss := 1.0
	for _, l := range ls {
		ls := l.Stats()
		st.Keys += ls.Keys
		st.Bits += ls.Bits
		st.Capacity += ls.Capacity
		miss *= 1 - ls.PredictedFP
	}
	st.PredictedFP = 1 - miss
	return st
}
