package contentdedup

import (
	"errors"
	"fmt"
	"math"
	"math/bits"
	"slices"
	"sync"

	"github.com/bloomcrawl/bloomcrawl/internal/mapped"
)

// MaxThreshold is the largest Hamming distance an [Index] (and a [Deduper])
// accepts.
const MaxThreshold = 6

// Recent inserts reach the big sorted tables in two steps, so that neither
// the scan of unsorted inserts (by every query) nor the merges (which copy
// a table) grow with the Index like its size: a buffer of pendingSize
// unsorted fingerprints is sorted into small "mid" tables, and the mid
// tables are merged into the big ones when they hold midLimit(n). A merge
// into the mid tables copies about m/2 entries per table for pendingSize
// inserts and a merge into the big tables n for m, so m = sqrt(2·n·
// pendingSize) makes each insert copy about 2·sqrt(n/(2·pendingSize))
// entries per table: 200 at 10M members (one level with a buffer of n/128
// copied 128 per insert but scanned 65,536 pending fingerprints per query
// at 10M, BenchmarkIndexCrawlStep).
const (
	pendingSize = 512
	midMin      = 4096
)

// midLimit is the number of mid-table entries that are merged into big
// tables of n entries.
func midLimit(n int) int {
	return max(midMin, int(math.Sqrt(2*float64(n)*pendingSize)))
}

// Index is a set of 64-bit fingerprints that finds, exactly, every member
// within Hamming distance K of a query without scanning the set: the
// permuted-table scheme of Manku, Jain and Das Sarma (WWW 2007), with the
// probing of multi-index hashing (Norouzi, Punjani and Fleet, CVPR 2012)
// above K = 3.
//
// For K <= 3 the 64 bits are split into K + 1 contiguous blocks and one
// table is kept per block: the table holds every fingerprint with its bits
// permuted so that the block comes first, sorted. Two fingerprints within
// distance K differ in at most K blocks, so they agree on at least one
// (pigeonhole); a query looks up its own key in each table and checks the
// distance of the entries that share it. For K = 4..6 the bits are split
// into 4 blocks of 16: two fingerprints within distance 6 differ by at most
// one bit in at least one block (four blocks of two or more would make 8),
// so a query looks up, in each table, its key and the 16 keys one bit away.
// Memory is 8 bytes per fingerprint per table: K+1 tables (4 at most) for
// K <= 3, 4 tables for K >= 4 (the earlier two-block keys took C(K+2, 2)
// tables: 28 for K = 6, 224 bytes per fingerprint).
//
// Recent inserts wait in a small unsorted buffer (scanned by every query)
// and are merged into the tables in batches. All methods are safe for
// concurrent use; queries run in parallel with each other.
type Index struct {
	k      int
	widths []int    // block widths, most significant block first
	shifts []uint   // position of each block's lowest bit
	tables []*table // one per block
	mids   []*table // the mid level: same order as tables, fewer entries
	// probe lists the bit flips of a table key a query looks up (0 = the
	// key itself, then each single bit of the key when K > 3).
	probe []uint64

	mf *mapped.File // where the big tables live (nil: the heap)

	mu      sync.RWMutex
	pending []uint64 // unsorted, distinct, not in the tables
	n       int      // members in the big tables
	nMid    int      // members in the mid tables
}

type table struct {
	order []int // block numbers, key blocks first
	shift uint  // 64 - key bits
	fps   []uint64
	// dir[p] is the first entry of fps whose top dirBits bits are >= p:
	// a lookup reads two words instead of binary-searching the table.
	dir     []uint32
	dirBits uint
}

// buildDir rebuilds t's directory for its current entries.
func (t *table) buildDir() {
	keyBits := 64 - t.shift
	db := uint(bits.Len(uint(len(t.fps))))
	db = min(db, keyBits, 18)
	t.dirBits = db
	t.dir = grow(t.dir, 1<<db+1)
	p := 0
	for i, fp := range t.fps {
		top := int(fp >> (64 - db))
		if db == 0 {
			top = 0
		}
		for p <= top {
			t.dir[p] = uint32(i)
			p++
		}
	}
	for ; p < len(t.dir); p++ {
		t.dir[p] = uint32(len(t.fps))
	}
}

