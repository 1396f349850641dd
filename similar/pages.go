package similar

import "fmt"

// Rows and Bands are the similar-pages index's p and q: 4 minimums per
// band key, 6 bands.
const (
	Rows  = 4
	Bands = 6
)

// Entry is a document's entry in a similar-pages index: the MinHash
// signature of its word set and the band keys of that signature. Two
// documents sharing a band key are candidates; Sig estimates their Jaccard
// similarity ([Estimate]). Arrays keep it comparable with ==.
type Entry struct {
	Sig   [Rows * Bands]uint64 // the minimums
	Bands [Bands]uint64        // one key per band
}

// IsZero reports whether e is empty (a text without words).
func (e *Entry) IsZero() bool { return *e == Entry{} }

// PageOptions are the MinHash options of similar pages: p = Rows minimums
// per band key and q = Bands bands, over the set of a text's words
// (Shingle 1), hash functions (a + b·x) mod 2^61−1 from Seed 3. Stores
// keep the result with each document; changing them needs a rebuild of
// the index ([Params] names them in the store).
var PageOptions = Options{Rows: Rows, Bands: Bands, Shingle: 1, Seed: 3}

// NewPages returns the MinHash of [PageOptions].
func NewPages() *MinHash {
	m, err := New(PageOptions)
	if err != nil {
		panic(err) // constant, valid options
	}
	return m
}

// Of returns the Entry of a set of words with m (a MinHash of
// PageOptions); zero when words is empty.
func Of(m *MinHash, words []string) Entry {
	var e Entry
	sig := m.Signature(words)
	if sig == nil {
		return e
	}
	copy(e.Sig[:], sig)
	copy(e.Bands[:], m.Bands(sig))
	return e
}

// Params names [PageOptions] as a store records them: a store whose
// entries were computed with other parameters is indexed again.
func Params() string {
	o := PageOptions
	return fmt.Sprintf("minhash rows=%d bands=%d shingle=%d seed=%d", o.Rows, o.Bands, o.Shingle, o.Seed)
}
