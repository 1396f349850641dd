package archive

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"strings"
	"time"

	"github.com/google/uuid"
	gowarc "github.com/internetarchive/gowarc"

	"github.com/bloomcrawl/bloomcrawl/storage"
)

// Store is the part of *storage.DB that Export reads.
type Store interface {
	ForEachURL(ctx context.Context, fn func(storage.URLRecord) error) error
	Page(docID storage.DocID) (storage.Page, error)
}

// ExportStats counts what Export wrote.
type ExportStats struct {
	Pages      int64 `json:"pages"`      // resource records (one per stored document)
	Duplicates int64 `json:"duplicates"` // metadata records for URLs mapped to another URL's document
	Other      int64 `json:"other"`      // metadata records for URLs fetched but not stored (errors, non-HTML, robots.txt)
	Bytes      int64 `json:"bytes"`      // bytes written
	// Lossless: the store kept its fetches (store.keep_raw) and the export
	// replayed them (ExportRaw): the counts below are set, the ones above
	// are zero.
	Lossless  bool  `json:"lossless"`
	Requests  int64 `json:"requests,omitempty"`
	Responses int64 `json:"responses,omitempty"`
	Revisits  int64 `json:"revisits,omitempty"`
	Metadata  int64 `json:"metadata,omitempty"`
	// NotKept counts the store's URLs fetched with a response that no kept
	// fetch holds (crawled before store.keep_raw was set): not exported.
	NotKept int64 `json:"not_kept,omitempty"`
}

// exportNS names the export's record ids: uuid v5 of the document id and
// its fetch time, so that exporting one store twice gives the same ids
// and a duplicate's metadata can name its original's record without a
// map in memory.
var exportNS = uuid.MustParse("6f1c5a4e-2b1d-5f0e-9a7c-1b0c0de0a7c1")

// Export writes what st holds as a gzip-per-record WARC/1.1 stream to w:
// a warcinfo record; for every stored document a resource record (its
// HTML as stored: UTF-8, Content-Type with charset=utf-8) and a metadata
// record describing it (docId, title, HTTP status, fetch and final URL,
// depth, referrer); for every URL mapped to another URL's document a
// metadata record naming the docId, the reason, the distance and the
// original's resource record; for every URL fetched but not stored a
// metadata record with its status, content type and error. URLs are
// visited in the store's URL order.
//
// A store keeps neither the HTTP headers (except Content-Type) nor the
// bytes as received, so the export has no request or response records, no
// redirect hops, no bodies of non-HTML or error responses, pages in other
// charsets re-encoded as UTF-8, and no revisits (a duplicate's own bytes
// were never stored). A WARC written during the crawl (crawl --warc) has
// all of that. Export stops with ctx.Err() when ctx is done.
// filename is the file's base name (WARC-Filename of the warcinfo record);
// info are extra warcinfo fields.
func Export(ctx context.Context, st Store, w io.Writer, filename string, info map[string]string) (ExportStats, error) {
	var stats ExportStats
	gw := newGzipWriter(io.Discard)
	cw := &countWriter{w: w}
	var buf bytes.Buffer
	emit := func(r *gowarc.Record) error {
		buf.Reset()
		if err := writeRecord(gw, &buf, r); err != nil {
			return err
		}
		_, err := cw.Write(buf.Bytes())
		return err
	}
	wi := newRecord("warcinfo", newID(), time.Now(), "", "application/warc-fields")
	if filename != "" {
		wi.Header.Set("WARC-Filename", filename)
	}
	fields := map[string]string{"description": "exported from a bloomcrawl store: pages as stored (UTF-8 HTML), no HTTP headers or raw bytes"}
	for k, v := range info {
		fields[k] = v
	}
	wi.Content.Write((&Writer{o: Options{Info: fields}, host: hostname()}).infoFields())
	if err := emit(wi); err != nil {
		return stats, fmt.Errorf("archive: export: %w", err)
	}

	err := st.ForEachURL(ctx, func(u storage.URLRecord) error {
		switch {
		case u.DocID != 0 && !u.Duplicate:
			p, err := st.Page(u.DocID)
			if errors.Is(err, storage.ErrNotFound) {
				return nil // a URL record whose page is missing: storage.Check reports it
			}
			if err != nil {
				return err
			}
			if err := exportPage(emit, &p); err != nil {
				return err
			}
			stats.Pages++
		case u.DocID != 0:
			orig := Ref{}
			if p, err := st.Page(u.DocID); err == nil {
				orig = Ref{ID: exportID(p.DocID, p.FetchedAt), URI: pageURI(&p), Date: p.FetchedAt}
			} else if !errors.Is(err, storage.ErrNotFound) {
				return err
			}
			f := metaFields(Verdict{DocID: uint64(u.DocID), Duplicate: true, Reason: u.Reason, Distance: u.Distance}, &orig)
			r := exportMeta(u.URL, u.FetchedAt, append(f, urlFields(&u)...))
			if err := emit(r); err != nil {
				return err
			}
			stats.Duplicates++
		default:
			if err := emit(exportMeta(u.URL, u.FetchedAt, urlFields(&u))); err != nil {
				return err
			}
			stats.Other++
		}
		return nil
	})
	stats.Bytes = cw.n
	if err != nil {
		return stats, fmt.Errorf("archive: export: %w", err)
	}
	return stats, nil
}

