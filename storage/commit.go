package storage

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/dgraph-io/badger/v4"
	"github.com/klauspost/compress/zstd"
)

// Page is one stored document: the first-seen copy of its docId.
type Page struct {
	DocID       DocID     // contentdedup docId; must not be 0
	URL         string    // canonical URL it was first fetched under; must not be empty
	FinalURL    string    // URL after redirects ("" = same as URL)
	Status      int       // HTTP status
	ContentType string    // response Content-Type
	FetchedAt   time.Time // fetch time (stored with nanosecond precision, returned in UTC)
	Title       string    // extracted title
	Text        string    // extracted main text (stored zstd-compressed)
	HTML        []byte    // raw HTML (stored zstd-compressed)
	TitleFP     uint64    // SimHash (or exact hash) of the title
	ContentFP   uint64    // SimHash (or exact hash) of the text
	FPFlags     uint8     // contentdedup Signature.Flags
	Depth       int       // crawl depth
	Referrer    string    // URL of the page that linked here

	// What the page states about itself (optional, "" = not stated), kept
	// at the end of the page record: a store written before these fields
	// reads them as "". Lang is its language ("en", "zh-CN"), Published
	// its publication date as written (usually ISO 8601), Author its
	// author, Canonical the canonical URL it declares (resolved).
	Lang, Published, Author, Canonical string
	// Markdown is the main content rendered as Markdown (stored
	// zstd-compressed like Text; "" for pages stored before it).
	Markdown string
	// ServerHTML is, for a page rendered in a browser (fetch.render), the
	// HTML the server sent (stored zstd-compressed); HTML is then the
	// rendered DOM. nil for a page read as the server sent it.
	ServerHTML []byte

	// Sketch is the contentdedup Jaccard sketch of the text (optional, nil
	// = none). It is kept in the compact fingerprint entry only
	// (ForEachFingerprint); Page, PageByURL, List and Export do not
	// return it.
	Sketch []byte

	// MinHash and MinHashBands are the page's entry in the similar-pages
	// index (similar.Entry: the signature of its word set and
	// its band keys; optional, nil = none). They are kept in their own
	// entries, written in the page's transaction ([DB.Similar]).
	MinHash, MinHashBands []uint64

	// Version is the page's version number as [DB.PageVersion] returns
	// it (0 everywhere else, and not stored).
	Version int

	// Hints are what the site declared about the page's URL. They are
	// kept in the URL record written for Page.URL (not in the page
	// record): PageByURL returns them with the URL record.
	Hints Hints
	// Validators are the response's cache validators, kept in the URL
	// record like Hints.
	Validators Validators
}

// Validators are a response's cache validators (its ETag and
// Last-Modified headers, as sent), which a refresh sends back
// (If-None-Match, If-Modified-Since) to be answered 304 Not Modified when
// the page did not change. Optional: "" = not sent.
type Validators struct {
	ETag         string
	LastModified string
}

// Hints are what a site declared about one URL: its rel=canonical and what
// a sitemap said. All optional (the zero value: nothing declared); records
// written before they existed read back as the zero value.
type Hints struct {
	// Canonical is the canonical URL the page declared (<link
	// rel="canonical"> or a Link header), canonicalized; "" when none or
	// when it is the URL itself.
	Canonical string
	// LastMod is the sitemap's <lastmod> for the URL (zero: none).
	LastMod time.Time
	// NewsPublished and NewsTitle are a Google News sitemap's
	// <news:publication_date> and <news:title> (zero/"" when absent).
	NewsPublished time.Time
	NewsTitle     string
	// Sitemap, on a queue entry, marks the URL as a sitemap (or sitemap
	// index) to read rather than a page; on a URL record, that it was
	// read as one.
	Sitemap bool
	// Probe, with Sitemap on a queue entry: the sitemap was not declared
	// but guessed (a host's /sitemap.xml); the crawler records none when
	// it is missing.
	Probe bool
}

