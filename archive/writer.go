package archive

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"
	gowarc "github.com/internetarchive/gowarc"
	"github.com/klauspost/compress/gzip"

	"github.com/bloomcrawl/bloomcrawl/storage"
)

// RevisitProfile is the WARC-Profile of revisit records: the payload is
// byte-identical to the one of the record named by WARC-Refers-To.
const RevisitProfile = "http://netpreserve.org/warc/1.1/revisit/identical-payload-digest"

// DefaultMaxBytes is the default Options.MaxBytes: 1 GB.
const DefaultMaxBytes = 1_000_000_000

// indexBatch is how many payload-digest and document entries are kept in
// memory before they are written to the Index in one transaction.
const indexBatch = 256

// maxWaiting bounds the near-duplicate metadata records kept back until the
// response of their original is written (see Writer.Write).
const maxWaiting = 4096

// Index is where a Writer remembers, across runs, the record that holds
// each payload digest and each document's first response. *storage.DB
// implements it (keys "warc/digest/..." and "warc/doc/..." of its meta
// namespace). GetMeta must return an error wrapping storage.ErrNotFound
// for a missing key.
type Index interface {
	GetMeta(key string) ([]byte, error)
	PutMetas(kv map[string][]byte) error
}

// SharedDigests is a payload-digest map shared with other writers (the
// nodes of a cluster crawl, through Redis: *cluster.WARCDigests): the
// first writer to claim a digest writes the response, the others write
// revisit records referring to it.
type SharedDigests interface {
	// ClaimDigest stores ref under digest unless a value is there and
	// returns the value found (nil: ref was stored, the caller writes
	// the response).
	ClaimDigest(ctx context.Context, digest string, ref []byte) ([]byte, error)
	// DropDigest removes digest's value if it is still ref: a claimed
	// response that was not written.
	DropDigest(ctx context.Context, digest string, ref []byte) error
}

// Options configures a Writer.
type Options struct {
	// Dir receives the WARC files; created if missing. Required.
	Dir string
	// MaxBytes: a file that has reached this size is closed and the next
	// fetch starts a new one (a file may exceed it by one fetch's records).
	// Default DefaultMaxBytes.
	MaxBytes int64
	// Prefix starts every file name. Default "bloomcrawl".
	Prefix string
	// Index persists the payload-digest and document maps. Required (the
	// crawl's *storage.DB), so that revisits survive a resumed crawl and
	// the maps never have to fit in memory.
	Index Index
	// Info are extra warcinfo fields (e.g. "robots", "http-header-user-agent"),
	// written in sorted order after "software", "format", "conformsTo" and
	// "hostname".
	Info map[string]string
	// Shared, when set, is consulted for a payload digest this writer has
	// not written (nor seen in Index): a byte-identical payload another
	// writer claimed there is written here as a revisit record referring
	// to that writer's response. Default nil: revisits refer to this
	// writer's own records only.
	Shared SharedDigests
	// Secrets writes the values of the Authorization, Proxy-Authorization
	// and Cookie fields of request records as they were sent. Default
	// false: each is replaced by "[redacted]". The warcinfo field
	// "http-request-secrets" says which ("written" or "redacted: ...").
	Secrets bool
	// Name, when set, is the name of the one file written in Dir (no
	// rotation: MaxBytes is not used); it must not exist. Default "":
	// files named PREFIX-TIMESTAMP-SERIAL-HOST-PID.warc.gz.
	Name string
}

// Fetch is what the crawler learned from fetching one URL.
type Fetch struct {
	// Exchanges are the HTTP exchanges of the fetch in order: redirect
	// hops first, the final response last. May be empty (no response).
	Exchanges []*Exchange
	// Verdict is content dedup's judgement of the final response; nil when
	// it was not judged (errors, non-HTML, robots.txt).
	Verdict *Verdict
}

// Verdict is content dedup's answer for a page (see contentdedup.Verdict).
type Verdict struct {
	DocID     uint64
	Duplicate bool
	Reason    string // "new", "url", "title", "content"
	Distance  int
	MatchURL  string // the original document's first URL (duplicates)
}

// Ref names a written record.
type Ref struct {
	ID   string    // WARC-Record-ID, "<urn:uuid:...>"
	URI  string    // its WARC-Target-URI
	Date time.Time // its WARC-Date
}

