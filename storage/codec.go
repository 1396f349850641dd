package storage

import (
	"encoding/binary"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/klauspost/compress/zstd"
)

// Record encodings. Every value starts with a one-byte record version so
// that a later format can be read side by side with this one.
const (
	pageRecV1  = 1
	urlRecV1   = 1
	fpRecV1    = 1
	queueRecV1 = 1
	traceRecV1 = 1
)

// Blob codecs inside page records and trace chunks.
const (
	codecRaw  = 0
	codecZstd = 1
)

// compressMin is the size below which blobs are stored raw.
const compressMin = 128

var (
	// zencs holds one shared encoder per zstd level (EncodeAll is safe
	// for concurrent use).
	zencs   [zstd.SpeedBestCompression + 1]*zstd.Encoder
	zencsMu sync.Mutex
	zdec    = sync.OnceValue(func() *zstd.Decoder {
		d, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(0), zstd.WithDecoderMaxMemory(1<<30))
		if err != nil {
			panic("storage: zstd decoder: " + err.Error())
		}
		return d
	})
)

// zenc returns the shared encoder for level.
func zenc(level zstd.EncoderLevel) *zstd.Encoder {
	zencsMu.Lock()
	defer zencsMu.Unlock()
	if zencs[level] == nil {
		e, err := zstd.NewWriter(nil, zstd.WithEncoderLevel(level), zstd.WithEncoderConcurrency(1))
		if err != nil {
			panic("storage: zstd encoder: " + err.Error())
		}
		zencs[level] = e
	}
	return zencs[level]
}

var errShort = errors.New("truncated record")

// enc appends fields to a byte slice; blobs are compressed at level.
type enc struct {
	b     []byte
	level zstd.EncoderLevel
}

func (e *enc) byte(v byte)      { e.b = append(e.b, v) }
func (e *enc) u64(v uint64)     { e.b = binary.BigEndian.AppendUint64(e.b, v) }
func (e *enc) uvarint(v uint64) { e.b = binary.AppendUvarint(e.b, v) }
func (e *enc) varint(v int64)   { e.b = binary.AppendVarint(e.b, v) }
func (e *enc) bytes(v []byte)   { e.uvarint(uint64(len(v))); e.b = append(e.b, v...) }
func (e *enc) str(v string)     { e.uvarint(uint64(len(v))); e.b = append(e.b, v...) }
func (e *enc) time(t time.Time) {
	if t.IsZero() {
		e.varint(0)
		return
	}
	e.varint(t.UnixNano())
}

// blob writes v compressed with zstd when that is worthwhile.
func (e *enc) blob(v []byte) {
	if len(v) >= compressMin {
		z := zenc(e.level).EncodeAll(v, make([]byte, 0, len(v)/3))
		if len(z) < len(v) {
			e.byte(codecZstd)
			e.uvarint(uint64(len(v)))
			e.bytes(z)
			return
		}
	}
	e.byte(codecRaw)
	e.uvarint(uint64(len(v)))
	e.bytes(v)
}

// dec reads fields; the first error sticks.
type dec struct {
	b   []byte
	err error
}

func (d *dec) fail(err error) {
	if d.err == nil {
		d.err = err
	}
}

func (d *dec) byte() byte {
	if d.err != nil || len(d.b) < 1 {
		d.fail(errShort)
		return 0
	}
	v := d.b[0]
	d.b = d.b[1:]
	return v
}

func (d *dec) u64() uint64 {
	if d.err != nil || len(d.b) < 8 {
		d.fail(errShort)
		return 0
	}
	v := binary.BigEndian.Uint64(d.b)
	d.b = d.b[8:]
	return v
}

func (d *dec) uvarint() uint64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Uvarint(d.b)
	if n <= 0 {
		d.fail(errShort)
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *dec) varint() int64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Varint(d.b)
	if n <= 0 {
		d.fail(errShort)
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *dec) raw() []byte {
	n := d.uvarint()
	if d.err != nil {
		return nil
	}
	if uint64(len(d.b)) < n {
		d.fail(errShort)
		return nil
	}
	v := d.b[:n:n]
	d.b = d.b[n:]
	return v
}