// IsZero reports whether nothing is declared.
func (h Hints) IsZero() bool { return h == Hints{} }

// Reasons recorded on URL records. Other packages may use their own
// strings (contentdedup uses "url", "title", "content"); storage stores
// any reason as given.
const (
	// ReasonNew is the reason of the URL record written for a new Page.
	ReasonNew = "new"
	// ReasonExistingDoc marks a URL whose Commit carried a Page with a
	// docId that was already stored (first seen wins).
	ReasonExistingDoc = "existing-doc"
)

// URLRecord is what the store knows about one fetched URL.
type URLRecord struct {
	URL         string    // canonical URL; must not be empty
	DocID       DocID     // document it maps to; 0 = no document (error, non-HTML)
	Duplicate   bool      // true when DocID's page was first stored under another URL
	Reason      string    // why it maps to DocID ("new", "url", "title", "content", "existing-doc", ...)
	Distance    int       // Hamming distance of a near-duplicate match
	Status      int       // HTTP status (0 = no response)
	ContentType string    // response Content-Type
	FetchedAt   time.Time // fetch time
	Err         string    // fetch or processing error, if any

	// ContentFP, FPFlags and Sketch are the content signature of a
	// near-duplicate (contentdedup Signature.Content, .Flags and the
	// Sketch's bytes), kept so that a restarted deduper can index the
	// duplicate's signature under DocID again. Optional: all zero (nil
	// Sketch) = none, as on every record written before they existed.
	ContentFP uint64
	FPFlags   uint8
	Sketch    []byte

	// Hints are what the site declared about the URL (optional).
	Hints Hints

	// Validators are the last response's cache validators (optional).
	Validators Validators
	// ChangedAt is when a refresh last found the page's title or text
	// changed (zero: never). Versions counts the versions of the page (0
	// or 1: the first only): each refresh whose text is no near-duplicate
	// of the stored version adds one (Commit.Update with a KeepVersion);
	// VersionAt is when the latest version was first fetched (zero: at
	// the first fetch). Edits counts the refreshes that changed the page
	// in place (a near-duplicate: the same version, updated). The stored
	// page is the latest version; older ones are kept up to the crawl's
	// recrawl.keep_versions ([DB.Versions]).
	ChangedAt time.Time
	Versions  int
	VersionAt time.Time
	Edits     int

	// Node is, in cluster mode (crawl --cluster), the node whose store
	// holds DocID's page when it is not this store (a duplicate of a
	// document another node stored); "" otherwise.
	Node string
}

// hasTail reports whether r has any field of the trailing validators
// block (or of the blocks after it).
func (r *URLRecord) hasTail() bool {
	return r.Validators != Validators{} || !r.ChangedAt.IsZero() || r.Versions != 0 || r.hasVersionTail() || r.Node != ""
}

// hasVersionTail reports whether r has any field of the block after
// Versions.
func (r *URLRecord) hasVersionTail() bool { return !r.VersionAt.IsZero() || r.Edits != 0 }

// HasSignature reports whether the record carries a duplicate's content
// signature (any of ContentFP, FPFlags, Sketch set).
func (r *URLRecord) HasSignature() bool {
	return r.ContentFP != 0 || r.FPFlags != 0 || len(r.Sketch) > 0
}

// QueueEntry is a persisted frontier entry.
type QueueEntry struct {
	Seq      uint64 // assigned by Commit when 0; entries scan in Seq order
	URL      string
	Depth    int
	Referrer string
	Hints    Hints // what a sitemap said about the URL (optional)
}

