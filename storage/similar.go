package storage

import (
	"bytes"
	"cmp"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"

	"github.com/dgraph-io/badger/v4"

	"github.com/bloomcrawl/bloomcrawl/similar"
)

// The similar-pages index (MinHash bands): per stored page its MinHash
// signature and band keys, and an inverted index band key → pages.
const (
	nsMinHash = 'w' // w <docID> → band keys and signature
	nsBand    = 'n' // n <band key> <docID> → (empty)
)

func minHashKey(docID DocID) []byte { return u64key(nsMinHash, uint64(docID)) }

func bandKey(band uint64, docID DocID) []byte {
	k := make([]byte, 17)
	k[0] = nsBand
	binary.BigEndian.PutUint64(k[1:], band)
	binary.BigEndian.PutUint64(k[9:], uint64(docID))
	return k
}

// MaxBandPostings bounds the pages read from one band key by Similar (a
// band shared by more pages, such as that of a boilerplate-only text, is
// read up to this many).
const MaxBandPostings = 10_000

func encodeMinHash(bands, sig []uint64) []byte {
	b := make([]byte, 0, 2+8*(len(bands)+len(sig)))
	b = binary.AppendUvarint(b, uint64(len(bands)))
	for _, v := range bands {
		b = binary.BigEndian.AppendUint64(b, v)
	}
	b = binary.AppendUvarint(b, uint64(len(sig)))
	for _, v := range sig {
		b = binary.BigEndian.AppendUint64(b, v)
	}
	return b
}

func decodeMinHash(docID DocID, b []byte) (bands, sig []uint64, err error) {
	read := func() ([]uint64, bool) {
		n, w := binary.Uvarint(b)
		if w <= 0 || n > uint64(len(b)-w)/8 {
			return nil, false
		}
		b = b[w:]
		out := make([]uint64, n)
		for i := range out {
			out[i] = binary.BigEndian.Uint64(b[8*i:])
		}
		b = b[8*n:]
		return out, true
	}
	var ok1, ok2 bool
	bands, ok1 = read()
	if ok1 {
		sig, ok2 = read()
	}
	if !ok1 || !ok2 || len(b) != 0 {
		return nil, nil, fmt.Errorf("%w: MinHash entry of document %s does not decode", ErrCorrupt, docID)
	}
	return bands, sig, nil
}

// putMinHash writes a page's similar-pages entries: its signature and one
// band entry per band key.
func putMinHash(txn *badger.Txn, docID DocID, bands, sig []uint64) error {
	if len(sig) == 0 {
		return nil
	}
	if err := txn.Set(minHashKey(docID), encodeMinHash(bands, sig)); err != nil {
		return err
	}
	for _, b := range bands {
		if err := txn.Set(bandKey(b, docID), nil); err != nil {
			return err
		}
	}
	return nil
}

// SimilarPage is one neighbour found by [DB.Similar], as the query
// command and the HTTP API print it.
type SimilarPage struct {
	DocID   DocID   `json:"doc_id"`
	URL     string  `json:"url"`
	Title   string  `json:"title"`
	Bands   int     `json:"bands"`   // band keys shared with the query page
	Jaccard float64 `json:"jaccard"` // estimated from the signatures (fraction of equal minimums)
}

