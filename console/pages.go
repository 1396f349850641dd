package console

import (
	"bufio"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/bloomcrawl/bloomcrawl/archive"
	"github.com/bloomcrawl/bloomcrawl/contentdedup"
	"github.com/bloomcrawl/bloomcrawl/storage"
)

// Search bounds: a title search reads at most searchScan page records and
// shows at most searchShow matches.
const (
	searchScan = 200_000
	searchShow = 200
)

// searchView is the pages view's data.
type searchView struct {
	Q       string
	Pages   []storage.Page
	URL     *storage.URLAnswer // an exact URL match
	Scanned int
	Partial bool // stopped after searchScan pages or searchShow matches
	Err     string
}

// searchPage searches stored pages: a docId opens it; a URL (http:// or
// https://) finds its record and the pages whose URL starts with it;
// anything else is matched, case-insensitively, against titles and URLs.
func (c *Console) searchPage(w http.ResponseWriter, r *http.Request) {
	v := searchView{Q: strings.TrimSpace(r.URL.Query().Get("q"))}
	switch {
	case v.Q == "":
	case len(v.Q) == 16 && isHex(v.Q):
		http.Redirect(w, r, "/console/doc/"+strings.ToLower(v.Q), http.StatusSeeOther)
		return
	case strings.HasPrefix(v.Q, "http://") || strings.HasPrefix(v.Q, "https://"):
		if a, err := c.o.Store.URLAnswer(v.Q); err == nil {
			v.URL = &a
		} else if !errors.Is(err, storage.ErrNotFound) {
			v.Err = err.Error()
		}
		pages, next, err := c.o.Store.List(r.Context(), storage.ListOptions{Prefix: v.Q, Limit: searchShow})
		if err != nil {
			v.Err = err.Error()
		}
		v.Pages, v.Scanned, v.Partial = pages, len(pages), next != ""
	default:
		needle := strings.ToLower(v.Q)
		after := ""
	scan:
		for v.Scanned < searchScan {
			pages, next, err := c.o.Store.List(r.Context(), storage.ListOptions{Limit: 1000, After: after})
			if err != nil {
				v.Err = err.Error()
				break
			}
			for _, p := range pages {
				v.Scanned++
				if strings.Contains(strings.ToLower(p.Title), needle) || strings.Contains(strings.ToLower(p.URL), needle) {
					v.Pages = append(v.Pages, p)
					if len(v.Pages) == searchShow {
						v.Partial = true
						break scan
					}
				}
			}
			if next == "" {
				break
			}
			after = next
			if v.Scanned >= searchScan {
				v.Partial = true
			}
		}
	}
	c.render(w, r, "pages", "Pages", v)
}

func isHex(s string) bool {
	_, err := strconv.ParseUint(s, 16, 64)
	return err == nil
}

// mappedURL is one URL mapped to a document, and why.
type mappedURL struct {
	storage.URLRecord
	Why     string  // in words
	Jaccard float64 // the sketch's estimated Jaccard with the document (-1: none)
}

// docView is the document view's data.
type docView struct {
	Doc     storage.Doc
	URLs    []mappedURL
	Similar []storage.SimilarPage
	SimErr  string
	WARC    *warcRecord
	Text    string
	Latest  bool
}

// reasonText says why a URL maps to its document.
func reasonText(r *storage.URLRecord) string {
	switch r.Reason {
	case "new":
		return "original: the first URL stored with this text"
	case "url":
		return "exact: the same canonical URL"
	case "title":
		if r.Distance == 0 {
			return "same title and text (SimHash distance 0)"
		}
		return fmt.Sprintf("near-duplicate: same title, text within SimHash distance %d", r.Distance)
	case "content":
		if r.Distance == 0 {
			return "exact copy of the text (SimHash distance 0)"
		}
		return fmt.Sprintf("near-duplicate text, SimHash distance %d", r.Distance)
	case "canonical":
		return "canonical: the page declares this document's URL as its canonical"
	case "redirect":
		return "redirect: this URL redirects to the document's URL"
	case "existing-doc":
		return "the document was already stored under another URL"
	}
	if r.Reason == "" {
		return "duplicate"
	}
	return r.Reason
}

