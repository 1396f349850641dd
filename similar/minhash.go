package similar

import (
	"errors"
	"fmt"
	"math/bits"
	"math/rand/v2"
	"slices"
	"sync"

	"github.com/cespare/xxhash/v2"
)

// MinHash estimates the Jaccard similarity of the word-shingle sets of two
// texts: the minimum of a random hash over a set's elements is
// the same for two sets with probability equal to their Jaccard
// similarity. A signature holds Rows × Bands minimums; Rows consecutive
// minimums make one band key (a cluster id: both sets must agree on all of
// them, which favours precision) and the Bands bands are alternatives (any
// one shared band makes two documents candidates, which favours recall).
// The hash functions are (a + b·x) mod (2^61 − 1) with a, b drawn from Seed.
//
// A MinHash is immutable and safe for concurrent use.
type MinHash struct {
	o    Options
	a, b []uint64
}

// Options configure a [MinHash]. The zero value gives the defaults.
type Options struct {
	Rows    int    // minimums per band; default 4 (p)
	Bands   int    // bands; default 6 (q)
	Shingle int    // words per shingle; default 3
	Seed    uint64 // seed of the hash functions; default 3
}

const mersenne61 = 1<<61 - 1

// ErrOptions is wrapped by New for invalid Options.
var ErrOptions = errors.New("similar: invalid MinHash options")

// New returns a MinHash with options o; it fails for negative
// options.
func New(o Options) (*MinHash, error) {
	if o.Rows < 0 || o.Bands < 0 || o.Shingle < 0 {
		return nil, fmt.Errorf("%w: Options %+v", ErrOptions, o)
	}
	if o.Rows == 0 {
		o.Rows = 4
	}
	if o.Bands == 0 {
		o.Bands = 6
	}
	if o.Shingle == 0 {
		o.Shingle = 3
	}
	if o.Seed == 0 {
		o.Seed = 3
	}
	m := &MinHash{o: o}
	r := rand.New(rand.NewPCG(o.Seed, 0x3141))
	for i := 0; i < o.Rows*o.Bands; i++ {
		m.a = append(m.a, r.Uint64N(mersenne61))
		m.b = append(m.b, 1+r.Uint64N(mersenne61-1))
	}
	return m, nil
}

// Options returns the options in effect (defaults filled in).
func (m *MinHash) Options() Options { return m.o }

// mulmod61 returns x·y mod 2^61−1 for x, y < 2^61−1.
func mulmod61(x, y uint64) uint64 {
	hi, lo := bits.Mul64(x, y)
	// x·y = hi·2^64 + lo; 2^64 ≡ 8 (mod 2^61−1)
	r := (lo & mersenne61) + (lo >> 61) + (hi << 3)
	r = (r & mersenne61) + (r >> 61)
	if r >= mersenne61 {
		r -= mersenne61
	}
	return r
}

// Signature returns the Rows×Bands minimums of the shingles of words (nil
// when words is empty).
func (m *MinHash) Signature(words []string) []uint64 {
	hs := FeatureHashes(nil, words, m.o.Shingle)
	if len(hs) == 0 {
		return nil
	}
	hs = distinct(hs)
	sig := make([]uint64, len(m.a))
	for i := range sig {
		sig[i] = mersenne61
	}
	for _, h := range hs {
		x := h % mersenne61
		for i := range sig {
			v := m.a[i] + mulmod61(m.b[i], x)
			if v >= mersenne61 {
				v -= mersenne61
			}
			if v < sig[i] {
				sig[i] = v
			}
		}
	}
	return sig
}

// distinct returns the distinct values of hs (in hs's storage, in no
// particular order), through an open-addressing table: O(n), where the
// sort it replaces took two thirds of a Signature's time (265 of 400 µs
// on a 7,000-word page).
func distinct(hs []uint64) []uint64 {
	n := 16
	for n < 2*len(hs) {
		n <<= 1
	}
	table := make([]uint64, n) // 0 = empty slot; the value 0 is tracked apart
	mask := uint64(n - 1)
	out := hs[:0]
	zero := false
	for _, h := range hs {
		if h == 0 {
			if !zero {
				zero = true
				out = append(out, 0)
			}
			continue
		}
		i := Mix64(h) & mask
		for table[i] != 0 && table[i] != h {
			i = (i + 1) & mask
		}
		if table[i] == 0 {
			table[i] = h
			out = append(out, h)
		}
	}
	return out
}