// Stats counts what a Writer wrote.
type Stats struct {
	Files, Responses, Revisits, Metadata, Requests int64
	Bytes                                          int64 // bytes of WARC files written
}

// Writer writes fetches as gzip-per-record WARC/1.1 files. Safe for
// concurrent use; create it with Open and call Close once.
type Writer struct {
	o        Options
	host     string
	started  time.Time
	pool     sync.Pool // *gowarc.Writer over a *bytes.Buffer
	mu       sync.Mutex
	inflight map[string]*pending // payload digest → response being written
	unsaved  map[string][]byte   // index entries not yet in Index (at most indexBatch)
	waiting  map[uint64][]*waitingMeta
	nWaiting int
	fmu      sync.Mutex // guards the fields below
	f        *os.File
	name     string // current file name, without ".open"
	size     int64
	index    *cdxIndexer // the current file's CDXJ lines
	serial   int
	files    []string
	stats    Stats
	closed   bool
	repaired RepairStats
}

// Repaired returns what Open repaired.
func (w *Writer) Repaired() RepairStats { return w.repaired }

type pending struct {
	ref  Ref
	pos  mark // the write position when it was claimed: its records lie past it
	done chan struct{}
	ok   bool
}

// waitingMeta is a near-duplicate whose original's response was being
// written when it was judged.
type waitingMeta struct {
	dup     Ref // the near-duplicate's response
	v       Verdict
	written chan struct{} // closed once dup's response is in the file (or failed)
}

// Open checks o and creates Dir, and repairs what a crawl killed with -9
// left there (see Repaired): its .open files are closed (cut back to their
// last whole exchange, indexed, renamed) and the payload-digest entries it
// had not saved are rebuilt from its files. Only files named for this
// host and a process that no longer runs are touched. The first file is
// created by the first Write.
func Open(o Options) (*Writer, error) {
	if o.Dir == "" {
		return nil, errors.New("archive: Options.Dir is required")
	}
	if o.Index == nil {
		return nil, errors.New("archive: Options.Index is required")
	}
	if o.MaxBytes < 0 {
		return nil, fmt.Errorf("archive: Options.MaxBytes must be >= 0, got %d", o.MaxBytes)
	}
	if o.MaxBytes == 0 {
		o.MaxBytes = DefaultMaxBytes
	}
	if o.Prefix == "" {
		o.Prefix = "bloomcrawl"
	}
	if strings.ContainsAny(o.Prefix, "/\\") {
		return nil, fmt.Errorf("archive: Options.Prefix %q: must not contain a path separator", o.Prefix)
	}
	if strings.ContainsAny(o.Name, "/\\") {
		return nil, fmt.Errorf("archive: Options.Name %q: must not contain a path separator", o.Name)
	}
	if err := os.MkdirAll(o.Dir, 0o755); err != nil {
		return nil, fmt.Errorf("archive: create %s: %w", o.Dir, err)
	}
	w := &Writer{o: o, host: hostname(), started: time.Now().UTC(),
		inflight: map[string]*pending{}, unsaved: map[string][]byte{}, waiting: map[uint64][]*waitingMeta{}}
	rs, err := repair(context.Background(), o, w.host)
	if err != nil {
		return nil, err
	}
	w.repaired = rs
	return w, nil
}

// Files returns the names (paths) of the files written so far, closed
// ones without their ".open" suffix, in order.
func (w *Writer) Files() []string {
	w.fmu.Lock()
	defer w.fmu.Unlock()
	out := make([]string, len(w.files))
	for i, f := range w.files {
		out[i] = filepath.Join(w.o.Dir, f)
	}
	return out
}

// Stats returns the counters so far.
func (w *Writer) Stats() Stats {
	w.fmu.Lock()
	defer w.fmu.Unlock()
	return w.stats
}

// Write writes f's exchanges, each as a request record and a response
// record, or a revisit record when the response's payload is byte-identical
// to one already written (this run or an earlier one on the same Index);
// and, when f.Verdict says the page is a near-duplicate written as a
// response, a metadata record concurrent to that response naming the
// original. The records of one exchange are contiguous and in that order.
// An error (disk full, Index failure) leaves the files readable up to the
// last complete record.
func (w *Writer) Write(ctx context.Context, f Fetch) error {
	for i, ex := range f.Exchanges {
		var v *Verdict
		if i == len(f.Exchanges)-1 {
			v = f.Verdict
		}
		if err := w.writeExchange(ctx, ex, v); err != nil {
			return err
		}
	}
	return nil
}