func (d *dec) str() string { return string(d.raw()) }

func (d *dec) time() time.Time {
	n := d.varint()
	if n == 0 {
		return time.Time{}
	}
	return time.Unix(0, n).UTC()
}

// blob reads a blob written by enc.blob; with skip it is not decompressed.
func (d *dec) blob(skip bool) []byte {
	codec := d.byte()
	size := d.uvarint()
	data := d.raw()
	if d.err != nil || skip {
		return nil
	}
	switch codec {
	case codecRaw:
		if uint64(len(data)) != size {
			d.fail(fmt.Errorf("raw blob is %d bytes, header says %d", len(data), size))
			return nil
		}
		return append([]byte(nil), data...)
	case codecZstd:
		out, err := zdec().DecodeAll(data, make([]byte, 0, size))
		if err != nil {
			d.fail(fmt.Errorf("zstd blob: %w", err))
			return nil
		}
		if uint64(len(out)) != size {
			d.fail(fmt.Errorf("zstd blob decodes to %d bytes, header says %d", len(out), size))
			return nil
		}
		return out
	default:
		d.fail(fmt.Errorf("unknown blob codec %d", codec))
		return nil
	}
}

func (d *dec) done(what string) error {
	if d.err == nil && len(d.b) != 0 {
		d.err = fmt.Errorf("%d trailing bytes", len(d.b))
	}
	if d.err != nil {
		return fmt.Errorf("%w: decode %s: %v", ErrCorrupt, what, d.err)
	}
	return nil
}

func encodePage(p *Page, level zstd.EncoderLevel) []byte {
	e := enc{b: make([]byte, 0, 256+len(p.Title)+len(p.URL)*2+len(p.Text)/3+len(p.HTML)/4), level: level}
	e.byte(pageRecV1)
	e.str(p.URL)
	e.str(p.FinalURL)
	e.varint(int64(p.Status))
	e.str(p.ContentType)
	e.time(p.FetchedAt)
	e.str(p.Title)
	e.u64(p.TitleFP)
	e.u64(p.ContentFP)
	e.byte(p.FPFlags)
	e.varint(int64(p.Depth))
	e.str(p.Referrer)
	e.blob([]byte(p.Text))
	e.blob(p.HTML)
	if p.hasExtracted() {
		// optional trailing fields: records written before them end
		// after the HTML
		e.str(p.Lang)
		e.str(p.Published)
		e.str(p.Author)
		e.str(p.Canonical)
		e.blob([]byte(p.Markdown))
		if p.ServerHTML != nil {
			e.blob(p.ServerHTML) // optional too: absent when not rendered
		}
	}
	return e.b
}

// hasExtracted reports whether p has any of the fields the page record
// keeps after the HTML.
func (p *Page) hasExtracted() bool {
	return p.Lang != "" || p.Published != "" || p.Author != "" || p.Canonical != "" || p.Markdown != "" || p.ServerHTML != nil
}

// decodePage decodes a page record; with bodies false, Text and HTML are
// left empty and not decompressed.
func decodePage(docID DocID, b []byte, bodies bool) (Page, error) {
	d := dec{b: b}
	if v := d.byte(); d.err == nil && v != pageRecV1 {
		return Page{}, fmt.Errorf("%w: page %s has record version %d", ErrVersion, docID, v)
	}
	p := Page{DocID: docID}
	p.URL = d.str()
	p.FinalURL = d.str()
	p.Status = int(d.varint())
	p.ContentType = d.str()
	p.FetchedAt = d.time()
	p.Title = d.str()
	p.TitleFP = d.u64()
	p.ContentFP = d.u64()
	p.FPFlags = d.byte()
	p.Depth = int(d.varint())
	p.Referrer = d.str()
	text := d.blob(!bodies)
	p.HTML = d.blob(!bodies)
	if bodies {
		p.Text = string(text)
	}
	if d.err == nil && len(d.b) > 0 {
		p.Lang = d.str()
		p.Published = d.str()
		p.Author = d.str()
		p.Canonical = d.str()
		if md := d.blob(!bodies); bodies {
			p.Markdown = string(md)
		}
		if d.err == nil && len(d.b) > 0 {
			if sh := d.blob(!bodies); bodies {
				p.ServerHTML = sh
			}
		}
	}
	if err := d.done(fmt.Sprintf("page %s", docID)); err != nil {
		return Page{}, err
	}
	return p, nil
}

