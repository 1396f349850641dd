package storage

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/dgraph-io/badger/v4"
)

// Page returns the page stored for docID, with Text and HTML.
// Errors: ErrNotFound (wrapped, naming the docId); ErrCorrupt for a record
// that does not decode.
func (db *DB) Page(docID DocID) (Page, error) {
	var p Page
	err := db.bdb.View(func(txn *badger.Txn) error {
		var err error
		p, err = getPage(txn, docID, true)
		return err
	})
	return p, err
}

func getPage(txn *badger.Txn, docID DocID, bodies bool) (Page, error) {
	return get(txn, pageKey(docID), func() string { return "page " + docID.String() },
		func(v []byte) (Page, error) { return decodePage(docID, v, bodies) })
}

func getURL(txn *badger.Txn, u string) (URLRecord, error) {
	return get(txn, urlKey(u), func() string { return fmt.Sprintf("URL %q", u) },
		func(v []byte) (URLRecord, error) { return decodeURLRecord(u, v) })
}

// get reads the record at key with decode; errors name the record (what),
// and a missing key wraps ErrNotFound.
func get[T any](txn *badger.Txn, key []byte, what func() string, decode func([]byte) (T, error)) (T, error) {
	var r T
	item, err := txn.Get(key)
	if errors.Is(err, badger.ErrKeyNotFound) {
		err = ErrNotFound
	}
	if err != nil {
		return r, fmt.Errorf("%s: %w", what(), err)
	}
	err = item.Value(func(v []byte) error {
		r, err = decode(v)
		return err
	})
	return r, err
}

// PageByURL returns the URL record of u and the page of its docId. A
// duplicate URL resolves to the page of the document it duplicates
// (rec.Duplicate is true and page.URL is the first-seen URL).
//
// Errors: ErrNotFound when u was never recorded; when u is recorded
// without a document (DocID 0: a fetch error or non-HTML response), or its
// document is not stored, rec is returned with an error wrapping
// ErrNotFound.
func (db *DB) PageByURL(u string) (Page, URLRecord, error) {
	var p Page
	var rec URLRecord
	err := db.bdb.View(func(txn *badger.Txn) error {
		var err error
		if rec, err = getURL(txn, u); err != nil {
			return err
		}
		if rec.DocID == 0 {
			return fmt.Errorf("URL %q has no document (status %d, error %q): %w", u, rec.Status, rec.Err, ErrNotFound)
		}
		p, err = getPage(txn, rec.DocID, true)
		return err
	})
	return p, rec, err
}

// URLRecord returns the URL record of u; an error wrapping ErrNotFound
// when u was never recorded.
func (db *DB) URLRecord(u string) (URLRecord, error) {
	var rec URLRecord
	err := db.bdb.View(func(txn *badger.Txn) error {
		var err error
		rec, err = getURL(txn, u)
		return err
	})
	return rec, err
}

// URLs returns every URL record that maps to docID (the first-seen URL
// and its duplicates), sorted by URL. An unknown docID gives an empty
// slice and no error.
func (db *DB) URLs(docID DocID) ([]URLRecord, error) {
	var out []URLRecord
	err := db.bdb.View(func(txn *badger.Txn) error {
		prefix := docPrefix(docID)
		it := txn.NewIterator(badger.IteratorOptions{Prefix: prefix})
		defer it.Close()
		for it.Rewind(); it.Valid(); it.Next() {
			u := string(it.Item().Key()[len(prefix):])
			r, err := getURL(txn, u)
			if err != nil {
				return fmt.Errorf("docId index of %s: %w", docID, err)
			}
			out = append(out, r)
		}
		return nil
	})
	return out, err
}

// ListOptions selects pages for List. Host and Prefix may be combined;
// Since/Until filter by fetch time.
type ListOptions struct {
	Host   string    // only pages on Host (case-insensitive); without a port, on any port of it
	Prefix string    // only pages whose canonical URL starts with Prefix
	Since  time.Time // only pages fetched at or after Since (zero = no bound)
	Until  time.Time // only pages fetched before Until (zero = no bound)
	Limit  int       // page size; 0 = 100
	After  string    // cursor returned by the previous List call; "" = start
	Bodies bool      // include Text and HTML (decompressed); default false
}