func (w *Writer) writeExchange(ctx context.Context, ex *Exchange, v *Verdict) error {
	digest := payloadDigest(ex.Body)
	resp := Ref{ID: newID(), URI: ex.URL, Date: ex.Date}
	var orig *Ref
	var mine *pending
	if len(ex.Body) > 0 && ex.Truncated == "" {
		var err error
		if orig, mine, err = w.claim(ctx, digest, resp); err != nil {
			return err
		}
	}
	defer func() {
		if mine != nil {
			w.release(digest, mine, false) // not written: a waiting twin writes a response
			if w.o.Shared != nil {
				// best effort: left claimed, other writers' revisits of
				// this payload would refer to a record never written
				_ = w.o.Shared.DropDigest(context.WithoutCancel(ctx), digest, encodeRef(resp))
			}
		}
	}()

	var meta []byte
	waited := false
	var written chan struct{}
	defer func() {
		if written != nil {
			close(written) // failed: let a waiting metadata record go
		}
	}()
	if v != nil && v.Duplicate && orig == nil {
		// A near-duplicate written as a response: name its original.
		written = make(chan struct{})
		origDoc, err := w.docRef(v.DocID, resp, *v, written)
		if err != nil {
			return err
		}
		if origDoc != nil {
			meta = metaFields(*v, origDoc)
		} else {
			waited = true
		}
	}

	buf, recs, err := w.build(ex, resp, digest, orig, meta)
	if err != nil {
		return err
	}
	if err := w.append(buf, recs, recordCounts{requests: 1, responses: b2i(orig == nil), revisits: b2i(orig != nil), metadata: b2i(meta != nil)}); err != nil {
		return err
	}
	if written != nil {
		close(written)
		written = nil
	}
	if mine != nil {
		err := w.remember(digestKey(digest), resp)
		w.release(digest, mine, true)
		mine = nil
		if err != nil {
			return err
		}
	}
	if waited {
		if err := w.flushWaiting(false); err != nil {
			return err
		}
	}
	if v != nil && !v.Duplicate {
		// The document's first response: the original of its near-duplicates.
		ref := resp
		if orig != nil {
			ref = *orig // its payload lies there
		}
		if err := w.registerDoc(v.DocID, ref); err != nil {
			return err
		}
	}
	return nil
}

