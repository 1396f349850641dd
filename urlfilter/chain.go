package urlfilter

import (
	"math"
	"sync"
	"sync/atomic"
	"time"
)

// chain is the rotating ring of Bloom generations: G generations; new keys go into the
// active one; a key is seen if any generation has it. When the active
// generation is full (count mode: Window/(G−1) keys) or old (time mode:
// Period), the oldest generation is cleared and becomes the active one.
//
// Guarantee: in count mode with c = ceil(Window/(G−1)) keys per generation,
// the last (G−1)·c ≥ Window keys recorded are always remembered (the G−1
// full older generations plus the active one), and no key older than G·c
// recorded keys is remembered except by a false positive. In time mode,
// keys recorded within the last (G−1)·Period are always remembered, keys
// older than G·Period never are. Each generation is sized for TargetFP/G, so
// the compound false-positive rate stays ≤ TargetFP. In time mode each
// generation is a scalable filter (initial capacity Capacity), so a burst
// never saturates it.
type chain struct {
	mu       sync.RWMutex // shared for TestAndAdd, exclusive for rotation
	gens     []layer      // ring: fixed filters (count mode) or scalable ones (time mode)
	started  []int64      // unix nanos when each generation became active
	active   int
	perGen   uint64 // count mode: keys per generation (0 = time mode only)
	period   time.Duration
	now      func() time.Time
	o        Options
	rotation atomic.Uint64
}

// newChainShell returns a chain with empty generation slots.
func newChainShell(o Options) *chain {
	c := &chain{period: o.Period, now: o.Now, o: o}
	if o.Window > 0 {
		c.perGen = (o.Window + uint64(o.Generations) - 2) / uint64(o.Generations-1)
	}
	c.gens = make([]layer, o.Generations)
	c.started = make([]int64, o.Generations)
	return c
}

func newChain(o Options) *chain {
	c := newChainShell(o)
	for i := range c.gens {
		if i == 0 {
			c.gens[i] = c.newGen()
		} else {
			c.gens[i] = c.gens[0].emptyCopy()
		}
	}
	c.started[0] = c.now().UnixNano()
	return c
}

func (c *chain) genTarget() float64 {
	if c.o.TargetFP == 0 {
		return 0
	}
	return -math.Expm1(math.Log1p(-c.o.TargetFP) / float64(c.o.Generations))
}

func (c *chain) newGen() layer {
	if c.perGen > 0 {
		return newFixed(c.o.Layer, c.perGen, c.genTarget(), c.o.BitsPerKey).(layer)
	}
	o := c.o
	o.TargetFP = c.genTarget()
	return newScalable(o)
}

func (c *chain) Test(key string) bool {
	h := hashKey(key)
	c.mu.RLock()
	defer c.mu.RUnlock()
	for _, g := range c.gens {
		if g.test(h) {
			return true
		}
	}
	return false
}

func (c *chain) TestAndAdd(key string) bool {
	if c.period > 0 {
		c.rotateIfDue()
	}
	h := hashKey(key)
	c.mu.RLock()
	for i, g := range c.gens {
		if i != c.active && g.test(h) {
			c.mu.RUnlock()
			return true
		}
	}
	g := c.gens[c.active]
	seen := g.testAndAddHash(h)
	var full bool
	if !seen && c.perGen > 0 {
		n, _ := g.load()
		full = n >= c.perGen
	}
	c.mu.RUnlock()
	if full {
		c.rotateIfDue()
	}
	return seen
}

// rotateIfDue clears the oldest generation and makes it active, as often as
// needed (a time-mode chain idle for several periods rotates several times).
func (c *chain) rotateIfDue() {
	c.mu.RLock()
	due := c.due()
	c.mu.RUnlock()
	if !due {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for i := 0; i < len(c.gens) && c.due(); i++ {
		next := (c.active + 1) % len(c.gens)
		start := c.now().UnixNano()
		if c.period > 0 && c.perGen == 0 {
			// Time mode: generations cover consecutive periods.
			start = c.started[c.active] + int64(c.period)
		}
		c.gens[next] = c.gens[next].emptyCopy()
		c.started[next] = start
		c.active = next
		c.rotation.Add(1)
	}
}

func (c *chain) due() bool {
	if n, _ := c.gens[c.active].load(); c.perGen > 0 && n >= c.perGen {
		return true
	}
	return c.period > 0 && c.now().UnixNano()-c.started[c.active] >= int64(c.period)
}

func (c *chain) Stats() Stats {
	c.mu.RLock()
	defer c.mu.RUnlock()
	st := Stats{Variant: VariantChain, TargetFP: c.o.TargetFP, Layers: len(c.gens)}
	miss := 1.0
	for _, g := range c.gens {
		gs := g.Stats()
		st.Keys += gs.Keys
		st.Bits += gs.Bits
		miss *= 1 - gs.PredictedFP
	}
	st.PredictedFP = 1 - miss
	if c.perGen > 0 {
		st.Capacity = c.perGen * uint64(len(c.gens)-1)
	} else {
		st.Capacity = c.o.Capacity
	}
	return st
}
