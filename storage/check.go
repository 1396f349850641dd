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
	c := &checker{ctx: ctx, pageURL: map[DocID]string{}}
	err := db.bdb.View(func(txn *badger.Txn) error {
		c.txn = txn
		c.pages()
		c.indexes()
		c.urls()
		c.docIndex()
		c.versions()
		checkSimilar(txn, c.iter, c.has, c.bad, &c.rep)
		c.blobs(filepath.Join(db.dir, blobDir))
		return ctx.Err() // a cancelled check's report is incomplete
	})
	if err != nil {
		return c.rep, fmt.Errorf("storage: check: %w", err)
	}
	if len(c.problems) > 0 {
		return c.rep, fmt.Errorf("%w: check found problems:\n  %s", ErrCorrupt, joinLines(c.problems))
	}
	return c.rep, nil
}

// checker holds one Check's read transaction, its report and the
// problems found so far.
type checker struct {
	ctx      context.Context
	txn      *badger.Txn
	rep      CheckReport
	problems []string
	pageURL  map[DocID]string // every stored page's URL, read by pages
}

// bad records a problem; past maxProblems it records "..." once.
func (c *checker) bad(format string, a ...any) {
	if len(c.problems) < maxProblems {
		c.problems = append(c.problems, fmt.Sprintf(format, a...))
	} else if len(c.problems) == maxProblems {
		c.problems = append(c.problems, "...")
	}
}

func (c *checker) has(k []byte) bool {
	_, err := c.txn.Get(k)
	return err == nil
}

// iter calls fn for every key of namespace ns until the context is done
// (Check then returns ctx.Err()).
func (c *checker) iter(ns byte, values bool, fn func(k []byte, item *badger.Item)) {
	it := c.txn.NewIterator(badger.IteratorOptions{Prefix: []byte{ns}, PrefetchValues: values})
	defer it.Close()
	for it.Rewind(); it.Valid(); it.Next() {
		if stopped(c.ctx) != nil {
			return
		}
		fn(it.Item().KeyCopy(nil), it.Item())
	}
}

// pages decodes every page and checks its index entries exist.
func (c *checker) pages() {
	c.iter(nsPage, true, func(k []byte, item *badger.Item) {
		c.rep.Pages++
		id := docIDSuffix(k)
		err := item.Value(func(v []byte) error {
			p, err := decodePage(id, v, true)
			if err != nil {
				return err
			}
			c.pageURL[id] = p.URL
			if !c.has(fpKey(id)) {
				c.bad("page %s: no fingerprint entry", id)
			}
			if !c.has(canonKey(p.URL, id)) {
				c.bad("page %s: no URL index entry", id)
			}
			if !c.has(hostKey(hostOf(p.URL), p.URL, id)) {
				c.bad("page %s: no host index entry", id)
			}
			if !c.has(timeKey(timeNanos(p.FetchedAt), id)) {
				c.bad("page %s: no time index entry", id)
			}
			if !c.has(docURLKey(id, p.URL)) {
				c.bad("page %s: its URL %q is not in the docId index", id, p.URL)
			}
			return nil
		})
		if err != nil {
			c.bad("%v", err)
		}
	})
}

// indexes checks that every fingerprint, URL, host and time index entry
// points at a stored page and matches it.
func (c *checker) indexes() {
	for _, ns := range []byte{nsFP, nsCanon, nsHost, nsTime} {
		c.iter(ns, ns == nsFP, func(k []byte, item *badger.Item) {
			c.rep.Indexes++
			id := docIDSuffix(k)
			u, ok := c.pageURL[id]
			if !ok {
				c.bad("index key %q points at missing page %s", k, id)
				return
			}
			switch ns {
			case nsCanon:
				if !bytes.Equal(k, canonKey(u, id)) {
					c.bad("URL index key %q does not match page %s URL %q", k, id, u)
				}
			case nsHost:
				if !bytes.Equal(k, hostKey(hostOf(u), u, id)) {
					c.bad("host index key %q does not match page %s URL %q", k, id, u)
				}
			case nsFP:
				if err := item.Value(func(v []byte) error {
					r, err := decodeFP(id, v)
					if err == nil && r.URL != u {
						err = fmt.Errorf("fingerprint %s has URL %q, page has %q", id, r.URL, u)
					}
					return err
				}); err != nil {
					c.bad("%v", err)
				}
			}
		})
	}
}

// urls decodes every URL record and checks its docId index entry.
func (c *checker) urls() {
	c.iter(nsURL, true, func(k []byte, item *badger.Item) {
		c.rep.URLs++
		u := string(k[1:])
		err := item.Value(func(v []byte) error {
			r, err := decodeURLRecord(u, v)
			if err != nil {
				return err
			}
			if r.DocID == 0 {
				return nil
			}
			if _, ok := c.pageURL[r.DocID]; !ok {
				c.rep.PendingRefs++
			}
			if !c.has(docURLKey(r.DocID, u)) {
				c.bad("URL %q: no docId index entry for %s", u, r.DocID)
			}
			return nil
		})
		if err != nil {
			c.bad("%v", err)
		}
	})
}

// docIndex checks that every docId index entry names a URL record that
// maps to that docId.
func (c *checker) docIndex() {
	c.iter(nsDoc, false, func(k []byte, _ *badger.Item) {
		c.rep.Indexes++
		id := docIDSuffix(k[:9])
		u := string(k[9:])
		r, err := getURL(c.txn, u)
		switch {
		case errors.Is(err, ErrNotFound):
			c.bad("docId index %s points at missing URL record %q", id, u)
		case err != nil:
			c.bad("%v", err)
		case r.DocID != id:
			c.bad("docId index %s lists %q, whose record maps to %s", id, u, r.DocID)
		}
	})
}

// versions decodes every old version and checks it belongs to its page.
func (c *checker) versions() {
	c.iter(nsVersion, true, func(k []byte, item *badger.Item) {
		c.rep.Versions++
		id := docIDSuffix(k[:9])
		u, ok := c.pageURL[id]
		if !ok {
			c.bad("version %d of missing page %s", versionOf(k), id)
			return
		}
		if err := item.Value(func(v []byte) error {
			p, err := decodePage(id, v, true)
			if err == nil && p.URL != u {
				err = fmt.Errorf("version %d of page %s has URL %q, page has %q", versionOf(k), id, p.URL, u)
			}
			return err
		}); err != nil {
			c.bad("%v", err)
		}
	})
}

// blobs checks that every meta blob referenced exists in dir.
func (c *checker) blobs(dir string) {
	refs, err := referencedBlobs(c.txn)
	if err != nil {
		c.bad("%v", err)
	}
	for name := range refs {
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			c.bad("meta blob %s: %v", name, err)
		}
	}
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