// List returns up to o.Limit pages and a cursor for the next call ("" when
// there are no more). Order: by URL within a host when Host is set, by URL
// when Prefix is set or nothing is set, by fetch time when only
// Since/Until are set. A cursor is only valid with the same Host, Prefix
// and time bounds.
//
// Errors: ErrBadCursor (wrapped, naming the cursor) for an After that List
// did not return for these options; a negative limit; ctx.Err() when ctx
// is done.
func (db *DB) List(ctx context.Context, o ListOptions) ([]Page, string, error) {
	if o.Limit < 0 {
		return nil, "", fmt.Errorf("storage: list: negative limit %d", o.Limit)
	}
	if o.Limit == 0 {
		o.Limit = 100
	}
	var prefix, start []byte
	byTime := false
	host := strings.ToLower(o.Host)
	anyPort := host != "" && !strings.Contains(host, ":") && !strings.HasPrefix(host, "[")
	switch {
	case o.Host != "" && !anyPort:
		prefix = hostPrefix(host)
		start = append(append([]byte(nil), prefix...), o.Prefix...)
	case o.Host != "":
		// Every port of host: keys "h host\x00..." and "h host:port\x00...".
		prefix = append([]byte{nsHost}, host...)
		start = prefix
	case o.Prefix != "" || (o.Since.IsZero() && o.Until.IsZero()):
		prefix = []byte{nsCanon}
		start = append([]byte{nsCanon}, o.Prefix...)
	default:
		byTime = true
		prefix = []byte{nsTime}
		start = prefix
		if !o.Since.IsZero() {
			start = timeKey(o.Since.UnixNano(), 0)
		}
	}
	if o.After != "" {
		c, err := base64.RawURLEncoding.DecodeString(o.After)
		if err != nil || !bytes.HasPrefix(c, prefix) {
			return nil, "", fmt.Errorf("%w %q (use the cursor returned by List with the same options)", ErrBadCursor, o.After)
		}
		start = append(c, 0) // first key after the cursor key
	}
	var pages []Page
	var next string
	err := db.bdb.View(func(txn *badger.Txn) error {
		it := txn.NewIterator(badger.IteratorOptions{Prefix: prefix})
		defer it.Close()
		for it.Seek(start); it.Valid(); it.Next() {
			if err := stopped(ctx); err != nil {
				return err
			}
			k := it.Item().Key()
			if byTime && !o.Until.IsZero() && timeKeyNanos(k) >= o.Until.UnixNano() {
				break
			}
			if anyPort && k[len(prefix)] != 0 && k[len(prefix)] != ':' {
				continue // another host that starts with the same name
			}
			if len(pages) == o.Limit {
				next = base64.RawURLEncoding.EncodeToString(lastKey(pages, prefix, byTime))
				return nil
			}
			docID := docIDSuffix(k)
			p, err := getPage(txn, docID, o.Bodies)
			if err != nil {
				return fmt.Errorf("index key %q: %w", k, err)
			}
			if !strings.HasPrefix(p.URL, o.Prefix) {
				if o.Host != "" || byTime {
					continue
				}
				break // URL order: past the prefix
			}
			if !o.Since.IsZero() && p.FetchedAt.Before(o.Since) ||
				!o.Until.IsZero() && !p.FetchedAt.Before(o.Until) {
				continue
			}
			pages = append(pages, p)
		}
		return nil
	})
	if err != nil {
		return nil, "", fmt.Errorf("storage: list: %w", err)
	}
	return pages, next, nil
}

// lastKey rebuilds the index key of the last page returned, used as the
// cursor.
func lastKey(pages []Page, prefix []byte, byTime bool) []byte {
	p := pages[len(pages)-1]
	switch {
	case byTime:
		return timeKey(timeNanos(p.FetchedAt), p.DocID)
	case prefix[0] == nsHost:
		return hostKey(hostOf(p.URL), p.URL, p.DocID)
	default:
		return canonKey(p.URL, p.DocID)
	}
}

