package archive

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/bloomcrawl/bloomcrawl/storage"
)

// Keeping fetches for a lossless export (store.keep_raw). A Keeper stores
// every Fetch the crawler hands it in a RawStore (the crawl's
// *storage.DB) before passing it on to the WARC Writer, if any: the
// exchanges as the Recorder captured them (request head as sent, with
// secrets redacted unless Secrets; response head as received; payload as
// received after transfer decoding, and the chunked body as received)
// and content dedup's verdict. ExportRaw replays them through a Writer,
// so that the export's records are those a `crawl --warc` would have
// written: same request and response blocks, same payload digests, the
// same responses and revisits (the fetches are replayed in the order they
// were kept; with a Writer the Keeper writes one fetch at a time so that
// this order is also the order the crawl's WARC saw).

// RawStore is where a Keeper keeps fetches (*storage.DB).
type RawStore interface {
	PutRaw(v []byte) error
}

// RawSource is what ExportRaw reads (*storage.DB).
type RawSource interface {
	ForEachRaw(ctx context.Context, fn func(v []byte) error) error
}

// FetchWriter receives fetches (a *Writer, or a Keeper).
type FetchWriter interface {
	Write(ctx context.Context, f Fetch) error
}

// Keeper keeps every fetch in a RawStore, then writes it to Next (nil: no
// WARC output). Safe for concurrent use.
type Keeper struct {
	Store RawStore
	Next  FetchWriter
	// Secrets keeps the values of Authorization, Proxy-Authorization and
	// Cookie request fields (store.warc_secrets); default: "[redacted]",
	// as in the WARC files.
	Secrets bool

	mu sync.Mutex
}

// Write keeps f, then writes it to Next.
func (k *Keeper) Write(ctx context.Context, f Fetch) error {
	v := encodeFetch(&f, k.Secrets)
	if k.Next == nil {
		if err := k.Store.PutRaw(v); err != nil {
			return fmt.Errorf("archive: keep %s: %w", fetchURL(&f), err)
		}
		return nil
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	if err := k.Store.PutRaw(v); err != nil {
		return fmt.Errorf("archive: keep %s: %w", fetchURL(&f), err)
	}
	return k.Next.Write(ctx, f)
}

func fetchURL(f *Fetch) string {
	if len(f.Exchanges) == 0 {
		return "fetch"
	}
	return f.Exchanges[0].URL
}

// ExportRaw writes the fetches kept in src through a Writer opened with o
// (o.Index may be nil: the export's payload-digest and document maps are
// then kept in memory, about 150 bytes per distinct payload) and returns
// what it wrote. It stops with ctx.Err() when ctx is done.
func ExportRaw(ctx context.Context, src RawSource, o Options) (Stats, error) {
	return exportRaw(ctx, src, o, nil)
}

// exportRaw is ExportRaw; onURL, if set, gets every exchange's URL.
func exportRaw(ctx context.Context, src RawSource, o Options, onURL func(string)) (Stats, error) {
	if o.Index == nil {
		o.Index = &memIndex{m: map[string][]byte{}}
	}
	w, err := Open(o)
	if err != nil {
		return Stats{}, err
	}
	n := 0
	err = src.ForEachRaw(ctx, func(v []byte) error {
		n++
		f, err := decodeFetch(v)
		if err != nil {
			return fmt.Errorf("archive: kept fetch %d: %w", n, err)
		}
		if onURL != nil {
			for _, ex := range f.Exchanges {
				onURL(ex.URL)
			}
		}
		return w.Write(ctx, f)
	})
	if cerr := w.Close(); err == nil {
		err = cerr
	}
	return w.Stats(), err
}

// memIndex is an Index in memory.
type memIndex struct {
	mu sync.Mutex
	m  map[string][]byte
}

func (x *memIndex) GetMeta(key string) ([]byte, error) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if v, ok := x.m[key]; ok {
		return v, nil
	}
	return nil, fmt.Errorf("%q: %w", key, storage.ErrNotFound)
}

func (x *memIndex) PutMetas(kv map[string][]byte) error {
	x.mu.Lock()
	defer x.mu.Unlock()
	for k, v := range kv {
		x.m[k] = v
	}
	return nil
}

// Encoding of a kept fetch: version 2, then the verdict (flag; docId,
// duplicate, reason, distance, match URL), the number of exchanges and
// each exchange's fields; byte strings are length-prefixed (uvarint),
// times are Unix nanoseconds (varint), RawBody has a presence flag, and
// Protocol is a count and its strings. Version 1 (read still) is version
// 2 without Protocol.
const (
	fetchV1 = 1
	fetchV2 = 2
)