// Similar returns the stored pages that share at least one MinHash band
// key with page docID, most shared bands first, then highest estimated
// Jaccard, then lowest docId; at most limit (≤ 0: all). The page itself
// is not among them (its near-duplicates share its docId and are not
// pages of their own). Errors wrap ErrNotFound when docID is not stored,
// or has no MinHash entry (a page without words, or stored before the
// index existed: see [DB.MinHashMissing]).
func (db *DB) Similar(ctx context.Context, docID DocID, limit int) ([]SimilarPage, error) {
	var out []SimilarPage
	err := db.bdb.View(func(txn *badger.Txn) error {
		item, err := txn.Get(minHashKey(docID))
		if errors.Is(err, badger.ErrKeyNotFound) {
			if _, perr := txn.Get(pageKey(docID)); errors.Is(perr, badger.ErrKeyNotFound) {
				return fmt.Errorf("document %s: %w", docID, ErrNotFound)
			}
			return fmt.Errorf("document %s has no MinHash entry (no words): %w", docID, ErrNotFound)
		}
		if err != nil {
			return err
		}
		v, err := item.ValueCopy(nil)
		if err != nil {
			return err
		}
		bands, sig, err := decodeMinHash(docID, v)
		if err != nil {
			return err
		}
		count := map[DocID]int{}
		it := txn.NewIterator(badger.IteratorOptions{PrefetchValues: false})
		defer it.Close()
		for _, b := range bands {
			prefix := bandKey(b, 0)[:9]
			n := 0
			for it.Seek(prefix); it.ValidForPrefix(prefix) && n < MaxBandPostings; it.Next() {
				n++
				if id := docIDSuffix(it.Item().Key()); id != docID {
					count[id]++
				}
			}
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		out = make([]SimilarPage, 0, len(count))
		for id, n := range count {
			item, err := txn.Get(minHashKey(id))
			if err != nil {
				return fmt.Errorf("band entry names document %s: %w", id, err)
			}
			var other []uint64
			if err := item.Value(func(v []byte) error {
				_, other, err = decodeMinHash(id, v)
				return err
			}); err != nil {
				return err
			}
			out = append(out, SimilarPage{DocID: id, Bands: n, Jaccard: similar.Estimate(sig, other)})
		}
		slices.SortFunc(out, func(a, b SimilarPage) int {
			if c := cmp.Compare(b.Bands, a.Bands); c != 0 {
				return c
			}
			if c := cmp.Compare(b.Jaccard, a.Jaccard); c != 0 {
				return c
			}
			return cmp.Compare(a.DocID, b.DocID)
		})
		if limit > 0 && len(out) > limit {
			out = out[:limit]
		}
		for i := range out {
			p, err := getPage(txn, out[i].DocID, false)
			if err != nil {
				return err
			}
			out[i].URL, out[i].Title = p.URL, p.Title
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("similar to %s: %w", docID, err)
	}
	return out, nil
}

// MinHashMissing returns the docIds of the stored pages that have no
// MinHash entry (stored before the index existed, or without words), in
// docId order.
func (db *DB) MinHashMissing(ctx context.Context) ([]DocID, error) {
	var missing []DocID
	err := db.bdb.View(func(txn *badger.Txn) error {
		pages := txn.NewIterator(badger.IteratorOptions{Prefix: []byte{nsPage}})
		defer pages.Close()
		mh := txn.NewIterator(badger.IteratorOptions{Prefix: []byte{nsMinHash}})
		defer mh.Close()
		mh.Rewind()
		n := 0
		for pages.Rewind(); pages.Valid(); pages.Next() {
			if n++; n%4096 == 0 && ctx.Err() != nil {
				return ctx.Err()
			}
			id := docIDSuffix(pages.Item().Key())
			want := minHashKey(id)
			for mh.Valid() && bytes.Compare(mh.Item().Key(), want) < 0 {
				mh.Next()
			}
			if !mh.Valid() || !bytes.Equal(mh.Item().Key(), want) {
				missing = append(missing, id)
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("storage: MinHash entries: %w", err)
	}
	return missing, nil
}

// PutMinHash writes the similar-pages entries of stored page docID
// (replacing any it had). It fails with ErrNotFound when docID is not
// stored.
func (db *DB) PutMinHash(ctx context.Context, docID DocID, bands, sig []uint64) error {
	if err := db.writable(); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	err := db.bdb.Update(func(txn *badger.Txn) error {
		if _, err := txn.Get(pageKey(docID)); err != nil {
			if errors.Is(err, badger.ErrKeyNotFound) {
				return ErrNotFound
			}
			return err
		}
		item, err := txn.Get(minHashKey(docID))
		switch {
		case err == nil:
			var old []uint64
			if err := item.Value(func(v []byte) error {
				old, _, err = decodeMinHash(docID, v)
				return err
			}); err != nil {
				return err
			}
			for _, b := range old {
				if err := txn.Delete(bandKey(b, docID)); err != nil {
					return err
				}
			}
		case !errors.Is(err, badger.ErrKeyNotFound):
			return err
		}
		return putMinHash(txn, docID, bands, sig)
	})
	if err != nil {
		return fmt.Errorf("put MinHash of %s: %w", docID, err)
	}
	return nil
}

// checkSimilar is Check's part for the similar-pages index: every w entry
// decodes and names a stored page, and has each of its band entries;
// every band entry names a w entry that lists the band.
func checkSimilar(txn *badger.Txn, iter func(byte, bool, func([]byte, *badger.Item)), has func([]byte) bool,
	bad func(string, ...any), rep *CheckReport) {
	iter(nsMinHash, true, func(k []byte, item *badger.Item) {
		rep.Indexes++
		id := docIDSuffix(k)
		if !has(pageKey(id)) {
			bad("MinHash entry of %s: no such page", id)
		}
		err := item.Value(func(v []byte) error {
			bands, _, err := decodeMinHash(id, v)
			for _, b := range bands {
				if !has(bandKey(b, id)) {
					bad("MinHash entry of %s: band %016x has no index entry", id, b)
				}
			}
			return err
		})
		if err != nil {
			bad("%v", err)
		}
	})
	iter(nsBand, false, func(k []byte, _ *badger.Item) {
		rep.Indexes++
		band, id := binary.BigEndian.Uint64(k[1:9]), docIDSuffix(k)
		item, err := txn.Get(minHashKey(id))
		if err != nil {
			bad("band %016x names %s, which has no MinHash entry", band, id)
			return
		}
		err = item.Value(func(v []byte) error {
			bands, _, err := decodeMinHash(id, v)
			if err == nil && !slices.Contains(bands, band) {
				bad("band %016x names %s, whose MinHash entry does not list it", band, id)
			}
			return err
		})
		if err != nil {
			bad("%v", err)
		}
	})
}