// Stats are counts over the whole store.
type Stats struct {
	Pages       int            `json:"pages"`      // stored documents
	URLs        int            `json:"urls"`       // URL records (every fetched URL)
	Duplicates  int            `json:"duplicates"` // URL records marked Duplicate
	NoDoc       int            `json:"no_doc"`     // URL records without a document (errors, non-HTML)
	Hosts       int            `json:"hosts"`      // distinct hosts with at least one page
	PerHost     map[string]int `json:"per_host"`   // pages per host
	Queue       int            `json:"queue"`      // pending frontier entries
	TraceChunks int            `json:"trace_chunks"`
	OldVersions int            `json:"old_versions"` // old versions of refreshed pages kept (recrawl.keep_versions)
	MetaKeys    int            `json:"meta_keys"`
	DiskBytes   int64          `json:"disk_bytes"` // bytes the store's files occupy on disk (allocated blocks: Badger preallocates sparse files)

	// KeptFetches counts the fetches kept with their HTTP exchanges
	// (store.keep_raw).
	KeptFetches int `json:"kept_fetches,omitempty"`
}

// Stats counts the store's records. It scans the key space (keys only,
// except URL records for the duplicate flag), so it takes time linear in
// the number of URLs: about a second per million. It stops with ctx.Err()
// when ctx is done.
func (db *DB) Stats(ctx context.Context) (Stats, error) {
	s := Stats{PerHost: map[string]int{}}
	err := db.bdb.View(func(txn *badger.Txn) error {
		count := func(ns byte, fn func(k []byte, item *badger.Item) error) (int, error) {
			it := txn.NewIterator(badger.IteratorOptions{Prefix: []byte{ns}, PrefetchValues: false})
			defer it.Close()
			n := 0
			for it.Rewind(); it.Valid(); it.Next() {
				if err := stopped(ctx); err != nil {
					return n, err
				}
				n++
				if fn != nil {
					if err := fn(it.Item().Key(), it.Item()); err != nil {
						return n, err
					}
				}
			}
			return n, nil
		}
		var err error
		if s.Pages, err = count(nsPage, nil); err != nil {
			return err
		}
		if s.URLs, err = count(nsURL, func(k []byte, item *badger.Item) error {
			return item.Value(func(v []byte) error {
				r, err := decodeURLRecord(string(k[1:]), v)
				if err != nil {
					return err
				}
				if r.Duplicate {
					s.Duplicates++
				}
				if r.DocID == 0 {
					s.NoDoc++
				}
				return nil
			})
		}); err != nil {
			return err
		}
		if _, err = count(nsHost, func(k []byte, _ *badger.Item) error {
			i := bytes.IndexByte(k, 0)
			s.PerHost[string(k[1:i])]++
			return nil
		}); err != nil {
			return err
		}
		if s.Queue, err = count(nsQueue, nil); err != nil {
			return err
		}
		if s.TraceChunks, err = count(nsTrace, nil); err != nil {
			return err
		}
		if s.OldVersions, err = count(nsVersion, nil); err != nil {
			return err
		}
		if s.KeptFetches, err = count(nsRaw, nil); err != nil {
			return err
		}
		if s.MetaKeys, err = count(nsMeta, nil); err != nil {
			return err
		}
		blobs, err := count(nsBlobRef, nil)
		s.MetaKeys += blobs
		return err
	})
	if err != nil {
		return Stats{}, fmt.Errorf("storage: stats: %w", err)
	}
	s.Hosts = len(s.PerHost)
	s.DiskBytes = dirSize(db.dir)
	return s, nil
}

// HostCount is one row of Stats.TopHosts.
type HostCount struct {
	Host  string `json:"host"`
	Pages int    `json:"pages"`
}

// TopHosts returns the n hosts with the most pages, most first (ties by
// host name); n <= 0 returns all.
func (s Stats) TopHosts(n int) []HostCount {
	out := make([]HostCount, 0, len(s.PerHost))
	for h, c := range s.PerHost {
		out = append(out, HostCount{h, c})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Pages != out[j].Pages {
			return out[i].Pages > out[j].Pages
		}
		return out[i].Host < out[j].Host
	})
	if n > 0 && len(out) > n {
		out = out[:n]
	}
	return out
}

