package contentdedup

import "slices"

// SimilarRows and SimilarBands are MinHash clustering's p and q: 4 minimums per
// band key, 6 bands.
const (
	SimilarRows  = 4
	SimilarBands = 6
)

// Similarity is a document's entry in a similar-pages index (MinHash bands):
// the MinHash signature of its word set and the band keys of that
// signature. Two documents sharing a band key are candidates; Sig
// estimates their Jaccard similarity ([EstimateJaccard]). Arrays keep it
// (and Verdict) comparable with ==.
type Similarity struct {
	Sig   [SimilarRows * SimilarBands]uint64 // the minimums
	Bands [SimilarBands]uint64               // one key per band
}

// IsZero reports whether s is empty (a text without words).
func (s *Similarity) IsZero() bool { return *s == Similarity{} }

// SimilarOptions are the MinHash options of similar pages: p =
// SimilarRows minimums per band key and q = SimilarBands bands, over the
// set of a text's words (Shingle 1: gse words, stop words out), hash
// functions (a + b·x) mod 2^61−1 from Seed 3. Stores keep the result with
// each document; changing them needs a rebuild of the index.
var SimilarOptions = MinHashOptions{Rows: SimilarRows, Bands: SimilarBands, Shingle: 1, Seed: 3}

// SimilarMinHash returns the MinHash of [SimilarOptions].
func SimilarMinHash() *MinHash {
	m, err := NewMinHash(SimilarOptions)
	if err != nil {
		panic(err) // constant, valid options
	}
	return m
}

// similarity returns the Similarity of a set of words with m (a MinHash
// of SimilarOptions); zero when words is empty.
func similarity(m *MinHash, words []string) Similarity {
	var s Similarity
	sig := m.Signature(words)
	if sig == nil {
		return s
	}
	copy(s.Sig[:], sig)
	copy(s.Bands[:], m.Bands(sig))
	return s
}

// Similarity returns the similar-pages entry of a stored text, as Check
// gives it to a new document: the tokenizer's words of text, MinHash of
// [SimilarOptions]. It is how a store indexed before Check gave one is
// filled in.
func (d *Deduper) Similarity(text string) Similarity {
	m := d.sim
	if m == nil {
		m = SimilarMinHash()
	}
	return similarity(m, d.tok.Tokens(nil, text))
}

// WordSet returns the distinct words of text as the similar-pages MinHash
// sees them (sorted): the exact set whose Jaccard similarity the
// signatures estimate.
func (t *Tokenizer) WordSet(text string) []string {
	w := t.Tokens(nil, text)
	slices.Sort(w)
	return slices.Compact(w)
}
