package frontier

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"

	"github.com/bloomcrawl/bloomcrawl/internal/mapped"
)

// checkCache verifies the cache's structure: every entry between head and
// end has exactly one slot, found from its home, and n counts them. It
// returns the entries whose origin is still in the table (the URLs the
// cache holds).
func checkCache(t *testing.T, c *urlCache) (live int) {
	t.Helper()
	entries := 0
	size := uint64(len(c.ring))
	for p := c.head; p < c.end; {
		off := p % size
		if off+cacheHdr > size {
			p += size - off
			continue
		}
		e := c.ring[off:]
		l := uint64(binary.LittleEndian.Uint16(e))
		if l == cacheGap {
			p += size - off
			continue
		}
		oi, gen, rest := binary.LittleEndian.Uint16(e[2:]), binary.LittleEndian.Uint32(e[4:]), string(e[cacheHdr:cacheHdr+l])
		tag := c.tag(oi, gen, rest)
		found := 0
		for i := c.home(tag); c.slots[i] != 0; i = c.next(i) {
			if int(uint32(c.slots[i]))-1 == int(off) {
				found++
			}
		}
		if found != 1 {
			t.Fatalf("entry %q at %d: %d slots on its probe run", rest, off, found)
		}
		if c.origins[oi].gen == gen {
			live++
			if !c.has(c.origins[oi].origin + rest) {
				t.Fatalf("entry %q at %d is live but not found", c.origins[oi].origin+rest, off)
			}
		}
		entries++
		p += cacheHdr + l
	}
	used := 0
	for _, s := range c.slots {
		if s != 0 {
			used++
		}
	}
	if entries != c.n || used != c.n {
		t.Fatalf("%d entries in the ring, %d slots used, n = %d", entries, used, c.n)
	}
	return live
}

// TestURLCacheExact: against an exact record of what was added, the cache
// never reports a URL it was not given and stays consistent as the oldest
// entries are overwritten and origins replaced, for caches from a few
// entries (long probe runs that wrap around the table; 4 origin slots for
// 1 to 40 hosts) to many, URLs of many lengths, with repeats.
func TestURLCacheExact(t *testing.T) {
	for _, tc := range []struct {
		size, hosts int
		mapped      bool
	}{{1024, 1, false}, {1024, 40, false}, {2000, 3, false}, {4096, 40, false}, {1 << 16, 5, false}, {1 << 16, 40, true}, {1 << 20, 10_000, false}, {1 << 20, 10_000, true}} {
		size := tc.size
		t.Run(fmt.Sprintf("%d-bytes-%d-hosts-mapped-%v", tc.size, tc.hosts, tc.mapped), func(t *testing.T) {
			var arrays *mapped.File
			if tc.mapped { // every array in a mapped file, as it grows
				arrays = mustMapped(t)
			}
			c := newURLCache(size, arrays)
			if c.bytes() > size {
				t.Fatalf("cache of %d bytes holds %d", size, c.bytes())
			}
			r := rand.New(rand.NewPCG(uint64(size), 7))
			added := map[string]bool{}
			var order []string // distinct URLs in the order first added
			for step := range 20_000 {
				u := fmt.Sprintf("http://h%d.example/%d%s", r.IntN(tc.hosts), r.IntN(3000), strings.Repeat("x", r.IntN(40)))
				had := c.has(u)
				if had && !added[u] {
					t.Fatalf("step %d: has(%q) before it was added", step, u)
				}
				c.add(u)
				if !added[u] {
					added[u] = true
					order = append(order, u)
				}
				if _, rest := splitURL(u); cacheHdr+len(rest) <= len(c.ring)/8 && !c.has(u) {
					t.Fatalf("step %d: %q not held right after add", step, u)
				}
				if step%997 == 0 {
					checkCache(t, c)
				}
			}
			live := checkCache(t, c)
			// Every URL it holds was added: the held URLs among those
			// added are all its live entries.
			held := 0
			for _, u := range order {
				if c.has(u) {
					held++
				}
			}
			if held != live {
				t.Errorf("%d of the added URLs held, %d live entries", held, live)
			}
			if c.n == 0 && len(c.slots) > 0 {
				t.Errorf("cache of %d bytes holds nothing", size)
			}
			if tc.mapped && runtime.GOOS == "linux" && arrays.Bytes() < int64(len(c.ring)) {
				t.Errorf("%d bytes mapped for a ring of %d", arrays.Bytes(), len(c.ring))
			}
			for _, u := range []string{"http://h0.example/none", "", "http://h0.example/1" + strings.Repeat("y", 50), "http://h0.example", "h0.example/1"} {
				if c.has(u) {
					t.Errorf("has(%q) never added", u)
				}
			}
		})
	}
}