func b2i(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

// claim looks digest up: an earlier response holding it (revisit), or
// none, in which case the caller's response claims it until release. A
// response with the same digest still being written is waited for, so
// that a revisit never precedes its original in the files.
func (w *Writer) claim(ctx context.Context, digest string, resp Ref) (*Ref, *pending, error) {
	for {
		w.mu.Lock()
		if p := w.inflight[digest]; p != nil {
			w.mu.Unlock()
			select {
			case <-p.done:
			case <-ctx.Done():
				return nil, nil, ctx.Err()
			}
			if p.ok {
				ref := p.ref
				return &ref, nil, nil
			}
			continue
		}
		val, err := w.lookup(digestKey(digest))
		if err == nil {
			w.mu.Unlock()
			ref, err := decodeRef(val)
			if err != nil {
				return nil, nil, fmt.Errorf("archive: payload digest %s: %w", digest, err)
			}
			return &ref, nil, nil
		}
		if !errors.Is(err, storage.ErrNotFound) {
			w.mu.Unlock()
			return nil, nil, fmt.Errorf("archive: look up payload digest %s: %w", digest, err)
		}
		p := &pending{ref: resp, done: make(chan struct{}), pos: w.position()}
		w.inflight[digest] = p
		w.mu.Unlock()
		if w.o.Shared != nil {
			return w.claimShared(ctx, digest, p)
		}
		return nil, p, nil
	}
}

// claimShared claims digest, claimed by p here, in Options.Shared: p's
// response is written when no other writer had it; else p ends with the
// other writer's response (a revisit refers to it, here and in the
// fetches waiting on p), remembered in the Index.
func (w *Writer) claimShared(ctx context.Context, digest string, p *pending) (*Ref, *pending, error) {
	val, err := w.o.Shared.ClaimDigest(ctx, digest, encodeRef(p.ref))
	if err != nil {
		w.release(digest, p, false)
		return nil, nil, fmt.Errorf("archive: claim payload digest %s: %w", digest, err)
	}
	if val == nil {
		return nil, p, nil
	}
	ref, err := decodeRef(val)
	if err != nil {
		w.release(digest, p, false)
		return nil, nil, fmt.Errorf("archive: shared payload digest %s: %w", digest, err)
	}
	p.ref = ref
	err = w.remember(digestKey(digest), ref)
	w.release(digest, p, true)
	if err != nil {
		return nil, nil, err
	}
	return &ref, nil, nil
}

func (w *Writer) release(digest string, p *pending, ok bool) {
	w.mu.Lock()
	delete(w.inflight, digest)
	w.mu.Unlock()
	p.ok = ok
	close(p.done)
}

// docRef returns the response record of docID's first page, or nil after
// putting dup on the waiting list: the original is still being written
// (its metadata record follows when it is, see registerDoc) or was never
// written to WARC (its metadata is written without the record id by Close,
// or when the waiting list is full).
func (w *Writer) docRef(docID uint64, dup Ref, v Verdict, written chan struct{}) (*Ref, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	val, err := w.lookup(docKey(docID))
	if err == nil {
		ref, err := decodeRef(val)
		if err != nil {
			return nil, fmt.Errorf("archive: document %016x: %w", docID, err)
		}
		return &ref, nil
	}
	if !errors.Is(err, storage.ErrNotFound) {
		return nil, fmt.Errorf("archive: look up document %016x: %w", docID, err)
	}
	w.waiting[docID] = append(w.waiting[docID], &waitingMeta{dup: dup, v: v, written: written})
	w.nWaiting++
	return nil, nil
}

// registerDoc remembers ref as docID's original and writes the metadata
// records that waited for it.
func (w *Writer) registerDoc(docID uint64, ref Ref) error {
	w.mu.Lock()
	err := w.rememberLocked(docKey(docID), ref)
	ws := w.waiting[docID]
	delete(w.waiting, docID)
	w.nWaiting -= len(ws)
	w.mu.Unlock()
	if err != nil {
		return err
	}
	for _, m := range ws {
		if err := w.writeMeta(m, &ref); err != nil {
			return err
		}
	}
	return nil
}

// lookup reads an index entry: unsaved ones first, then the Index.
// w.mu must be held.
func (w *Writer) lookup(key string) ([]byte, error) {
	if v, ok := w.unsaved[key]; ok {
		return v, nil
	}
	return w.o.Index.GetMeta(key)
}

// remember adds an index entry; see rememberLocked.
func (w *Writer) remember(key string, ref Ref) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.rememberLocked(key, ref)
}

// rememberLocked adds an index entry and writes the batch to the Index
// once it holds indexBatch entries. w.mu must be held.
func (w *Writer) rememberLocked(key string, ref Ref) error {
	w.unsaved[key] = encodeRef(ref)
	if len(w.unsaved) < indexBatch {
		return nil
	}
	return w.saveLocked()
}

func (w *Writer) saveLocked() error {
	if len(w.unsaved) == 0 {
		return nil
	}
	// Every response before the first one still being written has its
	// entry saved now: crash repair rebuilds the entries past that mark.
	m := w.position()
	for _, p := range w.inflight {
		if p.pos.less(m) {
			m = p.pos
		}
	}
	w.unsaved[runKey(w.host, os.Getpid())] = m.encode()
	if err := w.o.Index.PutMetas(w.unsaved); err != nil {
		return fmt.Errorf("archive: save %d payload-digest and document entries: %w", len(w.unsaved), err)
	}
	w.unsaved = map[string][]byte{}
	return nil
}

// position is where the next record will be written: the current file's
// serial and size, or the next file's start. Takes w.fmu (after w.mu).
func (w *Writer) position() mark {
	w.fmu.Lock()
	defer w.fmu.Unlock()
	if w.f == nil {
		return mark{serial: w.serial}
	}
	return mark{serial: w.serial - 1, offset: w.size}
}

