package dedupstore

import (
	"context"
	"errors"
	"fmt"

	"github.com/bloomcrawl/bloomcrawl/contentdedup"
	"github.com/bloomcrawl/bloomcrawl/storage"
)

// SetSimilarity puts a new document's similar-pages entry (the verdict's
// contentdedup.Similarity; zero for none) on the page to commit, so that the
// store writes it in the page's transaction.
func SetSimilarity(p *storage.Page, s contentdedup.Similarity) {
	if p == nil || s.IsZero() {
		return
	}
	p.MinHash, p.MinHashBands = s.Sig[:], s.Bands[:]
}

// SimilarStore is the part of *storage.DB that IndexSimilar uses.
type SimilarStore interface {
	MinHashMissing(ctx context.Context) ([]storage.DocID, error)
	Page(docID storage.DocID) (storage.Page, error)
	PutMinHash(ctx context.Context, docID storage.DocID, bands, sig []uint64) error
}

// Similarizer computes a stored text's similar-pages entry
// (*contentdedup.Deduper).
type Similarizer interface {
	Similarity(text string) contentdedup.Similarity
}

// IndexSimilar gives every stored page that has no similar-pages entry one
// (pages stored before the index existed), from its stored text, and
// returns how many it wrote. Pages written since carry their entry in
// their own commit, so a resumed crawl or a restarted service has a
// complete index after it. A read-only store is left as it is (0, nil).
func IndexSimilar(ctx context.Context, sim Similarizer, st SimilarStore) (int, error) {
	missing, err := st.MinHashMissing(ctx)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, id := range missing {
		p, err := st.Page(id)
		if err != nil {
			return n, fmt.Errorf("index similar pages: %w", err)
		}
		s := sim.Similarity(p.Text)
		if s.IsZero() {
			continue // no words: no entry (looked at again next time)
		}
		err = st.PutMinHash(ctx, id, s.Bands[:], s.Sig[:])
		if errors.Is(err, storage.ErrReadOnly) {
			return n, nil
		}
		if err != nil {
			return n, fmt.Errorf("index similar pages: %w", err)
		}
		n++
	}
	return n, nil
}
