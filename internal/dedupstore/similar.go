package dedupstore

import (
	"context"
	"errors"
	"fmt"

	"github.com/bloomcrawl/bloomcrawl/similar"
	"github.com/bloomcrawl/bloomcrawl/storage"
)

// SetSimilarity puts a new document's similar-pages entry (the verdict's
// similar.Entry; zero for none) on the page to commit, so that the
// store writes it in the page's transaction.
func SetSimilarity(p *storage.Page, s similar.Entry) {
	if p == nil || s.IsZero() {
		return
	}
	p.MinHash, p.MinHashBands = s.Sig[:], s.Bands[:]
}

// SimilarStore is the part of *storage.DB that IndexSimilar uses.
type SimilarStore interface {
	MinHashMissing(ctx context.Context) ([]storage.DocID, error)
	ForEachFingerprint(ctx context.Context, fn func(storage.Fingerprint) error) error
	Page(docID storage.DocID) (storage.Page, error)
	PutMinHash(ctx context.Context, docID storage.DocID, bands, sig []uint64) error
	GetMeta(key string) ([]byte, error)
	PutMeta(key string, val []byte) error
}

// Similarizer computes a stored text's similar-pages entry
// (*contentdedup.Deduper).
type Similarizer interface {
	Similarity(text string) similar.Entry
}

// similarParamsKey is the store's meta key naming the MinHash parameters
// its similar-pages entries were computed with.
const similarParamsKey = "similar/params"

// IndexSimilar makes the store's similar-pages index complete for the
// current parameters ([similar.Params]) and returns how many entries it
// wrote: every stored page without an entry gets one from its stored text
// (pages stored before the index existed), and when the store records
// other parameters every page is indexed again. Pages written since carry
// their entry in their own commit, so a resumed crawl or a restarted
// service has a complete index after it. A store that refuses writes
// (read-only, or a full disk) is left as it is, without an error; the
// next start finishes. Pages without words get no entry and are looked
// at again next time.
func IndexSimilar(ctx context.Context, sim Similarizer, st SimilarStore) (int, error) {
	want := similar.Params()
	got, err := st.GetMeta(similarParamsKey)
	var ids []storage.DocID
	switch {
	case err == nil && string(got) != want:
		// Entries of another parameter set: none of them compares with
		// a new page's, so every page is indexed again.
		err = st.ForEachFingerprint(ctx, func(f storage.Fingerprint) error {
			ids = append(ids, f.DocID)
			return nil
		})
	case err == nil, errors.Is(err, storage.ErrNotFound):
		ids, err = st.MinHashMissing(ctx)
	}
	if err != nil {
		return 0, fmt.Errorf("index similar pages: %w", err)
	}
	n := 0
	for _, id := range ids {
		p, err := st.Page(id)
		if err != nil {
			return n, fmt.Errorf("index similar pages: %w", err)
		}
		s := sim.Similarity(p.Text)
		if s.IsZero() {
			continue
		}
		err = st.PutMinHash(ctx, id, s.Bands[:], s.Sig[:])
		if cannotWrite(err) {
			return n, nil // left for the next start; the parameters stay unrecorded
		}
		if err != nil {
			return n, fmt.Errorf("index similar pages: %w", err)
		}
		n++
	}
	if string(got) != want {
		if err := st.PutMeta(similarParamsKey, []byte(want)); err != nil && !cannotWrite(err) {
			return n, fmt.Errorf("index similar pages: %w", err)
		}
	}
	return n, nil
}

// cannotWrite reports a store that refuses writes for now (read-only, or
// its disk below the reserve): IndexSimilar then stops without an error,
// so that a store can still be read, and the next start finishes the job.
func cannotWrite(err error) bool {
	return errors.Is(err, storage.ErrReadOnly) || errors.Is(err, storage.ErrNoSpace)
}