// flushWaiting writes the waiting metadata records without their
// original's record id: all of them (Close), or all when there are more
// than maxWaiting (originals stored by a crawl without WARC output are
// never written, and their near-duplicates must not pile up in memory).
func (w *Writer) flushWaiting(all bool) error {
	w.mu.Lock()
	var flush []*waitingMeta
	if all || w.nWaiting > maxWaiting {
		for id, l := range w.waiting {
			flush = append(flush, l...)
			delete(w.waiting, id)
		}
		w.nWaiting = 0
	}
	w.mu.Unlock()
	for _, m := range flush {
		if err := w.writeMeta(m, nil); err != nil {
			return err
		}
	}
	return nil
}

func (w *Writer) writeMeta(m *waitingMeta, orig *Ref) error {
	<-m.written // after the response it describes
	if orig == nil {
		orig = &Ref{URI: m.v.MatchURL}
	}
	var buf bytes.Buffer
	gw := w.gz(&buf)
	defer w.pool.Put(gw)
	var recs []cdxRecord
	if err := writeIndexed(gw, &buf, metaRecord(m.dup, metaFields(m.v, orig)), nil, &recs); err != nil {
		return err
	}
	return w.append(buf.Bytes(), recs, recordCounts{metadata: 1})
}

// metaFields is the block of a near-duplicate's metadata record.
func metaFields(v Verdict, orig *Ref) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "bloomcrawl-docid: %016x\r\n", v.DocID)
	fmt.Fprintf(&b, "bloomcrawl-duplicate-reason: %s\r\n", v.Reason)
	fmt.Fprintf(&b, "bloomcrawl-duplicate-distance: %d\r\n", v.Distance)
	if orig.ID != "" {
		fmt.Fprintf(&b, "bloomcrawl-original-record-id: %s\r\n", orig.ID)
	}
	uri := orig.URI
	if uri == "" {
		uri = v.MatchURL
	}
	fmt.Fprintf(&b, "bloomcrawl-original-uri: %s\r\n", uri)
	if !orig.Date.IsZero() {
		fmt.Fprintf(&b, "bloomcrawl-original-date: %s\r\n", warcDate(orig.Date))
	}
	return b.Bytes()
}

// newRecord starts a WARC record: its type ("" = set later), id, date,
// target URI ("" = none) and content type.
func newRecord(typ, id string, date time.Time, uri, contentType string) *gowarc.Record {
	r := gowarc.NewRecord("", false)
	if typ != "" {
		r.Header.Set("WARC-Type", typ)
	}
	r.Header.Set("WARC-Record-ID", id)
	r.Header.Set("WARC-Date", warcDate(date))
	if uri != "" {
		r.Header.Set("WARC-Target-URI", uri)
	}
	r.Header.Set("Content-Type", contentType)
	return r
}

func metaRecord(dup Ref, fields []byte) *gowarc.Record {
	r := newRecord("metadata", newID(), dup.Date, dup.URI, "application/warc-fields")
	r.Header.Set("WARC-Concurrent-To", dup.ID)
	r.Content.Write(fields)
	return r
}

// build compresses the exchange's records, each its own gzip member.
func (w *Writer) build(ex *Exchange, resp Ref, digest string, orig *Ref, meta []byte) ([]byte, []cdxRecord, error) {
	var buf bytes.Buffer
	var recs []cdxRecord
	gw := w.gz(&buf)
	defer w.pool.Put(gw)

	req := newRecord("request", newID(), ex.Date, ex.URL, "application/http;msgtype=request")
	req.Header.Set("WARC-Concurrent-To", resp.ID)
	if ex.IP != "" {
		req.Header.Set("WARC-IP-Address", ex.IP)
	}
	head := ex.Request
	if !w.o.Secrets {
		head = redactSecrets(head)
	}
	req.Content.Write(head)
	setProtocol(req, ex.Protocol)
	if err := writeIndexed(gw, &buf, req, head, &recs); err != nil {
		return nil, nil, err
	}

	r := newRecord("", resp.ID, ex.Date, ex.URL, "application/http;msgtype=response") // revisit or response, below
	r.Header.Set("WARC-Payload-Digest", digest)
	if ex.IP != "" {
		r.Header.Set("WARC-IP-Address", ex.IP)
	}
	r.Content.Write(ex.Response)
	setProtocol(r, ex.Protocol)
	if orig != nil {
		r.Header.Set("WARC-Type", "revisit")
		r.Header.Set("WARC-Profile", RevisitProfile)
		r.Header.Set("WARC-Refers-To", orig.ID)
		r.Header.Set("WARC-Refers-To-Target-URI", orig.URI)
		r.Header.Set("WARC-Refers-To-Date", warcDate(orig.Date))
	} else {
		r.Header.Set("WARC-Type", "response")
		if ex.Truncated != "" {
			r.Header.Set("WARC-Truncated", ex.Truncated)
		}
		if ex.RawBody != nil {
			r.Content.Write(ex.RawBody) // chunked as received; the payload digest is of Body
		} else {
			r.Content.Write(ex.Body)
		}
	}
	if err := writeIndexed(gw, &buf, r, ex.Response, &recs); err != nil {
		return nil, nil, err
	}
	if meta != nil {
		if err := writeIndexed(gw, &buf, metaRecord(resp, meta), nil, &recs); err != nil {
			return nil, nil, err
		}
	}
	return buf.Bytes(), recs, nil
}