// Commit is everything one crawl step changes; DB.Commit applies it in
// one Badger transaction (all or nothing). Any field may be empty.
type Commit struct {
	// Page is a new document: its page record, a URL record for Page.URL
	// (Duplicate=false, Reason "new"), host and time index entries and its
	// fingerprint entry. If Page.DocID is already stored, the stored page
	// is kept (first seen wins) and Page.URL is recorded as a duplicate of
	// it with Reason ReasonExistingDoc.
	Page *Page
	// URL is a URL that is not a new document (duplicate, redirect alias,
	// error, non-HTML). It replaces any earlier record of the same URL.
	URL *URLRecord
	// Update replaces the stored page record of Update.DocID with a newer
	// version of the page (a refresh found its text changed): the page
	// record only, as given; its fingerprint entry, index entries and
	// similar-pages entries stay those of the first version (the caller
	// keeps URL, FetchedAt and the fingerprints of the stored page). The
	// docId must be stored, else the commit fails with ErrNotFound. Its URL
	// record goes in URL.
	Update *Page
	// Version, with Update, keeps the version Update replaces as an old
	// version of the document and deletes the old versions beyond
	// Version.Keep, in the same transaction (see KeepVersion). nil: Update
	// replaces the stored page in place (an edit; no version kept).
	Version *KeepVersion
	// Enqueue lists frontier entries to persist; Commit returns their
	// seqs (assigned when Seq is 0, otherwise the entry at Seq is
	// replaced).
	Enqueue []QueueEntry
	// Dequeue lists queue seqs that are done; unknown seqs are ignored.
	Dequeue []uint64
	// Trace lists the canonical URLs tested against the URL filter, in
	// order; they are appended as one compressed chunk.
	Trace []string
}

// Commit applies c atomically and returns the seqs of c.Enqueue, in
// order. It retries internally on transaction conflicts with concurrent
// commits; it is safe for concurrent use.
//
// Errors: a validation error naming the bad field (nothing is written);
// ErrTooLarge when c does not fit in one transaction (split it yourself:
// no partial commit ever happens); ErrReadOnly; ErrClosed; ctx.Err() when
// ctx is done before the transaction commits; a *NoSpaceError (ErrNoSpace)
// when the filesystem's free space is below Options.MinFreeBytes (nothing
// is written) or a write failed with ENOSPC; an error wrapping ErrIO when a
// write failed with EIO.
func (db *DB) Commit(ctx context.Context, c Commit) ([]uint64, error) {
	if err := db.writable(); err != nil {
		return nil, err
	}
	if err := validateCommit(&c); err != nil {
		return nil, err
	}
	pc, err := db.prepare(&c)
	if err != nil {
		return nil, err
	}
	if err := db.space.admit(pc.size()); err != nil {
		return nil, err
	}
	for attempt := 0; ; attempt++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		err := db.bdb.Update(func(txn *badger.Txn) error { return pc.write(txn, db.opts.zlevel) })
		switch {
		case err == nil:
			return pc.seqs, nil
		case errors.Is(err, badger.ErrConflict) && attempt < 100:
			continue
		case errors.Is(err, badger.ErrTxnTooBig):
			return nil, fmt.Errorf("%w: page %d bytes, %d enqueue, %d dequeue, %d trace URLs (limit about %d bytes per commit; split the commit)",
				ErrTooLarge, len(pc.pageVal), len(c.Enqueue), len(c.Dequeue), len(c.Trace), db.opts.MemTableSize*15/100)
		case errors.Is(err, badger.ErrDBClosed), errors.Is(err, badger.ErrBlockedWrites):
			return nil, ErrClosed
		default:
			return nil, fmt.Errorf("storage: commit: %w", db.diskError(err))
		}
	}
}

// preparedCommit is a Commit with its seqs assigned and its values
// encoded, ready to be written (again, after a transaction conflict).
type preparedCommit struct {
	c                                   *Commit
	seqs                                []uint64 // of c.Enqueue
	traceSeq                            uint64
	pageVal, fpVal, updateVal, traceVal []byte
}

