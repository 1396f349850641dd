package storage

import (
	"fmt"
	"time"
)

// PageView is a stored page as bloomcrawl shows it in JSON: `bloomcrawl
// query --json` (url, doc, list), every line of `query export` and
// [DB.Export], and the HTTP API's pages all print this one shape. DocIDs
// are 16 hex digits ([DocID.String]) and so are the fingerprints.
//
// Text is present only when asked for ([ViewOptions.Text]; "" for a page
// whose text is empty), HTML only when asked for and not empty, the body
// sizes only when the bodies were read, and Duplicates only in export
// lines.
type PageView struct {
	DocID       DocID     `json:"doc_id"`
	URL         string    `json:"url"`
	FinalURL    string    `json:"final_url,omitempty"`
	Status      int       `json:"status"`
	ContentType string    `json:"content_type,omitempty"`
	FetchedAt   time.Time `json:"fetched_at"`
	Title       string    `json:"title"`
	TitleFP     string    `json:"title_fp"`
	ContentFP   string    `json:"content_fp"`
	FPFlags     uint8     `json:"fp_flags"`
	Depth       int       `json:"depth"`
	Referrer    string    `json:"referrer,omitempty"`
	// What the page states (absent when it does not, or it was stored
	// before these fields): language, publication date, author, the
	// canonical URL it declares.
	Lang      string  `json:"lang,omitempty"`
	Published string  `json:"published,omitempty"`
	Author    string  `json:"author,omitempty"`
	Canonical string  `json:"canonical,omitempty"`
	TextBytes int     `json:"text_bytes,omitempty"`
	HTMLBytes int     `json:"html_bytes,omitempty"`
	Text      *string `json:"text,omitempty"`
	HTML      string  `json:"html,omitempty"`
	// Markdown is the main content as Markdown, present only when asked
	// for ([ViewOptions.Markdown]) and stored.
	Markdown      string `json:"markdown,omitempty"`
	MarkdownBytes int    `json:"markdown_bytes,omitempty"`
	// Rendered says the page was rendered in a browser (fetch.render):
	// HTML is its rendered DOM, ServerHTML (with ViewOptions.HTML) the
	// HTML the server sent.
	Rendered        bool     `json:"rendered,omitempty"`
	ServerHTMLBytes int      `json:"server_html_bytes,omitempty"`
	ServerHTML      string   `json:"server_html,omitempty"`
	Duplicates      []string `json:"duplicates,omitempty"` // export: the other URLs mapped to this docId
	// Version is the version shown, for a page read as one version of its
	// document (query doc --version, the API's ?version=); FetchedAt is
	// then when that version was first fetched.
	Version int `json:"version,omitempty"`
}

// ViewOptions says which bodies a PageView carries.
type ViewOptions struct {
	Text bool // include the extracted text
	HTML bool // include the raw HTML (and a rendered page's server HTML)
	// Markdown includes the Markdown rendering of the main content.
	Markdown bool
}

// View returns p as a PageView with the bodies o asks for.
func (p *Page) View(o ViewOptions) PageView {
	v := PageView{
		DocID: p.DocID, URL: p.URL, FinalURL: p.FinalURL, Status: p.Status,
		ContentType: p.ContentType, FetchedAt: p.FetchedAt, Title: p.Title,
		TitleFP: hex64(p.TitleFP), ContentFP: hex64(p.ContentFP),
		FPFlags: p.FPFlags, Depth: p.Depth, Referrer: p.Referrer,
		TextBytes: len(p.Text), HTMLBytes: len(p.HTML), Version: p.Version,
		Lang: p.Lang, Published: p.Published, Author: p.Author, Canonical: p.Canonical,
		MarkdownBytes: len(p.Markdown),
	}
	if o.Markdown {
		v.Markdown = p.Markdown
	}
	if o.Text {
		text := p.Text
		v.Text = &text
	}
	if o.HTML {
		v.HTML = string(p.HTML)
		v.ServerHTML = string(p.ServerHTML)
	}
	if p.ServerHTML != nil {
		v.Rendered, v.ServerHTMLBytes = true, len(p.ServerHTML)
	}
	return v
}