// keyRange returns the range of t.fps whose key equals key (pq's key).
func (t *table) keyRange(pq uint64) (lo, hi int) {
	key := pq >> t.shift
	if t.dirBits == 0 {
		lo, hi = 0, len(t.fps)
	} else {
		top := pq >> (64 - t.dirBits)
		lo, hi = int(t.dir[top]), int(t.dir[top+1])
	}
	if t.dirBits == 64-t.shift {
		return lo, hi
	}
	// the directory narrowed the range; find the key inside it
	end := hi
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if t.fps[m]>>t.shift < key {
			lo = m + 1
		} else {
			hi = m
		}
	}
	hi = lo
	for hi < end && t.fps[hi]>>t.shift == key {
		hi++
	}
	return lo, hi
}

// NewIndex returns an empty Index for distance k (0..MaxThreshold).
func NewIndex(k int) (*Index, error) {
	if k < 0 || k > MaxThreshold {
		return nil, fmt.Errorf("%w: %d", ErrThreshold, k)
	}
	nb, radius := k+1, 0
	if k >= 4 {
		nb, radius = 4, 1 // k < 4*(radius+1)
	}
	x := &Index{k: k, widths: make([]int, nb)}
	for i := range x.widths {
		x.widths[i] = 64 / nb
		if i < 64%nb {
			x.widths[i]++
		}
	}
	pos := 64
	for _, w := range x.widths {
		pos -= w
		x.shifts = append(x.shifts, uint(pos))
	}
	for key := range nb {
		order := []int{key}
		for b := 0; b < nb; b++ {
			if b != key {
				order = append(order, b)
			}
		}
		x.tables = append(x.tables, &table{order: order, shift: uint(64 - x.widths[key])})
		x.mids = append(x.mids, &table{order: order, shift: uint(64 - x.widths[key])})
	}
	x.probe = []uint64{0}
	if radius == 1 {
		// every table's key has the same width here (64/4)
		for bit := range x.widths[0] {
			x.probe = append(x.probe, 1<<(63-uint(bit)))
		}
	}
	return x, nil
}

// K returns the distance the Index answers for.
func (x *Index) K() int { return x.k }

// Tables returns the number of permuted tables (memory is 8 bytes per
// fingerprint per table).
func (x *Index) Tables() int { return len(x.tables) }

// Len returns the number of distinct fingerprints in the Index.
func (x *Index) Len() int {
	x.mu.RLock()
	defer x.mu.RUnlock()
	return x.n + x.nMid + len(x.pending)
}

// permute reorders the blocks of fp into t's order.
func (x *Index) permute(t *table, fp uint64) uint64 {
	var out uint64
	for _, b := range t.order {
		w := x.widths[b]
		out = out<<uint(w) | x.block(fp, b)
	}
	return out
}

// block returns block b of fp (block 0 holds the most significant bits).
func (x *Index) block(fp uint64, b int) uint64 {
	w := x.widths[b]
	if w == 64 {
		return fp
	}
	return fp >> x.shifts[b] & (1<<uint(w) - 1)
}

// unpermute is the inverse of permute.
func (x *Index) unpermute(t *table, p uint64) uint64 {
	var fp uint64
	pos := 64
	for _, b := range t.order {
		w := x.widths[b]
		pos -= w
		var v uint64
		if w == 64 {
			v = p
		} else {
			v = p >> uint(pos) & (1<<uint(w) - 1)
		}
		fp |= v << x.shifts[b]
	}
	return fp
}

// Add inserts fp and reports whether it was new.
func (x *Index) Add(fp uint64) bool {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.containsLocked(fp) {
		return false
	}
	x.pending = append(x.pending, fp)
	if len(x.pending) >= pendingSize {
		x.nMid += len(x.pending)
		x.mergeLocked(x.mids, x.pending)
		x.pending = x.pending[:0]
		if x.nMid >= midLimit(x.n) {
			x.flushLocked()
		}
	}
	return true
}

// AddBatch inserts every fingerprint of fps (duplicates are kept once) with
// one sort per table: the fast way to rebuild an Index at start-up. fps is
// not modified.
func (x *Index) AddBatch(fps []uint64) {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.pending = append(x.pending, fps...)
	x.flushLocked()
}

// flushLocked merges the pending fingerprints and the mid tables into the
// big tables.
func (x *Index) flushLocked() {
	if x.nMid > 0 {
		x.mergeLocked(x.tables, nil)
		x.nMid = 0
	}
	if len(x.pending) > 0 {
		x.mergeLocked(x.tables, x.pending)
		x.pending = x.pending[:0]
	}
	x.n = len(x.tables[0].fps)
}