// TestURLCacheKeepsNewest: URLs added once each, in order: the cache holds
// a suffix of them, the newest, as many as its ring or table allows.
func TestURLCacheKeepsNewest(t *testing.T) {
	c := newURLCache(1<<20, nil)
	const n = 100_000
	for i := range n {
		c.add(fmt.Sprintf("http://127.0.0.1:8080/p/%d", i))
	}
	checkCache(t, c)
	first := -1
	for i := range n {
		has := c.has(fmt.Sprintf("http://127.0.0.1:8080/p/%d", i))
		if has && first < 0 {
			first = i
		}
		if !has && first >= 0 {
			t.Fatalf("URL %d forgotten, %d (older) held", i, first)
		}
	}
	kept := n - first
	if first < 0 || kept != c.n {
		t.Fatalf("first held %d, kept %d, n %d", first, kept, c.n)
	}
	// ~30-byte URLs: the table (3/4 of 32,768 slots) or the ring (768 KiB)
	// is the limit, whichever is reached first; both are above 20,000.
	if kept < 20_000 {
		t.Errorf("1 MiB cache keeps %d 30-byte URLs", kept)
	}
	t.Logf("1 MiB keeps the newest %d of %d URLs", kept, n)
}

// TestURLCacheNone: a cache too small (or negative) remembers nothing and
// does not fail.
func TestURLCacheNone(t *testing.T) {
	for _, size := range []int{-1, 0, 1000} {
		c := newURLCache(size, nil)
		c.add("http://a/")
		if c.has("http://a/") || c.bytes() != 0 {
			t.Errorf("cache of %d bytes: has %v, %d bytes", size, c.has("http://a/"), c.bytes())
		}
	}
}

func BenchmarkURLCache(b *testing.B) {
	c := newURLCache(DefaultRecentBytes, nil)
	urls := make([]string, 1<<20)
	for i := range urls {
		urls[i] = fmt.Sprintf("http://127.0.0.1:8080/p/%d", i)
	}
	b.ResetTimer()
	for i := range b.N {
		u := urls[i&(len(urls)-1)]
		if !c.has(u) {
			c.add(u)
		}
	}
}

// TestURLCacheGrows: a cache starts small and grows as URLs arrive, up to
// its size and no further: holding a few thousand URLs it takes a small
// part of its size; filled, it keeps the newest URLs (a suffix, as in
// KeepsNewest) within its size, with every structure check passing
// across the growth steps and the evictions after them.
func TestURLCacheGrows(t *testing.T) {
	const size = DefaultRecentBytes
	c := newURLCache(size, nil)
	if c.bytes() > 128<<10 {
		t.Fatalf("new cache of %d bytes holds %d already", size, c.bytes())
	}
	url := func(i int) string { return fmt.Sprintf("http://127.0.0.1:8080/section/%d/page-%d.html", i%97, i) }
	for i := range 5000 {
		c.add(url(i))
	}
	if c.bytes() > 1<<20 || c.n != 5000 {
		t.Fatalf("5,000 URLs: %d entries in %d bytes (a cache of %d)", c.n, c.bytes(), size)
	}
	checkCache(t, c)
	small := newURLCache(1<<18, nil) // grows, then evicts
	const n = 20_000
	for i := range n {
		small.add(url(i))
		if i%4999 == 0 {
			checkCache(t, small)
		}
	}
	checkCache(t, small)
	// Filled: within its size, the table or the ring (whichever limits
	// these URLs) at its full size.
	if small.bytes() > 1<<18 || len(small.slots) != small.maxSlots && len(small.ring) != small.maxRing {
		t.Fatalf("filled: %d bytes (slots %d of %d, ring %d of %d), size %d", small.bytes(), len(small.slots), small.maxSlots, len(small.ring), small.maxRing, 1<<18)
	}
	first := -1
	for i := range n {
		has := small.has(url(i))
		if has && first < 0 {
			first = i
		}
		if !has && first >= 0 {
			t.Fatalf("URL %d forgotten, %d (older) held", i, first)
		}
	}
	if first <= 0 || n-first != small.n {
		t.Fatalf("first held %d, n %d: want the newest, after evictions", first, small.n)
	}
	t.Logf("256 KiB keeps the newest %d of %d URLs; 5,000 URLs in a cache of %d bytes take %d bytes", small.n, n, size, c.bytes())
}

// TestURLCacheGenerationsWrap: when the origins' generation counter would
// repeat, the cache forgets everything rather than let an old entry match
// a new origin.
func TestURLCacheGenerationsWrap(t *testing.T) {
	c := newURLCache(1<<16, nil)
	c.add("http://a.example/1")
	c.gen = math.MaxUint32 - 1
	c.add("http://b.example/1") // the last generation
	if !c.has("http://a.example/1") || !c.has("http://b.example/1") {
		t.Fatal("URLs added before the counter's end are not held")
	}
	c.add("http://c.example/1") // would repeat generations: reset
	if c.has("http://a.example/1") || c.has("http://b.example/1") || !c.has("http://c.example/1") {
		t.Errorf("after the wrap: a %v, b %v, c %v; want only c", c.has("http://a.example/1"), c.has("http://b.example/1"), c.has("http://c.example/1"))
	}
	checkCache(t, c)
	c.add("http://a.example/2")
	if !c.has("http://a.example/2") || c.has("http://a.example/1") {
		t.Error("a.example/2 not held, or a.example/1 back")
	}
	checkCache(t, c)
}

// mustMapped returns a mapped.File in a temporary directory that maps
// every array, closed when the test ends.
func mustMapped(t *testing.T) *mapped.File {
	t.Helper()
	f, err := mapped.Create(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	f.SetMinBytes(1)
	t.Cleanup(func() { f.Close() })
	return f
}
