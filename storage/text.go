package storage

import (
	"fmt"
	"io"
	"text/tabwriter"
	"time"
	"unicode/utf8"
)

// The text views: what `bloomcrawl query` prints without --json (with it,
// the views of view.go). Each writes aligned "name  value" lines or a
// table through a tabwriter and returns the first write error.

func newTabWriter(w io.Writer) *tabwriter.Writer { return tabwriter.NewWriter(w, 0, 0, 2, ' ', 0) }

// WriteText writes the URL record as `query url` shows it: the document it
// maps to, how that was decided, the fetch and what the site declared.
func (r *URLRecord) WriteText(w io.Writer) error {
	tw := newTabWriter(w)
	fmt.Fprintf(tw, "url\t%s\n", r.URL)
	if r.DocID != 0 {
		fmt.Fprintf(tw, "doc\t%s\n", r.DocID)
	} else {
		fmt.Fprintf(tw, "doc\t(none)\n")
	}
	if r.Duplicate {
		fmt.Fprintf(tw, "duplicate\tyes (%s, distance %d)\n", r.Reason, r.Distance)
		if r.Node != "" {
			fmt.Fprintf(tw, "stored by\tnode %s (cluster: the document is in that node's store)\n", r.Node)
		}
	} else {
		fmt.Fprintf(tw, "duplicate\tno\n")
	}
	fmt.Fprintf(tw, "status\t%d\n", r.Status)
	if r.ContentType != "" {
		fmt.Fprintf(tw, "content type\t%s\n", r.ContentType)
	}
	if !r.FetchedAt.IsZero() {
		fmt.Fprintf(tw, "fetched\t%s\n", r.FetchedAt.Format(time.RFC3339))
	}
	if !r.ChangedAt.IsZero() {
		fmt.Fprintf(tw, "changed\t%s\n", r.ChangedAt.Format(time.RFC3339))
	}
	if n := r.VersionCount(); n > 1 || !r.ChangedAt.IsZero() {
		fmt.Fprintf(tw, "versions\t%d (the stored page is the latest; 'query doc %s' lists those kept)\n", n, r.DocID)
		if !r.VersionAt.IsZero() {
			fmt.Fprintf(tw, "latest version\tsince %s\n", r.VersionAt.Format(time.RFC3339))
		}
		if r.Edits > 0 {
			fmt.Fprintf(tw, "edits\t%d (near-duplicate changes made in place)\n", r.Edits)
		}
	}
	if r.Err != "" {
		fmt.Fprintf(tw, "error\t%s\n", r.Err)
	}
	switch {
	case r.Reason == "noindex":
		fmt.Fprintf(tw, "stored\tno: the page asked not to be indexed (robots meta or X-Robots-Tag noindex); its links were followed\n")
	case r.Hints.Sitemap:
		fmt.Fprintf(tw, "sitemap\tyes (read for its URLs, not stored)\n")
	}
	if h := r.Hints; h.Canonical != "" {
		fmt.Fprintf(tw, "declared canonical\t%s\n", h.Canonical)
	}
	if h := r.Hints; !h.LastMod.IsZero() {
		fmt.Fprintf(tw, "sitemap lastmod\t%s\n", h.LastMod.Format(time.RFC3339))
	}
	if h := r.Hints; !h.NewsPublished.IsZero() || h.NewsTitle != "" {
		fmt.Fprintf(tw, "news\t%s  %s\n", h.NewsPublished.Format(time.RFC3339), h.NewsTitle)
	}
	return tw.Flush()
}