// mergeLocked merges fps (distinct fingerprints, in no order) into the
// tables of one level, each permuted into its table's order; with fps nil
// it merges the mid tables into tables (the big ones) and empties them.
// The tables are sorted in parallel.
func (x *Index) mergeLocked(tables []*table, fps []uint64) {
	big := len(tables) > 0 && tables[0] == x.tables[0]
	var wg sync.WaitGroup
	for i, t := range tables {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var add []uint64
			if fps == nil {
				add = x.mids[i].fps
			} else {
				add = make([]uint64, len(fps))
				for j, fp := range fps {
					add[j] = x.permute(t, fp)
				}
				slices.Sort(add)
				add = slices.Compact(add)
			}
			var mf *mapped.File
			if big {
				mf = x.mf
			}
			t.fps = mergeSorted(mf, t.fps, add)
			t.buildDir()
			if fps == nil {
				x.mids[i].fps = add[:0]
				x.mids[i].buildDir()
			}
		}()
	}
	wg.Wait()
}

// mergeSorted merges two sorted, internally distinct slices into one sorted
// distinct slice (reusing a's storage when it has room; grown in mf when
// not nil, see mapped.Grow).
func mergeSorted(mf *mapped.File, a, b []uint64) []uint64 {
	if len(a) == 0 && mf == nil {
		return append([]uint64(nil), b...)
	}
	out := mapped.Grow(mf, a, len(b))[:len(a)+len(b)]
	a = out[:len(a)] // a's elements, where Grow put them (the old array may be freed)
	// merge from the back so that a's elements are not overwritten early
	i, j, k := len(a)-1, len(b)-1, len(out)-1
	for j >= 0 {
		if i >= 0 && a[i] > b[j] {
			out[k] = a[i]
			i--
		} else {
			out[k] = b[j]
			j--
		}
		k--
	}
	return slices.Compact(out)
}

// Contains reports whether fp is in the Index.
func (x *Index) Contains(fp uint64) bool {
	x.mu.RLock()
	defer x.mu.RUnlock()
	return x.containsLocked(fp)
}

func (x *Index) containsLocked(fp uint64) bool {
	if slices.Contains(x.pending, fp) {
		return true
	}
	for _, t := range []*table{x.tables[0], x.mids[0]} {
		pq := x.permute(t, fp)
		lo, hi := t.keyRange(pq)
		if _, found := slices.BinarySearch(t.fps[lo:hi], pq); found {
			return true
		}
	}
	return false
}

// Within appends to dst every member within distance K of q, in ascending
// order, and returns it. The result is the same as [LinearScan] over the
// members.
func (x *Index) Within(q uint64, dst []uint64) []uint64 {
	start := len(dst)
	x.mu.RLock()
	for _, fp := range x.pending {
		if bits.OnesCount64(fp^q) <= x.k {
			dst = append(dst, fp)
		}
	}
	for i, t := range x.tables {
		pq := x.permute(t, q)
		for _, t := range []*table{t, x.mids[i]} {
			for _, flip := range x.probe {
				lo, hi := t.keyRange(pq ^ flip)
				for _, p := range t.fps[lo:hi] {
					if bits.OnesCount64(p^pq) <= x.k {
						dst = append(dst, x.unpermute(t, p))
					}
				}
			}
		}
	}
	x.mu.RUnlock()
	res := dst[start:]
	slices.Sort(res)
	return dst[:start+len(slices.Compact(res))]
}

// Nearest returns the member closest to q within distance K (the smallest
// fingerprint among equally close ones), or ok=false if there is none.
func (x *Index) Nearest(q uint64) (fp uint64, dist int, ok bool) {
	var buf [16]uint64
	dist = 65
	for _, m := range x.Within(q, buf[:0]) {
		if d := bits.OnesCount64(m ^ q); d < dist {
			fp, dist, ok = m, d, true
		}
	}
	return fp, dist, ok
}

// ErrThreshold is returned for a Hamming threshold outside 0..MaxThreshold.
var ErrThreshold = errors.New("contentdedup: threshold out of range 0..6")

// LinearScan appends to dst every fingerprint of fps within distance k of q,
// in the order of fps: the reference an [Index] is checked against.
func LinearScan(fps []uint64, q uint64, k int, dst []uint64) []uint64 {
	for _, fp := range fps {
		if bits.OnesCount64(fp^q) <= k {
			dst = append(dst, fp)
		}
	}
	return dst
}
