package storage

import (
	"encoding/binary"
	"errors"
	"fmt"
	"time"

	"github.com/dgraph-io/badger/v4"
	"github.com/klauspost/compress/zstd"
)

// nsVersion keys the old versions of a page: v <docID> <n> (n a 4-byte
// big-endian version number, so a document's versions scan in order).
const nsVersion = 'v'

func versionPrefix(docID DocID) []byte { return u64key(nsVersion, uint64(docID)) }

func versionKey(docID DocID, n int) []byte {
	return binary.BigEndian.AppendUint32(versionPrefix(docID), uint32(n))
}

// versionOf returns the version number of a v key.
func versionOf(k []byte) int { return int(binary.BigEndian.Uint32(k[len(k)-4:])) }

// KeepVersion, on a Commit with an Update, keeps the version of the page
// that the update replaces, as an old version of the same document.
type KeepVersion struct {
	// N is the number of the stored version (>= 1; the update becomes
	// version N+1). The stored page record is kept as old version N: its
	// title, text, status, content type and final URL, not its HTML.
	N int
	// Since is when version N was first fetched; it is the old version's
	// FetchedAt.
	Since time.Time
	// Keep is how many versions of the document are kept in all, the
	// latest (the update) included (>= 1): old versions numbered
	// N-Keep+1 and below are deleted in the same transaction. Keep 1
	// keeps no old version (version N is not written).
	Keep int
}

// VersionInfo describes one kept version of a document ([DB.Versions]).
type VersionInfo struct {
	N         int       `json:"version"`    // 1 = the first version fetched
	FetchedAt time.Time `json:"fetched_at"` // when this version was first fetched
	Title     string    `json:"title"`
	TextBytes int       `json:"text_bytes"`
	Latest    bool      `json:"latest,omitempty"` // the stored page (its HTML is kept too)
}

// putVersion keeps the stored page record old (the value at docID's page
// key) as version k.N and deletes the versions beyond k.Keep. It runs in
// the update's transaction.
func putVersion(txn *badger.Txn, docID DocID, old *Page, k *KeepVersion, level zstd.EncoderLevel) error {
	if k.Keep > 1 {
		v := *old
		v.HTML = nil
		v.FetchedAt = k.Since
		if err := txn.Set(versionKey(docID, k.N), encodePage(&v, level)); err != nil {
			return err
		}
	}
	oldest := k.N - k.Keep + 1 // this one and below go
	var drop [][]byte
	it := txn.NewIterator(badger.IteratorOptions{Prefix: versionPrefix(docID)})
	for it.Rewind(); it.Valid(); it.Next() {
		key := it.Item().Key()
		if versionOf(key) > oldest {
			break
		}
		drop = append(drop, it.Item().KeyCopy(nil))
	}
	it.Close()
	for _, key := range drop {
		if err := txn.Delete(key); err != nil {
			return err
		}
	}
	return nil
}

// latestVersion returns the number and first fetch time of the stored
// page p's version: its URL record's version count and VersionAt (the
// page's FetchedAt when the record has none), or, when that URL no longer
// maps to p, the version after the newest old one.
func latestVersion(txn *badger.Txn, p *Page) (int, time.Time, error) {
	rec, err := getURL(txn, p.URL)
	if err != nil && !errors.Is(err, ErrNotFound) {
		return 0, time.Time{}, err
	}
	if err == nil && rec.DocID == p.DocID && !rec.Duplicate {
		since := rec.VersionAt
		if since.IsZero() {
			since = p.FetchedAt
		}
		return max(rec.VersionCount(), 1), since, nil
	}
	n := 0
	it := txn.NewIterator(badger.IteratorOptions{Prefix: versionPrefix(p.DocID), Reverse: true})
	defer it.Close()
	it.Seek(append(versionPrefix(p.DocID), 0xff, 0xff, 0xff, 0xff))
	if it.Valid() {
		n = versionOf(it.Item().Key())
	}
	return n + 1, p.FetchedAt, nil
}

// Versions returns the kept versions of docID, oldest first; the last is
// the stored page (Latest). A document that never changed substantially
// has one version. An error wrapping ErrNotFound when docID is not
// stored.
func (db *DB) Versions(docID DocID) ([]VersionInfo, error) {
	var out []VersionInfo
	err := db.bdb.View(func(txn *badger.Txn) error {
		p, err := getPage(txn, docID, true)
		if err != nil {
			return err
		}
		n, since, err := latestVersion(txn, &p)
		if err != nil {
			return err
		}
		it := txn.NewIterator(badger.IteratorOptions{Prefix: versionPrefix(docID)})
		defer it.Close()
		for it.Rewind(); it.Valid(); it.Next() {
			k := versionOf(it.Item().Key())
			var v Page
			if err := it.Item().Value(func(b []byte) error {
				v, err = decodePage(docID, b, true)
				return err
			}); err != nil {
				return fmt.Errorf("version %d of page %s: %w", k, docID, err)
			}
			out = append(out, VersionInfo{N: k, FetchedAt: v.FetchedAt, Title: v.Title, TextBytes: len(v.Text)})
		}
		out = append(out, VersionInfo{N: n, FetchedAt: since, Title: p.Title, TextBytes: len(p.Text), Latest: true})
		return nil
	})
	return out, err
}

// PageVersion returns version n of docID: for the latest version the
// stored page (as [DB.Page], with FetchedAt the version's first fetch and
// Version n), for an older one the kept copy (no HTML). A version that is
// not kept (deleted under recrawl.keep_versions, or never existed) gives
// an error wrapping ErrNotFound that names the versions kept.
func (db *DB) PageVersion(docID DocID, n int) (Page, error) {
	var p Page
	err := db.bdb.View(func(txn *badger.Txn) error {
		latest, err := getPage(txn, docID, true)
		if err != nil {
			return err
		}
		last, since, err := latestVersion(txn, &latest)
		if err != nil {
			return err
		}
		if n == last {
			p = latest
			p.FetchedAt, p.Version = since, n
			return nil
		}
		p, err = get(txn, versionKey(docID, n), func() string { return fmt.Sprintf("version %d of page %s", n, docID) },
			func(v []byte) (Page, error) { return decodePage(docID, v, true) })
		if errors.Is(err, ErrNotFound) {
			first := last
			it := txn.NewIterator(badger.IteratorOptions{Prefix: versionPrefix(docID)})
			defer it.Close()
			if it.Rewind(); it.Valid() {
				first = versionOf(it.Item().Key())
			}
			return fmt.Errorf("page %s has versions 1 to %d, of which %d to %d are kept: version %d: %w", docID, last, first, last, n, ErrNotFound)
		}
		p.Version = n
		return err
	})
	return p, err
}
