package storage

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"
)

// The answers of `bloomcrawl query`: each marshals to the JSON that
// `query --json` prints and writes the text it prints without --json
// (WriteText).

// URLAnswer is a URL's record and the page it maps to (`query url`);
// Page is nil for a URL recorded without a stored document (a fetch
// error, a non-HTML answer, a duplicate whose original is not stored yet).
type URLAnswer struct {
	URL  URLView   `json:"url_record"`
	Page *PageView `json:"page,omitempty"`
	rec  URLRecord
	page *Page
}

// URLAnswer looks up URL u (as [DB.PageByURL]); a URL recorded without a
// stored document is an answer without Page. Errors wrap ErrNotFound when
// no URL record exists.
func (db *DB) URLAnswer(u string) (URLAnswer, error) {
	p, rec, err := db.PageByURL(u)
	noDoc := errors.Is(err, ErrNotFound) && rec.URL != ""
	if err != nil && !noDoc {
		return URLAnswer{}, err
	}
	a := URLAnswer{URL: rec.View(), rec: rec}
	if !noDoc {
		pv := p.View(ViewOptions{})
		a.Page, a.page = &pv, &p
	}
	return a, nil
}

// WriteText writes the URL record, then the page (or a line saying its
// document is not stored).
func (a URLAnswer) WriteText(w io.Writer) error {
	if err := a.rec.WriteText(w); err != nil {
		return err
	}
	var err error
	switch {
	case a.page != nil:
		if _, err = fmt.Fprintln(w); err == nil {
			err = a.page.WriteText(w, false)
		}
	case a.rec.DocID != 0:
		_, err = fmt.Fprintf(w, "\ndocument %s is not stored (yet)\n", a.rec.DocID)
	}
	return err
}

// DocURLs are the URLs mapped to one document (`query dups`).
type DocURLs struct {
	DocID DocID     `json:"doc_id"`
	URLs  []URLView `json:"urls"`
	recs  []URLRecord
}

// DocURLs returns the URLs mapped to document id, the original's first.
// Errors wrap ErrNotFound when none is.
func (db *DB) DocURLs(id DocID) (DocURLs, error) {
	recs, err := db.URLs(id)
	if err == nil && len(recs) == 0 {
		err = fmt.Errorf("document %s: %w", id, ErrNotFound)
	}
	return DocURLs{DocID: id, URLs: urlViews(recs), recs: recs}, err
}

// urlViews returns the views of recs (nil for none).
func urlViews(recs []URLRecord) []URLView {
	var out []URLView
	for _, r := range recs {
		out = append(out, r.View())
	}
	return out
}