// prepare assigns the queue and trace seqs (once, so that retries reuse
// them) and encodes the values outside the transaction (compression is
// the costly part).
func (db *DB) prepare(c *Commit) (*preparedCommit, error) {
	pc := &preparedCommit{c: c, seqs: make([]uint64, len(c.Enqueue))}
	for i := range c.Enqueue {
		pc.seqs[i] = c.Enqueue[i].Seq
		if pc.seqs[i] == 0 {
			n, err := db.queueSeq.Next()
			if err != nil {
				return nil, fmt.Errorf("storage: assign queue seq: %w", err)
			}
			pc.seqs[i] = n + 1 // seq 0 means "unassigned"
		}
	}
	if len(c.Trace) > 0 {
		n, err := db.traceSeq.Next()
		if err != nil {
			return nil, fmt.Errorf("storage: assign trace seq: %w", err)
		}
		pc.traceSeq = n + 1
		pc.traceVal = encodeTrace(c.Trace)
	}
	if c.Page != nil {
		pc.pageVal = encodePage(c.Page, db.opts.zlevel)
		pc.fpVal = encodeFP(c.Page)
	}
	if c.Update != nil {
		pc.updateVal = encodePage(c.Update, db.opts.zlevel)
	}
	return pc, nil
}

// size is about how many bytes the commit adds to the store.
func (pc *preparedCommit) size() int64 {
	c := pc.c
	return int64(len(pc.pageVal) + len(pc.updateVal) + len(pc.fpVal) + len(pc.traceVal) + 256*(len(c.Enqueue)+len(c.Dequeue)+1))
}

// write sets every key of the commit in txn.
func (pc *preparedCommit) write(txn *badger.Txn, zlevel zstd.EncoderLevel) error {
	c := pc.c
	if c.Page != nil {
		if err := putPage(txn, c.Page, pc.pageVal, pc.fpVal); err != nil {
			return err
		}
	}
	if c.Update != nil {
		if err := pc.update(txn, zlevel); err != nil {
			return err
		}
	}
	if c.URL != nil {
		if err := putURL(txn, c.URL); err != nil {
			return err
		}
	}
	for i := range c.Enqueue {
		if err := putQueue(txn, pc.seqs[i], &c.Enqueue[i]); err != nil {
			return err
		}
	}
	for _, s := range c.Dequeue {
		if err := txn.Delete(queueKey(s)); err != nil {
			return err
		}
	}
	if pc.traceVal != nil {
		return txn.Set(traceKey(pc.traceSeq), pc.traceVal)
	}
	return nil
}

// update replaces a stored page, keeping the old one as a version when
// the commit asks for it.
func (pc *preparedCommit) update(txn *badger.Txn, zlevel zstd.EncoderLevel) error {
	u := pc.c.Update
	item, err := txn.Get(pageKey(u.DocID))
	if errors.Is(err, badger.ErrKeyNotFound) {
		return fmt.Errorf("storage: commit: update of page %s (%s): %w", u.DocID, u.URL, ErrNotFound)
	} else if err != nil {
		return err
	}
	if pc.c.Version != nil {
		var old Page
		if err := item.Value(func(v []byte) error {
			old, err = decodePage(u.DocID, v, true)
			return err
		}); err != nil {
			return err
		}
		if err := putVersion(txn, u.DocID, &old, pc.c.Version, zlevel); err != nil {
			return err
		}
	}
	return txn.Set(pageKey(u.DocID), pc.updateVal)
}

func (db *DB) writable() error {
	if db.opts.ReadOnly {
		return ErrReadOnly
	}
	if db.isClosed() {
		return ErrClosed
	}
	return nil
}

