package frontier

import (
	"encoding/binary"
	"hash/maphash"
	"math"
	"strings"

	"github.com/bloomcrawl/bloomcrawl/internal/mapped"
)

// urlCache remembers the URLs added last, exactly, in a fixed number of
// bytes. A URL is kept as its origin (scheme://host:port, one of a small
// table of recent origins, so that it is stored once for all its URLs) and
// the rest of its bytes, in a ring of bytes where the oldest entry is
// overwritten first; an open-addressing table maps a hash of the whole URL
// to where its entry starts. A lookup compares the origin and the stored
// bytes with the URL, so a hash collision can only make the cache forget a
// URL (the caller then asks the store), never report one it does not hold.
// Entries whose origin was replaced in the origin table no longer match
// anything (the origin's generation is part of the entry). Only the origin
// table holds pointers; the ring and the hash table are not scanned by the
// garbage collector. All three start small and grow as URLs arrive, up to
// their full sizes (maxSlots, maxRing, maxOrigins), so the memory follows
// the URLs seen: a crawl of a few thousand URLs does not hold (and the
// garbage collector does not pace itself by) the whole size. With a
// mapped.File the ring and the hash table are regions of it once large
// enough (page cache, not heap). Not safe for concurrent use.
//
// Sizes: an entry is 8 bytes plus the URL after its origin (18 bytes for
// http://127.0.0.1:8080/p/1234567), and takes 8 / (3/4) bytes of the
// hash table.
type urlCache struct {
	ring  []byte   // entries, from head to end (absolute positions mod len)
	head  uint64   // absolute position of the oldest entry
	end   uint64   // absolute position after the newest entry
	slots []uint64 // 0 = empty; else tag<<32 | (ring offset + 1)
	n     int      // entries in slots
	max   int      // most entries kept in slots (3/4 of them)
	seed  maphash.Seed

	origins  []cacheOrigin
	byOrigin map[string]uint16 // origin → index in origins
	hand     int               // next origin slot the clock looks at
	gen      uint32            // generations handed out to origins so far

	maxSlots, maxRing, maxOrigins int // the sizes slots, ring and origins grow to

	arrays *mapped.File // where ring and slots live (nil: the heap)
}

// The sizes a cache starts with (or its full sizes, if smaller).
const (
	cacheMinSlots = 1 << 12 // 32 KiB
	cacheMinRing  = 1 << 16
)

type cacheOrigin struct {
	origin string
	gen    uint32 // 0 = unused slot
	ref    bool   // used since the clock last passed
}

// An entry: suffix length (2 bytes), origin index (2), origin generation
// (4), suffix.
const (
	cacheHdr        = 8
	cacheGap        = 0xffff // suffix length marking the ring's unused tail before a wrap
	cacheOriginCost = 96     // bytes counted per origin table slot
	maxCacheOrigins = 8192
)

// newURLCache returns a cache of at most about size bytes: a table of
// recent origins (8,192 for sizes from 32 MiB), then a third of the rest
// for the hash table and two thirds for the ring. A size too small for any
// entry gives a cache that remembers nothing. arrays, if not nil, holds
// the ring and the hash table.
func newURLCache(size int, arrays *mapped.File) *urlCache {
	c := &urlCache{seed: maphash.MakeSeed(), arrays: arrays}
	if size < 1024 {
		return c
	}
	norigins := min(max(size/4096, 4), maxCacheOrigins)
	rest := size - norigins*cacheOriginCost
	nslots := max(rest/3/8, 4)
	ring := min(rest-nslots*8, math.MaxUint32-1) // offsets are 32 bits
	c.maxSlots, c.maxRing, c.maxOrigins = nslots, ring, norigins
	c.slots = mapped.Make[uint64](arrays, min(nslots, cacheMinSlots))
	c.max = len(c.slots) * 3 / 4
	c.ring = mapped.Make[byte](arrays, min(ring, cacheMinRing))
	c.byOrigin = map[string]uint16{}
	return c
}