// setProtocol gives r a WARC-Protocol field per value of protocols, in
// their order (higher layer first). gowarc keeps one value per field
// name, so the repeated fields go into one value with CRLF between them;
// a value that is not a plain token (from a damaged store) is left out.
func setProtocol(r *gowarc.Record, protocols []string) {
	var ok []string
	for _, p := range protocols {
		if p != "" && !strings.ContainsFunc(p, func(c rune) bool { return c <= ' ' || c >= 0x7f || c == ',' || c == ':' }) {
			ok = append(ok, p)
		}
	}
	if len(ok) > 0 {
		r.Header.Set("WARC-Protocol", strings.Join(ok, "\r\nWARC-Protocol: "))
	}
}

// writeIndexed appends r to buf as one gzip member (writeRecord) and its
// index fields to recs, with the member's offset in buf; head is the HTTP
// message head at the start of its block (nil if none).
func writeIndexed(gw *gowarc.Writer, buf *bytes.Buffer, r *gowarc.Record, head []byte, recs *[]cdxRecord) error {
	start := buf.Len()
	if err := writeRecord(gw, buf, r); err != nil {
		return err
	}
	h := r.Header
	c := cdxRecord{typ: h.Get("WARC-Type"), uri: h.Get("WARC-Target-URI"), date: h.Get("WARC-Date"), contentType: h.Get("Content-Type"),
		digest: h.Get("WARC-Payload-Digest"), offset: int64(start), length: int64(buf.Len() - start)}
	c.hasDigest = c.digest != ""
	c.parseHTTPHead(head)
	*recs = append(*recs, c)
	return nil
}

// writeRecord appends r to buf as one gzip member.
func writeRecord(gw *gowarc.Writer, buf *bytes.Buffer, r *gowarc.Record) error {
	gw.Reset(buf) // WriteRecord closes the gzip stream after each record
	if _, err := gw.WriteRecord(r); err != nil {
		return fmt.Errorf("archive: build %s record: %w", r.Header.Get("WARC-Type"), err)
	}
	return nil
}

// gz returns a pooled gzip WARC writer that writes to buf.
func (w *Writer) gz(buf *bytes.Buffer) *gowarc.Writer {
	if gw, ok := w.pool.Get().(*gowarc.Writer); ok {
		gw.Reset(buf)
		return gw
	}
	return newGzipWriter(buf)
}

// newGzipWriter is a gowarc writer compressing at gzip's fastest level
// (gowarc.NewWriter uses the default level: 10% smaller files on the
// handbook corpus, for more CPU per byte; see docs/warc.md).
func newGzipWriter(out io.Writer) *gowarc.Writer {
	zw, err := gzip.NewWriterLevel(out, gzip.BestSpeed)
	if err != nil {
		panic(fmt.Sprintf("archive: gzip level %d: %v", gzip.BestSpeed, err)) // a valid constant
	}
	return &gowarc.Writer{Compressor: zw, BufWriter: bufio.NewWriter(zw), DigestAlgorithm: gowarc.SHA1}
}

type recordCounts struct{ requests, responses, revisits, metadata int64 }