// Bands returns the band keys (cluster ids) of a signature: band i hashes
// its Rows minimums together with i.
func (m *MinHash) Bands(sig []uint64) []uint64 {
	if len(sig) == 0 {
		return nil
	}
	out := make([]uint64, m.o.Bands)
	var buf [8]byte
	for i := range out {
		d := xxhash.New()
		buf[0] = byte(i)
		d.Write(buf[:1])
		for _, v := range sig[i*m.o.Rows : (i+1)*m.o.Rows] {
			for j := range buf {
				buf[j] = byte(v >> (8 * j))
			}
			d.Write(buf[:])
		}
		out[i] = d.Sum64()
	}
	return out
}

// Estimate returns the fraction of equal positions of two signatures of
// one MinHash: an unbiased estimate of the Jaccard similarity of the two
// sets. It is 0 when the lengths differ or are 0.
func Estimate(a, b []uint64) float64 {
	if len(a) != len(b) || len(a) == 0 {
		return 0
	}
	n := 0
	for i := range a {
		if a[i] == b[i] {
			n++
		}
	}
	return float64(n) / float64(len(a))
}

// Index is an in-memory inverted index of MinHash clustering: band key → documents. It finds
// the documents sharing at least one band with a query, ranked by how many
// bands they share. Safe for concurrent use.
type Index struct {
	m     *MinHash
	mu    sync.RWMutex
	bands map[uint64][]uint64 // band key → docIds
	sigs  map[uint64][]uint64 // docId → signature
}

// NewIndex returns an empty index over signatures of m.
func NewIndex(m *MinHash) *Index {
	return &Index{m: m, bands: map[uint64][]uint64{}, sigs: map[uint64][]uint64{}}
}

// Add remembers docID with signature sig (replacing an earlier one is not
// supported: adding a docId twice lists it twice).
func (x *Index) Add(docID uint64, sig []uint64) {
	keys := x.m.Bands(sig)
	x.mu.Lock()
	defer x.mu.Unlock()
	x.sigs[docID] = sig
	for _, k := range keys {
		x.bands[k] = append(x.bands[k], docID)
	}
}

// Len returns the number of documents added.
func (x *Index) Len() int {
	x.mu.RLock()
	defer x.mu.RUnlock()
	return len(x.sigs)
}

// Neighbor is a document similar to a query.
type Neighbor struct {
	DocID   uint64
	Bands   int     // bands shared with the query
	Jaccard float64 // estimated from the full signatures
}

// Similar returns the documents that share at least one band with sig,
// most shared bands first (then highest estimated Jaccard, then docId), at
// most limit of them (limit <= 0: all).
func (x *Index) Similar(sig []uint64, limit int) []Neighbor {
	keys := x.m.Bands(sig)
	x.mu.RLock()
	defer x.mu.RUnlock()
	count := map[uint64]int{}
	for _, k := range keys {
		for _, id := range x.bands[k] {
			count[id]++
		}
	}
	out := make([]Neighbor, 0, len(count))
	for id, n := range count {
		out = append(out, Neighbor{DocID: id, Bands: n, Jaccard: Estimate(sig, x.sigs[id])})
	}
	slices.SortFunc(out, func(a, b Neighbor) int {
		switch {
		case a.Bands != b.Bands:
			return b.Bands - a.Bands
		case a.Jaccard != b.Jaccard:
			if a.Jaccard > b.Jaccard {
				return -1
			}
			return 1
		case a.DocID < b.DocID:
			return -1
		case a.DocID > b.DocID:
			return 1
		}
		return 0
	})
	if limit > 0 && len(out) > limit {
		out = out[:limit]
	}
	return out
}
