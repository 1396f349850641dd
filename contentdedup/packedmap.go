package contentdedup

import (
	"slices"

	"github.com/bloomcrawl/bloomcrawl/internal/mapped"
)

// packedMinRecent is the least number of new keys a packedMap gathers
// before merging them into its sorted arrays.
const packedMinRecent = 4096

// packedMap maps uint64 keys to uint64 values in two sorted parallel
// arrays, with keys added since the last merge in a small Go map: 16 bytes
// per key plus the recent map (a Go map alone takes 30-50 bytes per key at
// 16-byte slots, half of it empty after each doubling), and nothing the
// garbage collector has to scan. A lookup is a map probe and a binary
// search. New keys are merged when they reach an eighth of the arrays (at
// least packedMinRecent), so a key is copied about 9 times in all: on the
// heap into arrays allocated at their exact size, in mf (when set, see
// internal/mapped) within arrays grown in place. The zero value is an
// empty map on the heap. Not safe for concurrent use.
type packedMap struct {
	keys, vals []uint64          // sorted by key, distinct
	recent     map[uint64]uint64 // keys not in keys
	mf         *mapped.File      // where keys and vals live (nil: the heap)
}

// get returns the value of k.
func (m *packedMap) get(k uint64) (uint64, bool) {
	if v, ok := m.recent[k]; ok {
		return v, true
	}
	if i, ok := slices.BinarySearch(m.keys, k); ok {
		return m.vals[i], true
	}
	return 0, false
}

// set makes v the value of k.
func (m *packedMap) set(k, v uint64) {
	if i, ok := slices.BinarySearch(m.keys, k); ok {
		m.vals[i] = v
		return
	}
	if m.recent == nil {
		m.recent = map[uint64]uint64{}
	}
	m.recent[k] = v
	if len(m.recent) >= max(packedMinRecent, len(m.keys)/8) {
		m.merge()
	}
}

// len returns the number of keys.
func (m *packedMap) len() int { return len(m.keys) + len(m.recent) }

// merge moves the recent keys into the sorted arrays, merging from the
// back: in a mapped.File within the same arrays grown (no new pages are
// touched but the added ones); on the heap into new arrays of the exact
// size (the garbage collector would count spare capacity).
func (m *packedMap) merge() {
	add := make([]uint64, 0, len(m.recent))
	for k := range m.recent {
		add = append(add, k)
	}
	slices.Sort(add)
	n := len(m.keys) + len(add)
	var keys, vals []uint64
	if m.mf != nil {
		keys = mapped.Grow(m.mf, m.keys, len(add))[:n]
		vals = mapped.Grow(m.mf, m.vals, len(add))[:n]
	} else {
		keys, vals = make([]uint64, n), make([]uint64, n)
		copy(keys, m.keys)
		copy(vals, m.vals)
	}
	i, j := n-len(add)-1, len(add)-1
	for o := n - 1; j >= 0; o-- {
		if i >= 0 && keys[i] > add[j] {
			keys[o], vals[o] = keys[i], vals[i]
			i--
		} else {
			keys[o], vals[o] = add[j], m.recent[add[j]]
			j--
		}
	}
	m.keys, m.vals = keys, vals
	clear(m.recent)
}
