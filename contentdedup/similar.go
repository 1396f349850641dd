package contentdedup

import (
	"slices"

	"github.com/bloomcrawl/bloomcrawl/similar"
)

// Similarity returns the similar-pages entry of a stored text, as Check
// gives it to a new document: the tokenizer's words of text, MinHash of
// [similar.PageOptions]. It is how a store indexed before Check gave one
// is filled in.
func (d *Deduper) Similarity(text string) similar.Entry {
	m := d.sim
	if m == nil {
		m = similar.NewPages()
	}
	return similar.Of(m, d.tok.Tokens(nil, text))
}

// WordSet returns the distinct words of text as the similar-pages MinHash
// sees them (sorted): the exact set whose Jaccard similarity the
// signatures estimate.
func (t *Tokenizer) WordSet(text string) []string {
	w := t.Tokens(nil, text)
	slices.Sort(w)
	return slices.Compact(w)
}