// grow doubles the table while it is 3/4 full and the ring while an entry
// of need bytes does not fit after the newest, up to their full sizes. The
// ring grows only while nothing was evicted from it (head 0): its offsets
// are then the entries' absolute positions, valid in a longer ring too.
func (c *urlCache) grow(need int) {
	for c.n >= c.max && len(c.slots) < c.maxSlots {
		old := c.slots
		c.slots = mapped.Make[uint64](c.arrays, min(2*len(old), c.maxSlots))
		c.max = len(c.slots) * 3 / 4
		for _, s := range old {
			if s == 0 {
				continue
			}
			i := c.home(s >> 32)
			for c.slots[i] != 0 {
				i = c.next(i)
			}
			c.slots[i] = s
		}
		mapped.Free(c.arrays, old)
	}
	for c.head == 0 && c.end+uint64(need) > uint64(len(c.ring)) && len(c.ring) < c.maxRing {
		ring := mapped.Make[byte](c.arrays, min(2*len(c.ring), c.maxRing))
		copy(ring, c.ring[:c.end])
		mapped.Free(c.arrays, c.ring)
		c.ring = ring
	}
}

// bytes is about the memory the cache holds.
func (c *urlCache) bytes() int { return len(c.ring) + 8*len(c.slots) + cacheOriginCost*len(c.origins) }

// splitURL splits u into its origin (up to the path) and the rest.
func splitURL(u string) (origin, rest string) {
	i := strings.Index(u, "://")
	if i < 0 {
		return "", u
	}
	j := strings.IndexByte(u[i+3:], '/')
	if j < 0 {
		return u, ""
	}
	return u[:i+3+j], u[i+3+j:]
}

// tag is the 32-bit hash of an entry: its origin slot and generation and
// the rest of its URL (so that an entry's slot can be found from the entry
// alone, whether or not its origin is still in the table).
func (c *urlCache) tag(oi uint16, gen uint32, rest string) uint64 {
	h := maphash.String(c.seed, rest) ^ (uint64(oi)<<32|uint64(gen))*0x9e3779b97f4a7c15
	return (h ^ h>>29) * 0xbf58476d1ce4e5b9 >> 32
}

// home is the slot a tag is looked for first.
func (c *urlCache) home(tag uint64) int { return int(tag * uint64(len(c.slots)) >> 32) }

func (c *urlCache) next(i int) int {
	if i++; i == len(c.slots) {
		return 0
	}
	return i
}

// matches reports whether the entry at ring offset off is rest under the
// origin o (index oi).
func (c *urlCache) matches(off int, oi uint16, o *cacheOrigin, rest string) bool {
	e := c.ring[off:]
	l := int(binary.LittleEndian.Uint16(e))
	return l == len(rest) && binary.LittleEndian.Uint16(e[2:]) == oi && binary.LittleEndian.Uint32(e[4:]) == o.gen &&
		string(e[cacheHdr:cacheHdr+l]) == rest
}

// find returns the slot holding rest under origin oi, or -1.
func (c *urlCache) find(oi uint16, rest string) int {
	o := &c.origins[oi]
	tag := c.tag(oi, o.gen, rest)
	for i := c.home(tag); ; i = c.next(i) {
		s := c.slots[i]
		if s == 0 {
			return -1
		}
		if s>>32 == tag && c.matches(int(uint32(s))-1, oi, o, rest) {
			return i
		}
	}
}

// has reports whether u is in the cache.
func (c *urlCache) has(u string) bool {
	if len(c.slots) == 0 {
		return false
	}
	origin, rest := splitURL(u)
	oi, ok := c.byOrigin[origin]
	if !ok {
		return false
	}
	c.origins[oi].ref = true
	return c.find(oi, rest) >= 0
}