// URLView is a URL record as bloomcrawl shows it in JSON (`query url
// --json`, `query doc --json`, `query dups --json` and the HTTP API): the
// document it maps to and how that was decided. DocID is absent for a URL
// without a document (fetch error, non-HTML).
type URLView struct {
	URL         string    `json:"url"`
	DocID       DocID     `json:"doc_id,omitempty"`
	Duplicate   bool      `json:"duplicate"`
	Reason      string    `json:"reason,omitempty"`
	Distance    int       `json:"distance"`
	Status      int       `json:"status"`
	ContentType string    `json:"content_type,omitempty"`
	FetchedAt   time.Time `json:"fetched_at"`
	Err         string    `json:"error,omitempty"`
	// What the site declared about the URL (Hints; absent when nothing).
	Canonical     string     `json:"canonical,omitempty"` // its <link rel="canonical">
	Sitemap       bool       `json:"sitemap,omitempty"`   // the URL is a sitemap (read, not stored)
	LastMod       *time.Time `json:"lastmod,omitempty"`   // a sitemap's <lastmod>
	NewsPublished *time.Time `json:"news_publication_date,omitempty"`
	NewsTitle     string     `json:"news_title,omitempty"`
	// Refreshes (continuous crawl): FetchedAt is the last fetch; ChangedAt
	// the last time a refresh found the title or text changed (absent:
	// never); Versions the versions of the page seen (1 for a URL with its
	// own document that never changed substantially; absent for a
	// duplicate or no document unless counted; the latest
	// recrawl.keep_versions of them are kept), VersionAt when the latest
	// one was first fetched (absent: at the first fetch), Edits the
	// refreshes that changed it in place (near-duplicate edits); ETag and
	// LastModified the last response's validators, sent back on the next
	// refresh.
	ChangedAt    *time.Time `json:"changed_at,omitempty"`
	Versions     int        `json:"versions,omitempty"`
	VersionAt    *time.Time `json:"version_at,omitempty"`
	Edits        int        `json:"edits,omitempty"`
	ETag         string     `json:"etag,omitempty"`
	LastModified string     `json:"last_modified,omitempty"`
	// Node is, in cluster mode, the node whose store holds the document
	// (absent: this store).
	Node string `json:"node,omitempty"`
}

// VersionCount is the number of versions of the page seen: Versions, or 1
// for a URL with its own document that no refresh found changed, or 0.
func (r *URLRecord) VersionCount() int {
	if r.Versions == 0 && r.DocID != 0 && !r.Duplicate {
		return 1
	}
	return r.Versions
}

// View returns r as a URLView.
func (r *URLRecord) View() URLView {
	v := URLView{URL: r.URL, DocID: r.DocID, Duplicate: r.Duplicate, Reason: r.Reason,
		Distance: r.Distance, Status: r.Status, ContentType: r.ContentType,
		FetchedAt: r.FetchedAt, Err: r.Err,
		Canonical: r.Hints.Canonical, Sitemap: r.Hints.Sitemap, NewsTitle: r.Hints.NewsTitle}
	if t := r.Hints.LastMod; !t.IsZero() {
		v.LastMod = &t
	}
	if t := r.Hints.NewsPublished; !t.IsZero() {
		v.NewsPublished = &t
	}
	if t := r.ChangedAt; !t.IsZero() {
		v.ChangedAt = &t
	}
	if t := r.VersionAt; !t.IsZero() {
		v.VersionAt = &t
	}
	v.Versions, v.Edits = r.VersionCount(), r.Edits
	v.ETag, v.LastModified = r.Validators.ETag, r.Validators.LastModified
	v.Node = r.Node
	return v
}

// hex64 spells a 64-bit fingerprint as docIds are spelled: 16 lowercase
// hex digits.
func hex64(v uint64) string { return fmt.Sprintf("%016x", v) }