// ExportOptions tunes ExportWith.
type ExportOptions struct {
	HTML bool // include the raw HTML (default false: URL, metadata, title, text)
	// Markdown writes every page as a Markdown document instead of a JSON
	// line (see [WriteMarkdown]); HTML is then ignored.
	Markdown bool
	// Render, with Markdown, gives the Markdown of a page stored without
	// one (nil: its text stands in); an error leaves the text.
	Render func(p *Page) (string, error)
}

// FillMarkdown sets p.Markdown, when p was stored without one, to what
// render gives for p; render nil or an error of it leaves p unchanged.
func (p *Page) FillMarkdown(render func(p *Page) (string, error)) {
	if p.Markdown != "" || render == nil {
		return
	}
	if md, err := render(p); err == nil {
		p.Markdown = md
	}
}

// WriteMarkdown writes p as one Markdown document: a YAML front matter
// block (url, doc_id, title, and lang, published, author, canonical when
// stored), then the page's Markdown, or its text when it was stored
// without one (stores written before the field), then a blank line.
func WriteMarkdown(w io.Writer, p *Page) error {
	var b strings.Builder
	b.WriteString("---\n")
	field := func(k, v string) {
		if v != "" {
			b.WriteString(k + ": " + strconv.Quote(v) + "\n")
		}
	}
	field("url", p.URL)
	field("doc_id", p.DocID.String())
	field("title", p.Title)
	field("lang", p.Lang)
	field("published", p.Published)
	field("author", p.Author)
	field("canonical", p.Canonical)
	b.WriteString("---\n\n")
	body := p.Markdown
	if body == "" {
		body = p.Text
	}
	b.WriteString(strings.TrimRight(body, "\n"))
	b.WriteString("\n\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// Export writes every page as one JSON object per line (a PageView with
// the text, Duplicates and no HTML), in docId order. It stops with ctx.Err() when ctx is done.
func (db *DB) Export(ctx context.Context, w io.Writer) error {
	return db.ExportWith(ctx, w, ExportOptions{})
}

// ExportWith is Export with options.
func (db *DB) ExportWith(ctx context.Context, w io.Writer, o ExportOptions) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	err := db.bdb.View(func(txn *badger.Txn) error {
		it := txn.NewIterator(badger.IteratorOptions{Prefix: []byte{nsPage}, PrefetchValues: true, PrefetchSize: 16})
		defer it.Close()
		for it.Rewind(); it.Valid(); it.Next() {
			if err := ctx.Err(); err != nil {
				return err
			}
			docID := docIDSuffix(it.Item().Key())
			var p Page
			if err := it.Item().Value(func(v []byte) error {
				var err error
				p, err = decodePage(docID, v, true)
				return err
			}); err != nil {
				return err
			}
			if o.Markdown {
				p.FillMarkdown(o.Render)
				if err := WriteMarkdown(w, &p); err != nil {
					return err
				}
				continue
			}
			rec := p.View(ViewOptions{Text: true, HTML: o.HTML})
			dit := txn.NewIterator(badger.IteratorOptions{Prefix: docPrefix(docID)})
			for dit.Rewind(); dit.Valid(); dit.Next() {
				if u := string(dit.Item().Key()[9:]); u != p.URL {
					rec.Duplicates = append(rec.Duplicates, u)
				}
			}
			dit.Close()
			if err := enc.Encode(rec); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("storage: export: %w", err)
	}
	return nil
}

// dirSize sums the sizes of the files under dir (preallocated Badger log
// files count at their current length).
func dirSize(dir string) int64 {
	var n int64
	filepath.WalkDir(dir, func(_ string, e fs.DirEntry, err error) error {
		if err == nil && !e.IsDir() {
			if info, err := e.Info(); err == nil {
				n += allocatedSize(info)
			}
		}
		return nil
	})
	return n
}
