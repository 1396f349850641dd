package storage

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/dgraph-io/badger/v4"
)

// CheckReport summarises DB.Check.
type CheckReport struct {
	Pages   int // page records
	URLs    int // URL records
	Indexes int // index entries checked (f, c, h, t, d)
	// PendingRefs counts URL records whose DocID has no stored page (a
	// duplicate committed before its original; allowed, see doc.go).
	PendingRefs int
	// Versions counts the old versions of pages kept (v entries).
	Versions int
}

// maxProblems bounds the problems listed in Check's error.
const maxProblems = 20

// Check verifies the store's invariants in one read transaction: every
// page decodes (bodies included) and has exactly its fingerprint, URL,
// host and time index entries; every index entry points at a stored
// page; every URL record decodes and its docId index entry exists and
// vice versa; every similar-pages entry belongs to a stored page and its
// band entries match it; every old version of a page decodes and belongs
// to a stored page; every meta blob file referenced exists. It reads every
// page, so it takes time linear in the store's size. The error lists up to
// 20 problems and wraps ErrCorrupt; ctx.Err() is returned when ctx is done
// first.
func (db *DB) Check(ctx context.Context) (CheckReport, error) {
	var rep CheckReport
	var problems []string
	bad := func(format string, a ...any) {
		if len(problems) < maxProblems {
			problems = append(problems, fmt.Sprintf(format, a...))
		} else if len(problems) == maxProblems {
			problems = append(problems, "...")
		}
	}
	err := db.bdb.View(func(txn *badger.Txn) error {
		has := func(k []byte) bool {
			_, err := txn.Get(k)
			return err == nil
		}
		iter := func(ns byte, values bool, fn func(k []byte, item *badger.Item)) {
			it := txn.NewIterator(badger.IteratorOptions{Prefix: []byte{ns}, PrefetchValues: values})
			defer it.Close()
			for it.Rewind(); it.Valid(); it.Next() {
				if stopped(ctx) != nil {
					return // the View returns ctx.Err()
				}
				fn(it.Item().KeyCopy(nil), it.Item())
			}
		}
		pageURL := map[DocID]string{}
		iter(nsPage, true, func(k []byte, item *badger.Item) {
			rep.Pages++
			id := docIDSuffix(k)
			err := item.Value(func(v []byte) error {
				p, err := decodePage(id, v, true)
				if err != nil {
					return err
				}
				pageURL[id] = p.URL
				if !has(fpKey(id)) {
					bad("page %s: no fingerprint entry", id)
				}
				if !has(canonKey(p.URL, id)) {
					bad("page %s: no URL index entry", id)
				}
				if !has(hostKey(hostOf(p.URL), p.URL, id)) {
					bad("page %s: no host index entry", id)
				}
				if !has(timeKey(timeNanos(p.FetchedAt), id)) {
					bad("page %s: no time index entry", id)
				}
				if !has(docURLKey(id, p.URL)) {
					bad("page %s: its URL %q is not in the docId index", id, p.URL)
				}
				return nil
			})
			if err != nil {
				bad("%v", err)
			}
		})
		for _, ns := range []byte{nsFP, nsCanon, nsHost, nsTime} {
			iter(ns, ns == nsFP, func(k []byte, item *badger.Item) {
				rep.Indexes++
				id := docIDSuffix(k)
				u, ok := pageURL[id]
				if !ok {
					bad("index key %q points at missing page %s", k, id)
					return
				}
				switch ns {
				case nsCanon:
					if !bytes.Equal(k, canonKey(u, id)) {
						bad("URL index key %q does not match page %s URL %q", k, id, u)
					}
				case nsHost:
					if !bytes.Equal(k, hostKey(hostOf(u), u, id)) {
						bad("host index key %q does not match page %s URL %q", k, id, u)
					}
				case nsFP:
					if err := item.Value(func(v []byte) error {
						r, err := decodeFP(id, v)
						if err == nil && r.URL != u {
							err = fmt.Errorf("fingerprint %s has URL %q, page has %q", id, r.URL, u)
						}
						return err
					}); err != nil {
						bad("%v", err)
					}
				}
			})
		}
		iter(nsURL, true, func(k []byte, item *badger.Item) {
			rep.URLs++
			u := string(k[1:])
			err := item.Value(func(v []byte) error {
				r, err := decodeURLRecord(u, v)
				if err != nil {
					return err
				}
				if r.DocID == 0 {
					return nil
				}
				if _, ok := pageURL[r.DocID]; !ok {
					rep.PendingRefs++
				}
				if !has(docURLKey(r.DocID, u)) {
					bad("URL %q: no docId index entry for %s", u, r.DocID)
				}
				return nil
			})
			if err != nil {
				bad("%v", err)
			}
		})
		iter(nsDoc, false, func(k []byte, _ *badger.Item) {
			rep.Indexes++
			id := docIDSuffix(k[:9])
			u := string(k[9:])
			r, err := getURL(txn, u)
			switch {
			case errors.Is(err, ErrNotFound):
				bad("docId index %s points at missing URL record %q", id, u)
			case err != nil:
				bad("%v", err)
			case r.DocID != id:
				bad("docId index %s lists %q, whose record maps to %s", id, u, r.DocID)
			}
		})
		iter(nsVersion, true, func(k []byte, item *badger.Item) {
			rep.Versions++
			id := docIDSuffix(k[:9])
			u, ok := pageURL[id]
			if !ok {
				bad("version %d of missing page %s", versionOf(k), id)
				return
			}
			if err := item.Value(func(v []byte) error {
				p, err := decodePage(id, v, true)
				if err == nil && p.URL != u {
					err = fmt.Errorf("version %d of page %s has URL %q, page has %q", versionOf(k), id, p.URL, u)
				}
				return err
			}); err != nil {
				bad("%v", err)
			}
		})
		checkSimilar(txn, iter, has, bad, &rep)
		refs, err := referencedBlobs(txn)
		if err != nil {
			bad("%v", err)
		}
		for name := range refs {
			if _, err := os.Stat(filepath.Join(db.dir, blobDir, name)); err != nil {
				bad("meta blob %s: %v", name, err)
			}
		}
		return ctx.Err() // a cancelled check's report is incomplete
	})
	if err != nil {
		return rep, fmt.Errorf("storage: check: %w", err)
	}
	if len(problems) > 0 {
		return rep, fmt.Errorf("%w: check found problems:\n  %s", ErrCorrupt, joinLines(problems))
	}
	return rep, nil
}

func joinLines(s []string) string {
	var b bytes.Buffer
	for i, l := range s {
		if i > 0 {
			b.WriteString("\n  ")
		}
		b.WriteString(l)
	}
	return b.String()
}
