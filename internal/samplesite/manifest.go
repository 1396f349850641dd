package samplesite

import (
	"slices"
	"strconv"
)

// Kinds of Doc.
const (
	KindListing = "listing" // "/" and "/intro/": lists of links
	KindArticle = "article" // an English or Chinese article, UTF-8
	KindIntro   = "intro"   // one of the four articles all titled "Introduction"
	KindSlow    = "slow"    // the slow page
	KindCharset = "charset" // a Chinese article served in GBK or GB18030
)

// Kinds of Copy.
const (
	CopyIdentical  = "identical"  // byte-identical page under another URL ("/index.html")
	CopyPrint      = "print"      // same text, print template (no navigation)
	CopySyndicated = "syndicated" // same text, partner template, plus a date line
	CopyEdited     = "edited"     // same template, a few words changed
)

// Manifest is the ground truth of the site: every distinct document and the
// other URLs that carry it, and every URL a crawler must treat specially.
// Paths are absolute paths with query ("/calendar?month=1"), to be joined
// to the base URL the site is served at. Slices are in a fixed order.
type Manifest struct {
	// Docs are the distinct documents reachable from "/", calendar pages
	// excluded. A correct crawl stores exactly one page per Doc.
	Docs []Doc
	// Redirects are every redirect the site answers, loop included.
	Redirects []Redirect
	// Errors are linked URLs that never yield a page.
	Errors []Failure
	// Resources are linked non-HTML responses: recorded, not stored.
	Resources []Resource
	// Disallowed are linked paths that robots.txt disallows; a crawler that
	// obeys robots.txt never requests them.
	Disallowed []string
	// RobotsTxt is the path of robots.txt ("/robots.txt").
	RobotsTxt string
	// Aliases are links as written (resolved to a path, with their query
	// and #fragment) that differ from a canonical URL only by a fragment or
	// utm_* tracking parameters. A crawler canonicalizes them and never
	// requests them as written.
	Aliases []Alias
	// External are off-site or non-HTTP links; never requested.
	External []string
	// Trap describes the calendar URL trap.
	Trap Trap
	// Slow is the path of the slow page (also an entry of Docs).
	Slow string
}

// Doc is one distinct document.
type Doc struct {
	Path    string // its canonical URL path, the one the home page links
	Kind    string // KindListing, KindArticle, KindIntro, KindSlow or KindCharset
	Lang    string // "en" or "zh"
	Title   string // the page's <title> and <h1>, decoded to UTF-8
	Charset string // the encoding served: "utf-8", "gbk" or "gb18030"
	// Snippet is the first sentence of the main text, decoded to UTF-8: a
	// crawler that decoded the page correctly has it in the page's text.
	Snippet string
	Depth   int // fewest links from "/" (0 for "/")
	// Copies are other URLs whose content is this document, exactly or as
	// a near-duplicate; a correct crawl maps them to this Doc's document.
	Copies []Copy
	// Redirects are paths that redirect (possibly in several hops) here.
	Redirects []string
}

// Copy is another URL of a Doc.
type Copy struct {
	Path  string
	Kind  string // CopyIdentical, CopyPrint, CopySyndicated or CopyEdited
	Depth int    // fewest links from "/"
	// SameText is true when the copy's main text (its <p> elements outside
	// header, footer and nav) equals the Doc's: any fingerprint of the two
	// is equal (identical and print copies). It is false for
	// near-duplicates (syndicated copies carry a date line, edited copies
	// differ in a few words): duplicates by construction, which a
	// fingerprint finds only if they fall within its threshold.
	SameText bool
	// Extra is the text a syndicated copy adds (its date line); Note lists
	// the words an edited copy changed ("users→people, ...").
	Extra, Note string
}

// Redirect is one redirect answer.
type Redirect struct {
	From, To string
	Status   int // 301 or 302
}

// Failure is a linked URL that yields no page.
type Failure struct {
	Path   string
	Status int    // HTTP status of the last answer (404), or 302 for the loop
	Reason string // "not found" or "redirect loop"
	Depth  int
}

// Resource is a linked non-HTML response.
type Resource struct {
	Path        string
	ContentType string
	Depth       int
}

// Alias is a link that canonicalizes to another URL.
type Alias struct {
	Href      string // as linked, resolved to a path: "/articles/en/x?utm_source=home#top"
	Canonical string // "/articles/en/x"
}

// Trap is the calendar URL trap: /calendar?month=N (N >= 1) links to N+1
// for ever; month N is First's depth + N - 1 links from "/".
type Trap struct {
	First      string // "/calendar?month=1"
	FirstDepth int    // depth of First (1)
	// Exclude is a regexp for scope.exclude that keeps a crawl out of the
	// trap.
	Exclude string
	// MaxMonth is the largest month served; larger N answer 404.
	MaxMonth int
}

// CalendarPath returns the path of calendar month n (1 = January 2026).
func CalendarPath(n int) string { return "/calendar?month=" + strconv.Itoa(n) }

// DocOf returns the Doc that path belongs to: its Path, one of its Copies
// or one of its Redirects.
func (m *Manifest) DocOf(path string) (Doc, bool) {
	for _, d := range m.Docs {
		if d.Path == path || slices.Contains(d.Redirects, path) ||
			slices.ContainsFunc(d.Copies, func(c Copy) bool { return c.Path == path }) {
			return d, true
		}
	}
	return Doc{}, false
}

// clone returns a deep copy of m.
func (m *Manifest) clone() Manifest {
	c := *m
	c.Docs = make([]Doc, len(m.Docs))
	for i, d := range m.Docs {
		d.Copies = slices.Clone(d.Copies)
		d.Redirects = slices.Clone(d.Redirects)
		c.Docs[i] = d
	}
	c.Redirects = slices.Clone(m.Redirects)
	c.Errors = slices.Clone(m.Errors)
	c.Resources = slices.Clone(m.Resources)
	c.Disallowed = slices.Clone(m.Disallowed)
	c.Aliases = slices.Clone(m.Aliases)
	c.External = slices.Clone(m.External)
	return c
}