func exportPage(emit func(*gowarc.Record) error, p *storage.Page) error {
	id := exportID(p.DocID, p.FetchedAt)
	r := newRecord("resource", id, p.FetchedAt, pageURI(p), utf8Type(p.ContentType))
	r.Header.Set("WARC-Payload-Digest", payloadDigest(p.HTML))
	r.Content.Write(p.HTML)
	if err := emit(r); err != nil {
		return err
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "bloomcrawl-docid: %s\r\n", p.DocID)
	field(&b, "title", p.Title)
	fmt.Fprintf(&b, "http-status: %d\r\n", p.Status)
	field(&b, "http-content-type", p.ContentType)
	if p.FinalURL != "" {
		field(&b, "fetched-url", p.URL)
	}
	fmt.Fprintf(&b, "depth: %d\r\n", p.Depth)
	field(&b, "via", p.Referrer)
	m := exportMeta(pageURI(p), p.FetchedAt, b.Bytes())
	m.Header.Set("WARC-Refers-To", id)
	return emit(m)
}

func exportMeta(uri string, at time.Time, fields []byte) *gowarc.Record {
	m := newRecord("metadata", newID(), at, uri, "application/warc-fields")
	m.Content.Write(fields)
	return m
}

// urlFields describes a URL record's fetch.
func urlFields(u *storage.URLRecord) []byte {
	var b bytes.Buffer
	if u.Status != 0 {
		fmt.Fprintf(&b, "http-status: %d\r\n", u.Status)
	}
	field(&b, "http-content-type", u.ContentType)
	field(&b, "bloomcrawl-error", u.Err)
	return b.Bytes()
}

func field(b *bytes.Buffer, k, v string) {
	if v = strings.Join(strings.Fields(v), " "); v != "" {
		b.WriteString(k + ": " + v + "\r\n")
	}
}

func pageURI(p *storage.Page) string {
	if p.FinalURL != "" {
		return p.FinalURL
	}
	return p.URL
}

func exportID(docID storage.DocID, at time.Time) string {
	return "<urn:uuid:" + uuid.NewSHA1(exportNS, fmt.Appendf(nil, "%s %d", docID, at.UnixNano())).String() + ">"
}

// utf8Type is contentType with its charset set to utf-8 (the store keeps
// pages decoded to UTF-8).
func utf8Type(contentType string) string {
	mt, params, err := mime.ParseMediaType(contentType)
	if err != nil || mt == "" {
		return "text/html; charset=utf-8"
	}
	params["charset"] = "utf-8"
	return mime.FormatMediaType(mt, params)
}

type countWriter struct {
	w io.Writer
	n int64
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}