func encodeFetch(f *Fetch, secrets bool) []byte {
	size := 64
	for _, ex := range f.Exchanges {
		size += 64 + len(ex.URL) + len(ex.Request) + len(ex.Response) + len(ex.Body) + len(ex.RawBody)
	}
	b := make([]byte, 0, size)
	str := func(v []byte) []byte { return append(binary.AppendUvarint(b, uint64(len(v))), v...) }
	b = append(b, fetchV2)
	if v := f.Verdict; v != nil {
		b = append(b, 1)
		b = binary.BigEndian.AppendUint64(b, v.DocID)
		b = append(b, b2b(v.Duplicate))
		b = str([]byte(v.Reason))
		b = binary.AppendVarint(b, int64(v.Distance))
		b = str([]byte(v.MatchURL))
	} else {
		b = append(b, 0)
	}
	b = binary.AppendUvarint(b, uint64(len(f.Exchanges)))
	for _, ex := range f.Exchanges {
		req := ex.Request
		if !secrets {
			req = redactSecrets(req)
		}
		b = str([]byte(ex.URL))
		b = binary.AppendVarint(b, ex.Date.UnixNano())
		b = str([]byte(ex.IP))
		b = str(req)
		b = str(ex.Response)
		b = str(ex.Body)
		if ex.RawBody != nil {
			b = append(b, 1)
			b = str(ex.RawBody)
		} else {
			b = append(b, 0)
		}
		b = str([]byte(ex.Truncated))
		b = binary.AppendVarint(b, int64(ex.Status))
		b = binary.AppendUvarint(b, uint64(len(ex.Protocol)))
		for _, p := range ex.Protocol {
			b = str([]byte(p))
		}
	}
	return b
}

func b2b(v bool) byte {
	if v {
		return 1
	}
	return 0
}

// fetchDec reads an encoded fetch; the first error sticks.
type fetchDec struct {
	b   []byte
	err error
}

var errShortFetch = errors.New("truncated")

func (d *fetchDec) byte() byte {
	if d.err != nil || len(d.b) < 1 {
		d.err = errShortFetch
		return 0
	}
	v := d.b[0]
	d.b = d.b[1:]
	return v
}

func (d *fetchDec) u64() uint64 {
	if d.err != nil || len(d.b) < 8 {
		d.err = errShortFetch
		return 0
	}
	v := binary.BigEndian.Uint64(d.b)
	d.b = d.b[8:]
	return v
}

func (d *fetchDec) varint() int64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Varint(d.b)
	if n <= 0 {
		d.err = errShortFetch
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *fetchDec) bytes() []byte {
	if d.err != nil {
		return nil
	}
	l, n := binary.Uvarint(d.b)
	if n <= 0 || uint64(len(d.b)-n) < l {
		d.err = errShortFetch
		return nil
	}
	v := d.b[n : n+int(l) : n+int(l)]
	d.b = d.b[n+int(l):]
	return v
}

// decodeFetch decodes encodeFetch's bytes; the Fetch's byte slices are
// copies (v may be reused by the caller).
func decodeFetch(v []byte) (Fetch, error) {
	d := fetchDec{b: v}
	var f Fetch
	ver := d.byte()
	if d.err == nil && ver != fetchV1 && ver != fetchV2 {
		return f, fmt.Errorf("unknown encoding version %d", ver)
	}
	if d.byte() == 1 {
		f.Verdict = &Verdict{DocID: d.u64(), Duplicate: d.byte() == 1, Reason: string(d.bytes()), Distance: int(d.varint()), MatchURL: string(d.bytes())}
	}
	n, k := binary.Uvarint(d.b)
	if d.err == nil && (k <= 0 || n > uint64(len(d.b))) {
		d.err = errShortFetch
	}
	if d.err == nil {
		d.b = d.b[k:]
	}
	for i := uint64(0); i < n && d.err == nil; i++ {
		ex := &Exchange{URL: string(d.bytes()), Date: time.Unix(0, d.varint()).UTC(), IP: string(d.bytes()),
			Request: clone(d.bytes()), Response: clone(d.bytes()), Body: clone(d.bytes())}
		if d.byte() == 1 {
			ex.RawBody = clone(d.bytes())
		}
		ex.Truncated = string(d.bytes())
		ex.Status = int(d.varint())
		if ver >= fetchV2 {
			np, k := binary.Uvarint(d.b)
			if d.err == nil && (k <= 0 || np > uint64(len(d.b))) {
				d.err = errShortFetch
			}
			if d.err == nil {
				d.b = d.b[k:]
			}
			for j := uint64(0); j < np && d.err == nil; j++ {
				ex.Protocol = append(ex.Protocol, string(d.bytes()))
			}
		}
		f.Exchanges = append(f.Exchanges, ex)
	}
	if d.err == nil && len(d.b) != 0 {
		d.err = fmt.Errorf("%d trailing bytes", len(d.b))
	}
	if d.err != nil {
		return Fetch{}, fmt.Errorf("malformed: %w", d.err)
	}
	return f, nil
}

func clone(b []byte) []byte { return append([]byte{}, b...) }
