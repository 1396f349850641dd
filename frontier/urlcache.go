package frontier

import (
	"encoding/binary"
	"hash/maphash"
	"math/bits"
)

// urlCache remembers the URLs added last, exactly, in a fixed number of
// bytes: the URLs themselves in a ring of bytes (each after a 2-byte
// length; the oldest is overwritten first) and an open-addressing table
// from a 64-bit hash of a URL to where its bytes start in the ring. A
// lookup compares the stored bytes with the URL, so a hash collision can
// only make the cache forget a URL (the caller then asks the store), never
// report one it does not hold. Neither part holds pointers, so the garbage
// collector does not scan them. Both start small and double as URLs
// arrive, up to their full sizes (maxSlots, maxRing), so the memory
// follows the URLs seen: a crawl of a few thousand URLs does not hold
// (and the garbage collector does not pace itself by) the whole size.
// Not safe for concurrent use.
type urlCache struct {
	ring  []byte   // entries, from head to end (absolute positions mod len)
	head  uint64   // absolute position of the oldest entry
	end   uint64   // absolute position after the newest entry
	slots []uint64 // 0 = empty; else tag<<32 | (ring offset + 1)
	n     int      // entries in slots
	max   int      // most entries kept in slots (3/4 of them)
	seed  maphash.Seed

	maxSlots, maxRing int // the sizes slots and ring grow to
}

// The sizes a cache starts with (or its full sizes, if smaller).
const (
	cacheMinSlots = 1 << 12 // 32 KiB
	cacheMinRing  = 1 << 16
)

const (
	cacheHdr = 2      // bytes of an entry's length
	cacheGap = 0xffff // length marking the ring's unused tail before a wrap
)

// newURLCache returns a cache of about size bytes (a quarter for the
// table, the rest for the ring). A size too small for any entry gives a
// cache that remembers nothing.
func newURLCache(size int) *urlCache {
	c := &urlCache{seed: maphash.MakeSeed()}
	if size < 256 {
		return c
	}
	nslots := 1 << (bits.Len(uint(size/4/8)) - 1) // a power of two, at most size/4 bytes
	ring := size - nslots*8
	if ring > 1<<32-1 {
		ring = 1<<32 - 1 // offsets are 32 bits
	}
	c.maxSlots, c.maxRing = nslots, ring
	c.slots = make([]uint64, min(nslots, cacheMinSlots))
	c.max = len(c.slots) * 3 / 4
	c.ring = make([]byte, min(ring, cacheMinRing))
	return c
}

// grow doubles the table while it is 3/4 full and the ring while an entry
// of need bytes does not fit after the newest, up to their full sizes. The
// ring grows only while nothing was evicted from it (head 0): its offsets
// are then the entries' absolute positions, valid in a longer ring too.
func (c *urlCache) grow(need int) {
	for c.n >= c.max && len(c.slots) < c.maxSlots {
		old := c.slots
		c.slots = make([]uint64, min(2*len(old), c.maxSlots))
		c.max = len(c.slots) * 3 / 4
		mask := len(c.slots) - 1
		for _, s := range old {
			if s == 0 {
				continue
			}
			i := c.home(s >> 32)
			for c.slots[i] != 0 {
				i = (i + 1) & mask
			}
			c.slots[i] = s
		}
	}
	for c.head == 0 && c.end+uint64(need) > uint64(len(c.ring)) && len(c.ring) < c.maxRing {
		ring := make([]byte, min(2*len(c.ring), c.maxRing))
		copy(ring, c.ring[:c.end])
		c.ring = ring
	}
}

// bytes is the memory the cache holds.
func (c *urlCache) bytes() int { return len(c.ring) + 8*len(c.slots) }

func (c *urlCache) hash(u string) (tag uint64) { return maphash.String(c.seed, u) >> 32 }

// home is the slot a tag is looked for first.
func (c *urlCache) home(tag uint64) int { return int(tag) & (len(c.slots) - 1) }

// entry returns the URL bytes stored at ring offset off.
func (c *urlCache) entry(off int) []byte {
	l := int(binary.LittleEndian.Uint16(c.ring[off:]))
	return c.ring[off+cacheHdr : off+cacheHdr+l]
}

// find returns the slot holding u, or -1.
func (c *urlCache) find(u string, tag uint64) int {
	mask := len(c.slots) - 1
	for i := c.home(tag); ; i = (i + 1) & mask {
		s := c.slots[i]
		if s == 0 {
			return -1
		}
		if s>>32 == tag && string(c.entry(int(uint32(s))-1)) == u {
			return i
		}
	}
}

// has reports whether u is in the cache.
func (c *urlCache) has(u string) bool {
	if len(c.slots) == 0 {
		return false
	}
	return c.find(u, c.hash(u)) >= 0
}

// add remembers u, forgetting the oldest URLs as needed. A URL already
// held keeps its place; one longer than an eighth of the ring is not kept.
func (c *urlCache) add(u string) {
	need := cacheHdr + len(u)
	if len(c.slots) == 0 || need > c.maxRing/8 || len(u) >= cacheGap {
		return
	}
	tag := c.hash(u)
	if c.find(u, tag) >= 0 {
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
		off := c.end % size
		if off+cacheHdr <= size {
			binary.LittleEndian.PutUint16(c.ring[off:], cacheGap)
		}
	}
	off := int(pos % size)
	binary.LittleEndian.PutUint16(c.ring[off:], uint16(len(u)))
	copy(c.ring[off+cacheHdr:], u)
	c.end = pos + uint64(need)
	mask := len(c.slots) - 1
	i := c.home(tag)
	for c.slots[i] != 0 {
		i = (i + 1) & mask
	}
	c.slots[i] = tag<<32 | uint64(off+1)
	c.n++
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
	u := c.entry(int(off))
	tag := c.hash(string(u))
	mask := len(c.slots) - 1
	for i := c.home(tag); c.slots[i] != 0; i = (i + 1) & mask {
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
	mask := len(c.slots) - 1
	for j := (i + 1) & mask; c.slots[j] != 0; j = (j + 1) & mask {
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
