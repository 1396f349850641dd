// Package dedupstore is the one place where contentdedup's signatures meet
// storage's records, so that contentdedup and storage stay unaware of each
// other. It rebuilds a content-dedup index from a store (Restore), makes a
// store's similar-pages index complete (IndexSimilar), and puts a verdict's
// signatures on what a commit writes (SetDuplicateSignature,
// SetSimilarity). Both the crawler (resume) and the api service (start-up)
// use it.
package dedupstore

import (
	"context"
	"fmt"

	"github.com/bloomcrawl/bloomcrawl/contentdedup"
	"github.com/bloomcrawl/bloomcrawl/storage"
)

// Source is the part of *storage.DB a rebuild reads.
type Source interface {
	ForEachFingerprint(ctx context.Context, fn func(storage.Fingerprint) error) error
	ForEachURL(ctx context.Context, fn func(storage.URLRecord) error) error
}

// Index is the part of *contentdedup.Deduper a rebuild fills.
type Index interface {
	RestoreDoc(docID uint64, url string, sig contentdedup.Signature)
	RestoreURL(url string, docID uint64)
	RestoreAlias(docID uint64, sig contentdedup.Signature)
}

// Restore loads everything src holds into idx: the signature of every stored
// document, then every URL that maps to a document (new documents and
// duplicates alike), with the content signature of each near-duplicate that
// has one stored (see [DuplicateSignature]). onURL, if not nil, sees every
// URL record as it is read (the crawler rebuilds its URL filter from the
// same scan). When src is also a [SimilarStore] and idx a [Similarizer]
// (a *storage.DB and a *contentdedup.Deduper), it then runs
// [IndexSimilar]. Cancelling ctx stops it with ctx.Err() (the scans check
// it); a damaged sketch is an error naming the document or URL.
func Restore(ctx context.Context, idx Index, src Source, onURL func(storage.URLRecord)) error {
	err := src.ForEachFingerprint(ctx, func(f storage.Fingerprint) error {
		sk, err := contentdedup.SketchFromBytes(f.Sketch)
		if err != nil {
			return fmt.Errorf("document %s: %w", f.DocID, err)
		}
		idx.RestoreDoc(uint64(f.DocID), f.URL, contentdedup.Signature{Title: f.TitleFP, Content: f.ContentFP, Flags: f.FPFlags, Sketch: sk})
		return nil
	})
	if err != nil {
		return fmt.Errorf("restore dedup index: fingerprints: %w", err)
	}
	err = src.ForEachURL(ctx, func(r storage.URLRecord) error {
		if onURL != nil {
			onURL(r)
		}
		if r.DocID == 0 {
			return nil
		}
		idx.RestoreURL(r.URL, uint64(r.DocID))
		sig, ok, err := DuplicateSignature(r)
		if err != nil {
			return err
		}
		if ok {
			idx.RestoreAlias(uint64(r.DocID), sig)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("restore dedup index: urls: %w", err)
	}
	// The similar-pages index lives in the store; fill in pages stored
	// before it existed when both sides can.
	if sst, ok := src.(SimilarStore); ok {
		if sim, ok := idx.(Similarizer); ok {
			if _, err := IndexSimilar(ctx, sim, sst); err != nil {
				return err
			}
		}
	}
	return nil
}

// DuplicateSignature returns the content signature stored with a
// near-duplicate's URL record (for contentdedup.Deduper.RestoreAlias), and
// false for records without one: new documents, URL-step and redirect
// duplicates, and records written before signatures were stored.
func DuplicateSignature(r storage.URLRecord) (contentdedup.Signature, bool, error) {
	if !r.Duplicate || r.DocID == 0 || !r.HasSignature() {
		return contentdedup.Signature{}, false, nil
	}
	sk, err := contentdedup.SketchFromBytes(r.Sketch)
	if err != nil {
		return contentdedup.Signature{}, false, fmt.Errorf("URL record %q: %w", r.URL, err)
	}
	return contentdedup.Signature{Content: r.ContentFP, Flags: r.FPFlags, Sketch: sk}, true, nil
}

// SetDuplicateSignature stores sig's content part on a near-duplicate's URL
// record, where DuplicateSignature finds it again after a restart.
func SetDuplicateSignature(r *storage.URLRecord, sig contentdedup.Signature) {
	r.ContentFP, r.FPFlags, r.Sketch = sig.Content, sig.Flags, sig.Sketch.Bytes()
}