func encodeURLRecord(r *URLRecord) []byte {
	e := enc{b: make([]byte, 0, 32+len(r.Reason)+len(r.ContentType)+len(r.Err))}
	e.byte(urlRecV1)
	e.u64(uint64(r.DocID))
	var flags byte
	if r.Duplicate {
		flags |= 1
	}
	e.byte(flags)
	e.str(r.Reason)
	e.varint(int64(r.Distance))
	e.varint(int64(r.Status))
	e.str(r.ContentType)
	e.time(r.FetchedAt)
	e.str(r.Err)
	if r.HasSignature() || !r.Hints.IsZero() || r.hasTail() {
		// optional trailing fields: records written before them (or
		// without a signature or hints) end after Err; a record with
		// hints but no signature has a zero signature before them
		e.u64(r.ContentFP)
		e.byte(r.FPFlags)
		e.bytes(r.Sketch)
	}
	if !r.Hints.IsZero() || r.hasTail() {
		e.hints(&r.Hints)
	}
	if r.hasTail() {
		// validators and change tracking, after (possibly zero) hints
		e.str(r.Validators.ETag)
		e.str(r.Validators.LastModified)
		e.time(r.ChangedAt)
		e.uvarint(uint64(r.Versions))
		if r.hasVersionTail() || r.Node != "" {
			// version tracking (records written before it end here)
			e.time(r.VersionAt)
			e.uvarint(uint64(r.Edits))
		}
	}
	if r.Node != "" {
		// cluster mode: the node holding the document (records without
		// one end before it)
		e.str(r.Node)
	}
	return e.b
}

// hints writes h (an optional trailing block of URL records and queue
// entries).
func (e *enc) hints(h *Hints) {
	var flags byte
	if h.Sitemap {
		flags |= 1
	}
	if h.Probe {
		flags |= 2
	}
	e.byte(flags)
	e.str(h.Canonical)
	e.time(h.LastMod)
	e.time(h.NewsPublished)
	e.str(h.NewsTitle)
}

func (d *dec) hints() Hints {
	var h Hints
	flags := d.byte()
	h.Sitemap, h.Probe = flags&1 != 0, flags&2 != 0
	h.Canonical = d.str()
	h.LastMod = d.time()
	h.NewsPublished = d.time()
	h.NewsTitle = d.str()
	return h
}

func decodeURLRecord(u string, b []byte) (URLRecord, error) {
	d := dec{b: b}
	if v := d.byte(); d.err == nil && v != urlRecV1 {
		return URLRecord{}, fmt.Errorf("%w: URL record %q has record version %d", ErrVersion, u, v)
	}
	r := URLRecord{URL: u}
	r.DocID = DocID(d.u64())
	r.Duplicate = d.byte()&1 != 0
	r.Reason = d.str()
	r.Distance = int(d.varint())
	r.Status = int(d.varint())
	r.ContentType = d.str()
	r.FetchedAt = d.time()
	r.Err = d.str()
	if d.err == nil && len(d.b) > 0 {
		r.ContentFP = d.u64()
		r.FPFlags = d.byte()
		if sk := d.raw(); len(sk) > 0 {
			r.Sketch = append([]byte(nil), sk...) // v is only valid in the scan callback
		}
	}
	if d.err == nil && len(d.b) > 0 {
		r.Hints = d.hints()
	}
	if d.err == nil && len(d.b) > 0 {
		r.Validators.ETag = d.str()
		r.Validators.LastModified = d.str()
		r.ChangedAt = d.time()
		r.Versions = int(d.uvarint())
	}
	if d.err == nil && len(d.b) > 0 {
		r.VersionAt = d.time()
		r.Edits = int(d.uvarint())
	}
	if d.err == nil && len(d.b) > 0 {
		r.Node = d.str()
	}
	if err := d.done(fmt.Sprintf("URL record %q", u)); err != nil {
		return URLRecord{}, err
	}
	return r, nil
}