func validateCommit(c *Commit) error {
	if p := c.Page; p != nil {
		if p.DocID == 0 {
			return fmt.Errorf("storage: commit page %q: DocID is 0", p.URL)
		}
		if err := checkURL("page URL", p.URL); err != nil {
			return err
		}
	}
	if r := c.URL; r != nil {
		if err := checkURL("URL record", r.URL); err != nil {
			return err
		}
	}
	if p := c.Update; p != nil && p.DocID == 0 {
		return fmt.Errorf("storage: commit update %q: DocID is 0", p.URL)
	}
	if k := c.Version; k != nil {
		switch {
		case c.Update == nil:
			return errors.New("storage: commit: Version without Update")
		case k.N < 1:
			return fmt.Errorf("storage: commit update %q: Version.N is %d, want >= 1", c.Update.URL, k.N)
		case k.Keep < 1:
			return fmt.Errorf("storage: commit update %q: Version.Keep is %d, want >= 1", c.Update.URL, k.Keep)
		}
	}
	for i, q := range c.Enqueue {
		if err := checkURL(fmt.Sprintf("Enqueue[%d]", i), q.URL); err != nil {
			return err
		}
	}
	for i, u := range c.Trace {
		if err := checkURL(fmt.Sprintf("Trace[%d]", i), u); err != nil {
			return err
		}
	}
	return nil
}

// MaxURLBytes is the longest URL a Commit accepts (16 KiB), so that index
// keys stay well under Badger's 64 KiB key limit. A longer one fails the
// commit; crawls keep their URLs under it (scope.max_url_length is capped
// at it).
const MaxURLBytes = 16 << 10

func checkURL(what, u string) error {
	switch {
	case u == "":
		return fmt.Errorf("storage: commit: %s is empty", what)
	case len(u) > MaxURLBytes:
		return fmt.Errorf("storage: commit: %s is %d bytes (limit %d): %.80q...", what, len(u), MaxURLBytes, u)
	case strings.ContainsAny(u, "\x00\n"):
		return fmt.Errorf("storage: commit: %s %q contains a NUL or newline", what, u)
	}
	return nil
}

func putPage(txn *badger.Txn, p *Page, pageVal, fpVal []byte) error {
	_, err := txn.Get(pageKey(p.DocID))
	switch {
	case err == nil:
		// First seen wins: keep the stored page, record this URL as a
		// duplicate of it.
		return putURL(txn, &URLRecord{
			URL: p.URL, DocID: p.DocID, Duplicate: true, Reason: ReasonExistingDoc,
			Status: p.Status, ContentType: p.ContentType, FetchedAt: p.FetchedAt,
			Hints: p.Hints, Validators: p.Validators,
		})
	case !errors.Is(err, badger.ErrKeyNotFound):
		return err
	}
	host := hostOf(p.URL)
	sets := []struct{ k, v []byte }{
		{pageKey(p.DocID), pageVal},
		{fpKey(p.DocID), fpVal},
		{canonKey(p.URL, p.DocID), nil},
		{hostKey(host, p.URL, p.DocID), nil},
		{timeKey(timeNanos(p.FetchedAt), p.DocID), nil},
	}
	for _, s := range sets {
		if err := txn.Set(s.k, s.v); err != nil {
			return err
		}
	}
	if err := putMinHash(txn, p.DocID, p.MinHashBands, p.MinHash); err != nil {
		return err
	}
	return putURL(txn, &URLRecord{
		URL: p.URL, DocID: p.DocID, Reason: ReasonNew,
		Status: p.Status, ContentType: p.ContentType, FetchedAt: p.FetchedAt,
		Hints: p.Hints, Validators: p.Validators,
	})
}

func timeNanos(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixNano()
}

// putURL writes a URL record and its docId index entry, removing the
// index entry of the record it replaces.
func putURL(txn *badger.Txn, r *URLRecord) error {
	k := urlKey(r.URL)
	item, err := txn.Get(k)
	switch {
	case err == nil:
		var old URLRecord
		if err := item.Value(func(v []byte) error {
			old, err = decodeURLRecord(r.URL, v)
			return err
		}); err != nil {
			return err
		}
		if old.DocID != 0 && old.DocID != r.DocID {
			if err := txn.Delete(docURLKey(old.DocID, r.URL)); err != nil {
				return err
			}
		}
	case !errors.Is(err, badger.ErrKeyNotFound):
		return err
	}
	if err := txn.Set(k, encodeURLRecord(r)); err != nil {
		return err
	}
	if r.DocID != 0 {
		return txn.Set(docURLKey(r.DocID, r.URL), nil)
	}
	return nil
}