// WriteText writes the page as `query url` and `query doc` show it: its
// fields, then a blank line and its text, cut after 300 characters unless
// fullText (nothing for a page without text).
func (p *Page) WriteText(w io.Writer, fullText bool) error {
	tw := newTabWriter(w)
	fmt.Fprintf(tw, "doc\t%s\n", p.DocID)
	if p.Version > 0 {
		fmt.Fprintf(tw, "version\t%d (fetched: when this version was first fetched)\n", p.Version)
	}
	fmt.Fprintf(tw, "url\t%s\n", p.URL)
	if p.FinalURL != "" && p.FinalURL != p.URL {
		fmt.Fprintf(tw, "final url\t%s\n", p.FinalURL)
	}
	fmt.Fprintf(tw, "title\t%s\n", p.Title)
	fmt.Fprintf(tw, "status\t%d\n", p.Status)
	fmt.Fprintf(tw, "content type\t%s\n", p.ContentType)
	fmt.Fprintf(tw, "fetched\t%s\n", p.FetchedAt.Format(time.RFC3339))
	fmt.Fprintf(tw, "depth\t%d\n", p.Depth)
	if p.Referrer != "" {
		fmt.Fprintf(tw, "referrer\t%s\n", p.Referrer)
	}
	fmt.Fprintf(tw, "fingerprints\ttitle %016x content %016x flags %d\n", p.TitleFP, p.ContentFP, p.FPFlags)
	fmt.Fprintf(tw, "size\ttext %d bytes, html %d bytes\n", len(p.Text), len(p.HTML))
	if err := tw.Flush(); err != nil {
		return err
	}
	text := p.Text
	if !fullText {
		text = truncateRunes(text, 300)
	}
	if text != "" {
		_, err := fmt.Fprintf(w, "\n%s\n", text)
		return err
	}
	return nil
}

// truncateRunes cuts s after n characters, marking the cut with " …".
func truncateRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	i := 0
	for j := range s {
		if i == n {
			return s[:j] + " …"
		}
		i++
	}
	return s
}

// WriteText writes the counts as `query stats` shows them, and the top
// hosts by pages ([Stats.TopHosts]; top <= 0: all).
func (s Stats) WriteText(w io.Writer, top int) error {
	tw := newTabWriter(w)
	fmt.Fprintf(tw, "pages\t%d\n", s.Pages)
	fmt.Fprintf(tw, "urls\t%d\n", s.URLs)
	fmt.Fprintf(tw, "duplicates\t%d\n", s.Duplicates)
	fmt.Fprintf(tw, "urls without document\t%d\n", s.NoDoc)
	fmt.Fprintf(tw, "hosts\t%d\n", s.Hosts)
	fmt.Fprintf(tw, "queued\t%d\n", s.Queue)
	if s.KeptFetches > 0 {
		fmt.Fprintf(tw, "kept fetches\t%d (store.keep_raw: 'query export --warc' writes them losslessly)\n", s.KeptFetches)
	}
	if s.OldVersions > 0 {
		fmt.Fprintf(tw, "old versions\t%d (of refreshed pages; 'query doc ID' lists a page's)\n", s.OldVersions)
	}
	fmt.Fprintf(tw, "disk bytes\t%d\n", s.DiskBytes)
	if hosts := s.TopHosts(top); len(hosts) > 0 {
		fmt.Fprintf(tw, "\npages per host\t\n")
		for _, h := range hosts {
			fmt.Fprintf(tw, "  %s\t%d\n", h.Host, h.Pages)
		}
		if len(hosts) < s.Hosts {
			fmt.Fprintf(tw, "  (%d more hosts; --top 0 lists all)\t\n", s.Hosts-len(hosts))
		}
	}
	return tw.Flush()
}

// CheckView is a [DB.Check] as `query check --json` prints it: its report
// and its error (absent when the store is consistent).
type CheckView struct {
	OK          bool   `json:"ok"`
	Pages       int    `json:"pages"`
	URLs        int    `json:"urls"`
	Indexes     int    `json:"index_entries"`
	PendingRefs int    `json:"pending_refs"`
	Error       string `json:"error,omitempty"`
}

// View returns the report of a Check that returned err as a CheckView.
func (r CheckReport) View(err error) CheckView {
	v := CheckView{err == nil, r.Pages, r.URLs, r.Indexes, r.PendingRefs, ""}
	if err != nil {
		v.Error = err.Error()
	}
	return v
}

// WriteText writes the check as `query check` shows it: the counts, then
// "store is consistent" when it is.
func (v CheckView) WriteText(w io.Writer) error {
	if _, err := fmt.Fprintf(w, "checked %d pages, %d URL records, %d index entries; %d URL records name a document not stored\n",
		v.Pages, v.URLs, v.Indexes, v.PendingRefs); err != nil || !v.OK {
		return err
	}
	_, err := fmt.Fprintln(w, "store is consistent")
	return err
}