// append writes one exchange's compressed records to the current file,
// starting a new file first when the current one has reached MaxBytes.
func (w *Writer) append(b []byte, recs []cdxRecord, n recordCounts) error {
	w.fmu.Lock()
	defer w.fmu.Unlock()
	if w.closed {
		return errors.New("archive: write after Close")
	}
	if w.f != nil && w.size >= w.o.MaxBytes && w.o.Name == "" {
		if err := w.closeFile(); err != nil {
			return err
		}
	}
	if w.f == nil {
		if err := w.openFile(); err != nil {
			return err
		}
	}
	k, err := w.f.Write(b)
	if err != nil {
		// A record cut short (a full disk) would end the file with a
		// broken gzip member: cut it off, so that the file stays readable
		// up to its last complete record and later records follow it.
		if k > 0 {
			if terr := w.f.Truncate(w.size); terr != nil {
				err = errors.Join(err, terr)
			} else if _, serr := w.f.Seek(w.size, io.SeekStart); serr != nil {
				err = errors.Join(err, serr)
			}
		}
		return fmt.Errorf("archive: write %s: %w", w.f.Name(), err)
	}
	for i := range recs {
		recs[i].offset += w.size
		w.index.add(&recs[i])
	}
	w.size += int64(k)
	w.stats.Bytes += int64(k)
	w.stats.Requests += n.requests
	w.stats.Responses += n.responses
	w.stats.Revisits += n.revisits
	w.stats.Metadata += n.metadata
	return nil
}

// openFile creates the next file, named PREFIX-TIMESTAMP-SERIAL-HOST-PID
// .warc.gz (".open" until it is closed), and writes its warcinfo record.
func (w *Writer) openFile() error {
	now := time.Now().UTC()
	name := fmt.Sprintf("%s-%s-%05d-%s-%d.warc.gz", w.o.Prefix, now.Format("20060102150405")+fmt.Sprintf("%03d", now.Nanosecond()/1e6),
		w.serial, w.host, os.Getpid())
	if w.o.Name != "" {
		name = w.o.Name
		if _, err := os.Lstat(filepath.Join(w.o.Dir, name)); err == nil {
			return fmt.Errorf("archive: create %s: %w", filepath.Join(w.o.Dir, name), os.ErrExist)
		}
	}
	path := filepath.Join(w.o.Dir, name+".open")
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return fmt.Errorf("archive: create %s: %w", path, err)
	}
	var buf bytes.Buffer
	gw := w.gz(&buf)
	defer w.pool.Put(gw)
	info := newRecord("warcinfo", newID(), now, "", "application/warc-fields")
	info.Header.Set("WARC-Filename", name)
	info.Content.Write(w.infoFields())
	var recs []cdxRecord
	if err := writeIndexed(gw, &buf, info, nil, &recs); err != nil {
		f.Close()
		return err
	}
	k, err := f.Write(buf.Bytes())
	if err != nil {
		f.Close()
		os.Remove(path) // holds no complete record
		return fmt.Errorf("archive: write %s: %w", path, err)
	}
	w.f, w.name, w.size = f, name, int64(k)
	w.index = &cdxIndexer{filename: name}
	w.index.add(&recs[0])
	w.serial++
	w.files = append(w.files, name+".open")
	w.stats.Files++
	w.stats.Bytes += int64(k)
	return nil
}

func (w *Writer) infoFields() []byte {
	var b bytes.Buffer
	b.WriteString("software: bloomcrawl (github.com/internetarchive/gowarc)\r\n")
	b.WriteString("format: WARC File Format 1.1\r\n")
	b.WriteString("conformsTo: https://iipc.github.io/warc-specifications/specifications/warc-format/warc-1.1/\r\n")
	b.WriteString("hostname: " + w.host + "\r\n")
	if w.o.Dir == "" {
		// Export's warcinfo: no request records
	} else if w.o.Secrets {
		b.WriteString("http-request-secrets: written (Authorization, Proxy-Authorization and Cookie values as sent)\r\n")
	} else {
		b.WriteString("http-request-secrets: redacted (Authorization, Proxy-Authorization and Cookie values replaced by [redacted])\r\n")
	}
	keys := make([]string, 0, len(w.o.Info))
	for k := range w.o.Info {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		b.WriteString(k + ": " + strings.ReplaceAll(w.o.Info[k], "\n", " ") + "\r\n")
	}
	return b.Bytes()
}

