package frontier

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// checkCache verifies the cache's structure: every entry between head and
// end has exactly one slot, found from its home, and n counts them.
func checkCache(t *testing.T, c *urlCache) {
	t.Helper()
	entries := 0
	size := uint64(len(c.ring))
	for p := c.head; p < c.end; {
		off := p % size
		if off+cacheHdr > size {
			p += size - off
			continue
		}
		l := uint64(c.ring[off]) | uint64(c.ring[off+1])<<8
		if l == cacheGap {
			p += size - off
			continue
		}
		u := string(c.entry(int(off)))
		i := c.find(u, c.hash(u))
		if i < 0 || int(uint32(c.slots[i]))-1 != int(off) {
			t.Fatalf("entry %q at %d: find gives slot %d", u, off, i)
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
}

// TestURLCacheExact: against an exact record of what was added, the cache
// never reports a URL it was not given, keeps the URLs added last (within
// its bytes and entry limit), and stays consistent as the oldest are
// overwritten, for caches from a few entries (long probe runs that wrap
// around the table) to many, URLs of many lengths, with repeats.
func TestURLCacheExact(t *testing.T) {
	for _, size := range []int{256, 1000, 4096, 1 << 16} {
		t.Run(fmt.Sprint(size), func(t *testing.T) {
			c := newURLCache(size)
			if c.bytes() > size {
				t.Fatalf("cache of %d bytes holds %d", size, c.bytes())
			}
			r := rand.New(rand.NewPCG(uint64(size), 7))
			added := map[string]bool{}
			var order []string // distinct URLs in the order first added
			for step := range 20_000 {
				u := fmt.Sprintf("http://h/%d%s", r.IntN(3000), strings.Repeat("x", r.IntN(40)))
				had := c.has(u)
				if had && !added[u] {
					t.Fatalf("step %d: has(%q) before it was added", step, u)
				}
				c.add(u)
				if !added[u] {
					added[u] = true
					order = append(order, u)
				}
				if cacheHdr+len(u) <= len(c.ring)/8 && !had && !c.has(u) {
					t.Fatalf("step %d: %q not held right after add", step, u)
				}
				if step%997 == 0 {
					checkCache(t, c)
				}
			}
			checkCache(t, c)
			// Every URL it holds was added: the held URLs among those
			// added are all its entries.
			held := 0
			for _, u := range order {
				if c.has(u) {
					held++
				}
			}
			if held != c.n {
				t.Errorf("%d of the added URLs held, n = %d", held, c.n)
			}
			if c.n == 0 && len(c.slots) > 0 {
				t.Errorf("cache of %d bytes holds nothing", size)
			}
			for _, u := range []string{"http://h/none", "", "http://h/1" + strings.Repeat("y", 50)} {
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
	c := newURLCache(1 << 20)
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
	for _, size := range []int{-1, 0, 100} {
		c := newURLCache(size)
		c.add("http://a/")
		if c.has("http://a/") || c.bytes() != 0 {
			t.Errorf("cache of %d bytes: has %v, %d bytes", size, c.has("http://a/"), c.bytes())
		}
	}
}

func BenchmarkURLCache(b *testing.B) {
	c := newURLCache(DefaultRecentBytes)
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