func encodeFP(p *Page) []byte {
	e := enc{b: make([]byte, 0, 20+len(p.URL))}
	e.byte(fpRecV1)
	e.u64(p.TitleFP)
	e.u64(p.ContentFP)
	e.byte(p.FPFlags)
	e.str(p.URL)
	if len(p.Sketch) > 0 {
		// optional trailing field: entries written before it (or
		// without a sketch) end after the URL
		e.bytes(p.Sketch)
	}
	return e.b
}

func decodeFP(docID DocID, b []byte) (Fingerprint, error) {
	d := dec{b: b}
	if v := d.byte(); d.err == nil && v != fpRecV1 {
		return Fingerprint{}, fmt.Errorf("%w: fingerprint %s has record version %d", ErrVersion, docID, v)
	}
	r := Fingerprint{DocID: docID}
	r.TitleFP = d.u64()
	r.ContentFP = d.u64()
	r.FPFlags = d.byte()
	r.URL = d.str()
	if d.err == nil && len(d.b) > 0 {
		r.Sketch = append([]byte(nil), d.raw()...) // v is only valid in the scan callback
	}
	return r, d.done(fmt.Sprintf("fingerprint %s", docID))
}

func encodeQueue(q *QueueEntry) []byte {
	e := enc{b: make([]byte, 0, 8+len(q.URL)+len(q.Referrer))}
	e.byte(queueRecV1)
	e.str(q.URL)
	e.varint(int64(q.Depth))
	e.str(q.Referrer)
	if !q.Hints.IsZero() {
		e.hints(&q.Hints) // optional: entries without hints end here
	}
	return e.b
}

func decodeQueue(seq uint64, b []byte) (QueueEntry, error) {
	d := dec{b: b}
	if v := d.byte(); d.err == nil && v != queueRecV1 {
		return QueueEntry{}, fmt.Errorf("%w: queue entry %d has record version %d", ErrVersion, seq, v)
	}
	q := QueueEntry{Seq: seq}
	q.URL = d.str()
	q.Depth = int(d.varint())
	q.Referrer = d.str()
	if d.err == nil && len(d.b) > 0 {
		q.Hints = d.hints()
	}
	return q, d.done(fmt.Sprintf("queue entry %d", seq))
}

// encodeTrace stores URLs newline-separated (canonical URLs contain no
// newline; Commit rejects ones that do), compressed when worthwhile.
func encodeTrace(urls []string) []byte {
	n := 0
	for _, u := range urls {
		n += len(u) + 1
	}
	plain := make([]byte, 0, n)
	for _, u := range urls {
		plain = append(plain, u...)
		plain = append(plain, '\n')
	}
	e := enc{b: make([]byte, 0, 16+n/3), level: zstd.SpeedDefault}
	e.byte(traceRecV1)
	e.uvarint(uint64(len(urls)))
	e.blob(plain)
	return e.b
}

func decodeTrace(seq uint64, b []byte, fn func(string) error) error {
	d := dec{b: b}
	if v := d.byte(); d.err == nil && v != traceRecV1 {
		return fmt.Errorf("%w: trace chunk %d has record version %d", ErrVersion, seq, v)
	}
	count := d.uvarint()
	plain := d.blob(false)
	if err := d.done(fmt.Sprintf("trace chunk %d", seq)); err != nil {
		return err
	}
	var got uint64
	for len(plain) > 0 {
		i := 0
		for i < len(plain) && plain[i] != '\n' {
			i++
		}
		if i == len(plain) {
			return fmt.Errorf("%w: trace chunk %d: last URL not terminated", ErrCorrupt, seq)
		}
		got++
		if err := fn(string(plain[:i])); err != nil {
			return err
		}
		plain = plain[i+1:]
	}
	if got != count {
		return fmt.Errorf("%w: trace chunk %d holds %d URLs, header says %d", ErrCorrupt, seq, got, count)
	}
	return nil
}