// WriteText writes a table of each URL, its role (original or
// duplicate), the reason and the distance.
func (d DocURLs) WriteText(w io.Writer) error {
	tw := newTabWriter(w)
	fmt.Fprintf(tw, "URL\tROLE\tREASON\tDISTANCE\n")
	for _, r := range d.recs {
		role := "original"
		if r.Duplicate {
			role = "duplicate"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\n", r.URL, role, r.Reason, r.Distance)
	}
	return tw.Flush()
}

// DocAnswer is a document with its text, its URLs and the versions kept
// (`query doc --json`).
type DocAnswer struct {
	PageView
	URLs     []URLView     `json:"urls"`
	Versions []VersionInfo `json:"versions"`
}

// DocAnswer returns d with its document's URLs.
func (db *DB) DocAnswer(d *Doc) (DocAnswer, error) {
	recs, err := db.URLs(d.Page.DocID)
	return DocAnswer{PageView: d.Page.View(ViewOptions{Text: true}), URLs: urlViews(recs), Versions: d.Versions}, err
}

// SimilarAnswer is the pages similar to a document (`query similar`).
type SimilarAnswer struct {
	DocID   DocID         `json:"doc_id"`
	Similar []SimilarPage `json:"similar"`
}

// WriteText writes a table of the similar pages, or a line saying there
// are none.
func (a SimilarAnswer) WriteText(w io.Writer) error {
	if len(a.Similar) == 0 {
		_, err := fmt.Fprintf(w, "no page shares a MinHash band with %s\n", a.DocID)
		return err
	}
	tw := newTabWriter(w)
	fmt.Fprintf(tw, "DOCID\tBANDS\tJACCARD~\tURL\tTITLE\n")
	for _, p := range a.Similar {
		fmt.Fprintf(tw, "%s\t%d\t%.2f\t%s\t%s\n", p.DocID, p.Bands, p.Jaccard, p.URL, truncateRunes(p.Title, 60))
	}
	return tw.Flush()
}

// ListAnswer is a batch of [DB.List] (`query list`): the pages and the
// cursor of the next batch ("" after the last).
type ListAnswer struct {
	Pages []PageView `json:"pages"`
	Next  string     `json:"next,omitempty"`
	pages []Page
}

// ListAnswer lists pages as [DB.List] does.
func (db *DB) ListAnswer(ctx context.Context, o ListOptions) (ListAnswer, error) {
	pages, next, err := db.List(ctx, o)
	a := ListAnswer{Pages: []PageView{}, Next: next, pages: pages}
	for _, p := range pages {
		a.Pages = append(a.Pages, p.View(ViewOptions{}))
	}
	return a, err
}

// WriteText writes a table of the pages, then the cursor of the next
// batch (if any).
func (a ListAnswer) WriteText(w io.Writer) error {
	tw := newTabWriter(w)
	fmt.Fprintf(tw, "DOC\tFETCHED\tURL\tTITLE\n")
	for _, p := range a.pages {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", p.DocID, p.FetchedAt.Format(time.RFC3339), p.URL, truncateRunes(p.Title, 60))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if a.Next != "" {
		_, err := fmt.Fprintf(w, "next page: --after %s\n", a.Next)
		return err
	}
	return nil
}

// Doc is one version of a document and the versions kept (`query doc`).
type Doc struct {
	Page     Page
	Versions []VersionInfo // oldest first
	Shown    int           // the version Page is
}

// Doc returns version n of document id (0: the stored page, the latest)
// and the versions kept. Errors are those of [DB.Versions], [DB.Page] and
// [DB.PageVersion].
func (db *DB) Doc(id DocID, n int) (Doc, error) {
	versions, err := db.Versions(id)
	if err != nil {
		return Doc{}, err
	}
	d := Doc{Versions: versions, Shown: n}
	if n == 0 {
		d.Page, err = db.Page(id) // the stored page, as always
		d.Shown = versions[len(versions)-1].N
	} else {
		d.Page, err = db.PageVersion(id, n)
	}
	return d, err
}

// Latest reports whether d.Page is the stored page, the latest version
// (the only one whose HTML is kept).
func (d *Doc) Latest() bool { return d.Shown == d.Versions[len(d.Versions)-1].N }

// WriteText writes the page (its whole text if fullText, else its first
// 300 characters), then the versions kept, marking the one shown
// (nothing for a page never refreshed into a new version).
func (d *Doc) WriteText(w io.Writer, fullText bool) error {
	if err := d.Page.WriteText(w, fullText); err != nil {
		return err
	}
	latest := d.Versions[len(d.Versions)-1].N
	if len(d.Versions) <= 1 && latest <= 1 {
		return nil
	}
	fmt.Fprintf(w, "\nversions kept (%d of %d; --version K shows one):\n", len(d.Versions), latest)
	tw := newTabWriter(w)
	for _, v := range d.Versions {
		mark := ""
		if v.N == d.Shown {
			mark = "  <- shown"
		}
		fmt.Fprintf(tw, "  %d\t%s\t%d bytes\t%s%s\n", v.N, v.FetchedAt.Format(time.RFC3339), v.TextBytes, truncateRunes(v.Title, 60), mark)
	}
	return tw.Flush()
}