// closeFile syncs and closes the current file, writes its CDXJ index
// beside it, and drops its ".open".
func (w *Writer) closeFile() error {
	path := w.f.Name()
	err := errors.Join(w.f.Sync(), w.f.Close())
	w.f = nil
	if err != nil {
		return fmt.Errorf("archive: close %s: %w", path, err)
	}
	w.index.add(nil)
	lines := w.index.lines
	w.index = nil
	if err := writeFileAtomic(CDXJName(path), sortedCDXJ(lines)); err != nil {
		return err
	}
	final := strings.TrimSuffix(path, ".open")
	if err := os.Rename(path, final); err != nil {
		return fmt.Errorf("archive: %w", err)
	}
	w.files[len(w.files)-1] = filepath.Base(final)
	return nil
}

// Close writes the metadata records still waiting for an original that was
// never written (without its record id), saves the index entries not yet
// saved, and closes the current file.
func (w *Writer) Close() error {
	var errs []error
	if err := w.flushWaiting(true); err != nil {
		errs = append(errs, err)
	}
	w.mu.Lock()
	if err := w.saveLocked(); err != nil {
		errs = append(errs, err)
	}
	w.mu.Unlock()
	w.fmu.Lock()
	defer w.fmu.Unlock()
	if w.closed {
		return errors.Join(errs...)
	}
	w.closed = true
	if w.f != nil {
		errs = append(errs, w.closeFile())
	}
	return errors.Join(errs...)
}

// hostname is os.Hostname fit for a file name part ("-" and "/" become
// "_"), or "localhost".
func hostname() string {
	host, _ := os.Hostname()
	host = strings.NewReplacer("/", "_", "-", "_", " ", "_").Replace(host)
	if host == "" {
		host = "localhost"
	}
	return host
}

func newID() string { return "<urn:uuid:" + uuid.NewString() + ">" }

func warcDate(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }

func payloadDigest(b []byte) string {
	d, err := gowarc.GetDigest(bytes.NewReader(b), gowarc.SHA1)
	if err != nil {
		panic(fmt.Sprintf("archive: sha1 digest: %v", err)) // SHA1 is always supported
	}
	return d
}

func digestKey(d string) string  { return "warc/digest/" + d }
func docKey(docID uint64) string { return fmt.Sprintf("warc/doc/%016x", docID) }
func encodeRef(r Ref) []byte     { return []byte(r.ID + "\n" + r.URI + "\n" + warcDate(r.Date)) }

func decodeRef(b []byte) (Ref, error) {
	parts := strings.SplitN(string(b), "\n", 3)
	if len(parts) != 3 {
		return Ref{}, fmt.Errorf("bad record reference %q", b)
	}
	t, err := time.Parse(time.RFC3339Nano, parts[2])
	if err != nil {
		return Ref{}, fmt.Errorf("bad record reference %q: %w", b, err)
	}
	return Ref{ID: parts[0], URI: parts[1], Date: t}, nil
}

// writeFileAtomic writes b to name through a temporary file renamed into
// place, so that a crash never leaves a partial name.
func writeFileAtomic(name string, b []byte) error {
	tmp := name + ".tmp"
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return fmt.Errorf("archive: %w", err)
	}
	_, err = f.Write(b)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, name)
	}
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("archive: write %s: %w", name, err)
	}
	return nil
}

// secretFields are the request fields whose values Options.Secrets keeps.
var secretFields = []string{"authorization", "proxy-authorization", "cookie"}

// redactSecrets returns head with the values of secretFields replaced by
// "[redacted]" (head itself when it has none).
func redactSecrets(head []byte) []byte {
	lines := bytes.SplitAfter(head, []byte("\r\n"))
	changed := false
	for i, l := range lines {
		if i == 0 {
			continue // the request line
		}
		name, _, ok := bytes.Cut(l, []byte(":"))
		if !ok || !slices.Contains(secretFields, strings.ToLower(string(bytes.TrimSpace(name)))) {
			continue
		}
		lines[i] = append(append(bytes.Clone(name), ": [redacted]"...), "\r\n"...)
		changed = true
	}
	if !changed {
		return head
	}
	return bytes.Join(lines, nil)
}