// add remembers u, forgetting the oldest URLs as needed. A URL already
// held keeps its place; one whose entry would be longer than an eighth of
// the ring is not kept.
func (c *urlCache) add(u string) {
	origin, rest := splitURL(u)
	need := cacheHdr + len(rest)
	if len(c.slots) == 0 || need > c.maxRing/8 || len(rest) >= cacheGap {
		return
	}
	oi, ok := c.byOrigin[origin]
	if !ok {
		oi = c.newOrigin(origin)
	}
	c.origins[oi].ref = true
	if c.find(oi, rest) >= 0 {
		return
	}
	c.grow(need)
	if need > len(c.ring)/8 {
		return // (a ring that stopped growing short of its full size)
	}
	size := uint64(len(c.ring))
	pos := c.end
	if off := pos % size; off+uint64(need) > size {
		pos += size - off // the tail is too short: start again at offset 0
	}
	for c.head < c.end && (pos+uint64(need)-c.head > size || c.n >= c.max) {
		c.evict()
	}
	if c.head == c.end {
		c.head = pos // empty: nothing between end and pos to skip
	} else if pos != c.end {
		if off := c.end % size; off+2 <= size {
			binary.LittleEndian.PutUint16(c.ring[off:], cacheGap)
		}
	}
	off := int(pos % size)
	e := c.ring[off:]
	binary.LittleEndian.PutUint16(e, uint16(len(rest)))
	binary.LittleEndian.PutUint16(e[2:], oi)
	binary.LittleEndian.PutUint32(e[4:], c.origins[oi].gen)
	copy(e[cacheHdr:], rest)
	c.end = pos + uint64(need)
	tag := c.tag(oi, c.origins[oi].gen, rest)
	i := c.home(tag)
	for c.slots[i] != 0 {
		i = c.next(i)
	}
	c.slots[i] = tag<<32 | uint64(off+1)
	c.n++
}

// newOrigin gives origin a slot of the origin table: a new one while the
// table is not full, else the first not used since the clock hand last
// passed it; the replaced origin's entries stay in the ring until
// overwritten but match nothing (their generation is not the slot's).
func (c *urlCache) newOrigin(origin string) uint16 {
	if c.gen == math.MaxUint32 {
		c.reset() // generations would repeat: forget everything
	}
	c.gen++
	o := cacheOrigin{origin: strings.Clone(origin), gen: c.gen}
	if len(c.origins) < c.maxOrigins {
		c.origins = append(c.origins, o)
		c.byOrigin[o.origin] = uint16(len(c.origins) - 1)
		return uint16(len(c.origins) - 1)
	}
	for c.origins[c.hand].ref {
		c.origins[c.hand].ref = false
		c.hand = (c.hand + 1) % len(c.origins)
	}
	oi := c.hand
	delete(c.byOrigin, c.origins[oi].origin)
	c.origins[oi] = o
	c.byOrigin[o.origin] = uint16(oi)
	c.hand = (c.hand + 1) % len(c.origins)
	return uint16(oi)
}

// reset forgets every URL and origin.
func (c *urlCache) reset() {
	clear(c.slots)
	c.origins = c.origins[:0]
	clear(c.byOrigin)
	c.head, c.end, c.n, c.gen, c.hand = 0, 0, 0, 0, 0
}

// evict forgets the oldest entry (or skips the unused tail it starts at).
func (c *urlCache) evict() {
	size := uint64(len(c.ring))
	off := c.head % size
	if off+cacheHdr > size {
		c.head += size - off
		return
	}
	l := binary.LittleEndian.Uint16(c.ring[off:])
	if l == cacheGap {
		c.head += size - off
		return
	}
	e := c.ring[off:]
	tag := c.tag(binary.LittleEndian.Uint16(e[2:]), binary.LittleEndian.Uint32(e[4:]), string(e[cacheHdr:cacheHdr+int(l)]))
	for i := c.home(tag); c.slots[i] != 0; i = c.next(i) {
		if int(uint32(c.slots[i]))-1 == int(off) {
			c.remove(i)
			break
		}
	}
	c.head += cacheHdr + uint64(l)
}

// remove empties slot i, moving later entries of its probe run back so
// that every entry stays reachable from its home slot (linear probing's
// backward-shift deletion).
func (c *urlCache) remove(i int) {
	for j := c.next(i); c.slots[j] != 0; j = c.next(j) {
		h := c.home(c.slots[j] >> 32)
		// Entry j may move to i if its home is not in (i, j] (cyclically).
		if (j > i && (h <= i || h > j)) || (j < i && h <= i && h > j) {
			c.slots[i] = c.slots[j]
			i = j
		}
	}
	c.slots[i] = 0
	c.n--
}
