package samplesite

import (
	"context"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/bloomcrawl/bloomcrawl/storage"
)

// URLOutcome is what a crawl did with one URL, as its store recorded it.
type URLOutcome struct {
	URL      string        `json:"url"`
	DocID    storage.DocID `json:"doc_id,omitempty"`
	KeptURL  string        `json:"kept_url,omitempty"` // the URL the document was stored under
	Reason   string        `json:"reason,omitempty"`
	Distance int           `json:"distance,omitempty"`
	Status   int           `json:"status,omitempty"`
	Type     string        `json:"content_type,omitempty"`
	Err      string        `json:"error,omitempty"`
}

// Outcomes are where the URLs of a crawl went ('bloomcrawl demo'): stored
// as new documents, mapped to another URL's document, or recorded and not
// stored.
type Outcomes struct {
	Stored     []URLOutcome `json:"stored"`
	Duplicates []URLOutcome `json:"duplicates"`
	NotStored  []URLOutcome `json:"not_stored"`
}

// urlRecords is the part of *storage.DB ReadOutcomes reads.
type urlRecords interface {
	ForEachURL(ctx context.Context, fn func(storage.URLRecord) error) error
	Page(docID storage.DocID) (storage.Page, error)
}

// ReadOutcomes reads every URL record of db, in the store's order, with
// base (the site's "http://127.0.0.1:PORT") cut from the URLs.
func ReadOutcomes(ctx context.Context, db urlRecords, base string) (*Outcomes, error) {
	var o Outcomes
	err := db.ForEachURL(ctx, func(r storage.URLRecord) error {
		d := URLOutcome{URL: strings.TrimPrefix(r.URL, base), DocID: r.DocID, Reason: r.Reason, Distance: r.Distance,
			Status: r.Status, Type: r.ContentType, Err: r.Err}
		switch {
		case r.DocID != 0 && !r.Duplicate:
			o.Stored = append(o.Stored, d)
		case r.DocID != 0:
			if p, err := db.Page(r.DocID); err == nil {
				d.KeptURL = strings.TrimPrefix(p.URL, base)
			}
			o.Duplicates = append(o.Duplicates, d)
		default:
			o.NotStored = append(o.NotStored, d)
		}
		return nil
	})
	return &o, err
}

// WriteText writes the demo's report of o: the duplicates (sorted by the
// URL they were stored as, in place) with the reason for each, the URLs
// recorded and not stored, and how many documents the store in dir holds;
// kept says whether dir outlives the command.
func (o *Outcomes) WriteText(w io.Writer, dir string, kept bool) {
	sort.Slice(o.Duplicates, func(i, j int) bool {
		a, b := o.Duplicates[i], o.Duplicates[j]
		if a.KeptURL != b.KeptURL {
			return a.KeptURL < b.KeptURL
		}
		return a.URL < b.URL
	})
	fmt.Fprintf(w, "\nWhere the duplicates went: %d URLs share the document of another URL\n", len(o.Duplicates))
	width, keptWidth := 0, 0
	for _, d := range o.Duplicates {
		width, keptWidth = max(width, len(d.URL)), max(keptWidth, len(d.KeptURL))
	}
	for _, d := range o.NotStored {
		width = max(width, len(d.URL))
	}
	fmt.Fprintf(w, "  %-*s    %-16s  %-*s  %s\n", width, "URL", "docId", keptWidth, "stored as", "why")
	for _, d := range o.Duplicates {
		fmt.Fprintf(w, "  %-*s -> %s  %-*s  %s\n", width, d.URL, d.DocID, keptWidth, d.KeptURL, d.why())
	}
	fmt.Fprintf(w, "\nRecorded, not stored (%d URLs):\n", len(o.NotStored))
	for _, d := range o.NotStored {
		fmt.Fprintf(w, "  %-*s  %s\n", width, d.URL, d.what())
	}
	fmt.Fprintf(w, "\n%d documents stored.", len(o.Stored))
	if kept {
		fmt.Fprintf(w, " Look at them with:\n  bloomcrawl query --store %s stats\n", dir)
	} else {
		fmt.Fprintf(w, " (The temporary store is removed; run 'bloomcrawl demo --store DIR' to keep it for 'bloomcrawl query'.)\n")
	}
}

// why says why a duplicate was mapped to the document it shares.
func (d URLOutcome) why() string {
	switch d.Reason {
	case "content":
		return fmt.Sprintf("content SimHash %d bits apart", d.Distance)
	case "title":
		return fmt.Sprintf("same title, content %d bits apart", d.Distance)
	case "url":
		return "same URL"
	case "redirect":
		return "redirects there"
	case "canonical":
		return fmt.Sprintf("declares it rel=canonical, content %d bits apart", d.Distance)
	}
	return d.Reason
}

// what says why a URL recorded was not stored.
func (d URLOutcome) what() string {
	what := d.Err
	switch {
	case d.Reason == "noindex":
		what = "noindex: the page asked not to be stored (links followed)"
	case d.Reason == "sitemap" && what == "":
		what = "sitemap (read for its URLs)"
	case what == "" && d.Type != "":
		what = "non-HTML: " + d.Type
	case d.Status != 0:
		what = fmt.Sprintf("HTTP %d: %s", d.Status, what)
	}
	return what
}