func (c *Console) docPage(w http.ResponseWriter, r *http.Request) {
	id, err := storage.ParseDocID(r.PathValue("docId"))
	if err != nil {
		c.fail(w, http.StatusBadRequest, err)
		return
	}
	n := 0
	if s := r.URL.Query().Get("version"); s != "" {
		if n, err = strconv.Atoi(s); err != nil || n < 1 {
			c.fail(w, http.StatusBadRequest, fmt.Errorf("version %q: want a number from 1", s))
			return
		}
	}
	d, err := c.o.Store.Doc(id, n)
	if errors.Is(err, storage.ErrNotFound) {
		c.fail(w, http.StatusNotFound, fmt.Errorf("document %s: %w", id, err))
		return
	}
	if err != nil {
		c.fail(w, http.StatusInternalServerError, err)
		return
	}
	v := docView{Doc: d, Text: d.Page.Text, Latest: d.Latest()}
	recs, err := c.o.Store.URLs(id)
	if err != nil {
		c.fail(w, http.StatusInternalServerError, err)
		return
	}
	var docSketch *contentdedup.Sketch
	if fp, err := c.o.Store.FingerprintOf(id); err == nil && len(fp.Sketch) > 0 {
		if sk, err := contentdedup.SketchFromBytes(fp.Sketch); err == nil {
			docSketch = &sk
		}
	}
	for _, rec := range recs {
		m := mappedURL{URLRecord: rec, Why: reasonText(&rec), Jaccard: -1}
		if docSketch != nil && len(rec.Sketch) > 0 {
			if sk, err := contentdedup.SketchFromBytes(rec.Sketch); err == nil {
				if j, n := contentdedup.SketchJaccard(docSketch, &sk); n > 0 {
					m.Jaccard = j
				}
			}
		}
		v.URLs = append(v.URLs, m)
	}
	if v.Similar, err = c.o.Store.Similar(r.Context(), id, 10); err != nil && !errors.Is(err, storage.ErrNotFound) {
		v.SimErr = err.Error()
	}
	if c.o.WARCDir != "" {
		v.WARC, _ = findWARCRecord(c.o.WARCDir, d.Page.URL)
	}
	c.render(w, r, "doc", d.Page.Title, v)
}

// warcRecord is where a URL's response record is in the WARC files.
type warcRecord struct {
	File      string
	Offset    int64
	Length    int64
	Timestamp string
}

// findWARCRecord looks u's latest response record up in the CDXJ indexes
// beside the WARC files of dir (written when a WARC file is closed: the
// file being written has none yet). nil when none lists it.
func findWARCRecord(dir, u string) (*warcRecord, error) {
	idx, err := filepath.Glob(filepath.Join(dir, "*.cdxj"))
	if err != nil {
		return nil, err
	}
	key := archive.SURT(u) + " "
	var best *warcRecord
	for _, name := range idx {
		f, err := os.Open(name)
		if err != nil {
			continue
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for sc.Scan() {
			line := sc.Text()
			if !strings.HasPrefix(line, key) {
				continue
			}
			rest := line[len(key):]
			ts, js, ok := strings.Cut(rest, " ")
			if !ok {
				continue
			}
			var f struct {
				URL      string `json:"url"`
				Filename string `json:"filename"`
				Offset   string `json:"offset"`
				Length   string `json:"length"`
				Mime     string `json:"mime"`
				Status   string `json:"status"`
			}
			// a response has a status; requests, metadata and revisits do not count
			if json.Unmarshal([]byte(js), &f) != nil || f.Mime == "warc/revisit" || f.Status == "" {
				continue
			}
			off, err1 := strconv.ParseInt(f.Offset, 10, 64)
			n, err2 := strconv.ParseInt(f.Length, 10, 64)
			if err1 != nil || err2 != nil || filepath.Base(f.Filename) != f.Filename {
				continue
			}
			if best == nil || ts > best.Timestamp {
				best = &warcRecord{File: f.Filename, Offset: off, Length: n, Timestamp: ts}
			}
		}
		f.Close()
	}
	return best, nil
}

// warcRecord serves the document's WARC response record, decompressed
// (text), as the CDXJ index locates it.
func (c *Console) warcRecord(w http.ResponseWriter, r *http.Request) {
	id, err := storage.ParseDocID(r.PathValue("docId"))
	if err != nil {
		c.fail(w, http.StatusBadRequest, err)
		return
	}
	if c.o.WARCDir == "" {
		c.fail(w, http.StatusNotFound, errors.New("this crawl writes no WARC files (--warc DIR)"))
		return
	}
	p, err := c.o.Store.Page(id)
	if err != nil {
		c.fail(w, http.StatusNotFound, err)
		return
	}
	rec, err := findWARCRecord(c.o.WARCDir, p.URL)
	if err != nil || rec == nil {
		c.fail(w, http.StatusNotFound, fmt.Errorf("no indexed WARC record of %s yet (a WARC file is indexed when it is closed)", p.URL))
		return
	}
	f, err := os.Open(filepath.Join(c.o.WARCDir, rec.File))
	if err != nil {
		c.fail(w, http.StatusNotFound, err)
		return
	}
	defer f.Close()
	zr, err := gzip.NewReader(io.NewSectionReader(f, rec.Offset, rec.Length))
	if err != nil {
		c.fail(w, http.StatusInternalServerError, fmt.Errorf("%s at %d: %w", rec.File, rec.Offset, err))
		return
	}
	zr.Multistream(false)
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	io.Copy(w, io.LimitReader(zr, 64<<20))
}