// maxMetaBytes bounds one meta value (values from 256 KiB up are kept
// as files, read whole into memory).
const maxMetaBytes = 1 << 30

// PutMeta stores val under key in the meta namespace (filter snapshots,
// crawl state), atomically replacing any earlier value: GetMeta returns
// the old or the new value, never a mix, also after a crash. key must not
// be empty; val may be up to 1 GiB (larger: ErrTooLarge). Values of 256
// KiB and more are kept as checksummed files in DIR/blobs, so that a
// snapshot replaced every few minutes frees its space at once (see
// blob.go). Safe for concurrent use. Below Options.MinFreeBytes of free
// space it writes nothing and returns a *NoSpaceError, as Commit does.
func (db *DB) PutMeta(key string, val []byte) error {
	if err := db.writable(); err != nil {
		return err
	}
	if key == "" {
		return errors.New("storage: PutMeta: empty key")
	}
	if len(val) > maxMetaBytes {
		return fmt.Errorf("put meta %q (%d bytes, limit %d): %w", key, len(val), maxMetaBytes, ErrTooLarge)
	}
	if err := db.space.admit(int64(len(key) + len(val))); err != nil {
		return fmt.Errorf("put meta %q: %w", key, err)
	}
	db.metaMu.Lock()
	defer db.metaMu.Unlock()
	var ref blobRef
	if len(val) >= blobMin {
		var err error
		if ref, err = db.writeBlob(val); err != nil {
			return fmt.Errorf("put meta %q: write blob: %w", key, db.diskError(err))
		}
	}
	var oldBlob bool
	err := db.bdb.Update(func(txn *badger.Txn) error {
		_, err := txn.Get(blobRefKey(key))
		oldBlob = err == nil
		if len(val) >= blobMin {
			if err := txn.Delete(metaKey(key)); err != nil {
				return err
			}
			return txn.Set(blobRefKey(key), encodeBlobRef(ref))
		}
		if err := txn.Delete(blobRefKey(key)); err != nil {
			return err
		}
		return txn.Set(metaKey(key), val)
	})
	if err != nil {
		return fmt.Errorf("put meta %q: %w", key, db.diskError(err))
	}
	if oldBlob || len(val) >= blobMin {
		if err := db.removeUnreferencedBlobs(); err != nil {
			return fmt.Errorf("put meta %q: remove replaced blob: %w", key, err)
		}
	}
	return nil
}

// DeleteMeta removes key from the meta namespace; a missing key is not an
// error.
func (db *DB) DeleteMeta(key string) error {
	if err := db.writable(); err != nil {
		return err
	}
	db.metaMu.Lock()
	defer db.metaMu.Unlock()
	if err := db.bdb.Update(func(txn *badger.Txn) error {
		if err := txn.Delete(metaKey(key)); err != nil {
			return err
		}
		return txn.Delete(blobRefKey(key))
	}); err != nil {
		return fmt.Errorf("delete meta %q: %w", key, err)
	}
	if err := db.removeUnreferencedBlobs(); err != nil {
		return fmt.Errorf("delete meta %q: remove blob: %w", key, err)
	}
	return nil
}

// putQueue writes the queue entry q at seq and marks its URL as queued
// (e <url> → seq, what Known looks up first). The mark stays when the
// entry is dequeued: it says the URL was admitted to the crawl once.
func putQueue(txn *badger.Txn, seq uint64, q *QueueEntry) error {
	if err := txn.Set(queueKey(seq), encodeQueue(q)); err != nil {
		return err
	}
	return txn.Set(queuedKey(q.URL), binary.BigEndian.AppendUint64(nil, seq))
}

// queuedURL returns the URL of queue entry seq, whose item it is.
func queuedURL(item *badger.Item, seq uint64) (string, error) {
	var u string
	err := item.Value(func(v []byte) error {
		q, err := decodeQueue(seq, v)
		u = q.URL
		return err
	})
	return u, err
}
