package crawler

import (
	"bytes"
	"fmt"
	"mime"
	"net/url"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/PuerkitoBio/goquery"
	"github.com/saintfish/chardet"
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
	"golang.org/x/net/html/charset"
	"golang.org/x/text/transform"
)

// Document is what the crawler extracts from one HTML page.
type Document struct {
	Title string   // <title>, or the first <h1> when the title is empty
	Text  string   // main text: the article or the page's main region, without template and widgets (see docs/extraction.md)
	Links []string // href values of <a> and <area>, as written (resolve them against Base); not rel=nofollow ones
	// NofollowLinks are the href values of links marked rel="nofollow",
	// "sponsored" or "ugc" (followed only with
	// politeness.follow_nofollow_links).
	NofollowLinks []string
	Base          *url.URL // the URL relative links resolve against (<base href> or the page URL)
	// Canonical is the href of the first <link rel="canonical">, as
	// written ("" when none); resolve it against Base.
	Canonical string
	// RobotsMeta are the <meta name=... content=...> elements whose content
	// holds a robots directive (noindex, nofollow or none), name
	// lowercased: the caller decides which names apply to it ("robots",
	// its own user agent's token).
	RobotsMeta []RobotsMeta
	HTML       []byte // the page as UTF-8
	// Charset is the encoding the page was decoded from ("utf-8" when it
	// needed no decoding).
	Charset string
	// Meta is what the page states about itself: language, publication
	// date, author (from <html lang>, meta tags, JSON-LD, <time>).
	Meta Meta

	content *content // the main region, for Markdown
	// serverHTML is, for a rendered page, the HTML the server sent (HTML
	// is then the rendered DOM).
	serverHTML []byte
	root       *html.Node // the parsed page (fetch.render's check)
}

// Markdown renders the main content (what Text holds) as Markdown:
// headings, paragraphs, lists, code blocks, tables, links resolved against
// Base. It is rendered on each call (a crawl does not: rendering every
// page cost about a sixth of a docs crawl's CPU; see docs/extraction.md),
// from the parse Extract made.
func (d *Document) Markdown() string { return markdown(d.content, d.Base) }

// Markdown extracts an HTML page stored as UTF-8 (a stored page's HTML)
// and renders its main content as Markdown; pageURL resolves its links.
func Markdown(page []byte, pageURL *url.URL) (string, error) {
	d, err := Extract(page, "text/html; charset=utf-8", true, pageURL)
	if err != nil {
		return "", err
	}
	return d.Markdown(), nil
}

// Extract decodes body to UTF-8 and parses it. contentType is the
// response's Content-Type; alreadyUTF8 says the body was already converted
// from the charset that header declares (colly does so). pageURL is the URL
// the page was served from (after redirects).
func Extract(body []byte, contentType string, alreadyUTF8 bool, pageURL *url.URL) (*Document, error) {
	utf8Body, cs, err := decode(body, contentType, alreadyUTF8)
	if err != nil {
		return nil, fmt.Errorf("crawler: decode %s: %w", pageURL, err)
	}
	doc, err := goquery.NewDocumentFromReader(bytes.NewReader(utf8Body))
	if err != nil {
		return nil, fmt.Errorf("crawler: parse %s: %w", pageURL, err)
	}
	var sc scan
	for _, n := range doc.Nodes {
		sc.walk(n)
	}
	if fixed := unclosedTitle(utf8Body, &sc); fixed != nil {
		// the page's <title> is never closed: to a browser the whole page
		// is its title; its text is read as if the tag were not there
		if doc2, err := goquery.NewDocumentFromReader(bytes.NewReader(fixed)); err == nil {
			doc, sc = doc2, scan{}
			for _, n := range doc.Nodes {
				sc.walk(n)
			}
		}
	}
	d := &Document{HTML: utf8Body, Charset: cs, Base: pageURL}
	if len(doc.Nodes) > 0 {
		d.root = doc.Nodes[0]
	}
	if sc.base != nil {
		href, _ := attr(sc.base, "href")
		if b, err := pageURL.Parse(strings.TrimSpace(href)); err == nil {
			d.Base = b
		}
	}
	d.Title = pageTitle(collapse(nodeText(sc.title)), collapse(nodeText(sc.h1)))
	for _, a := range sc.links {
		href, _ := attr(a, "href")
		if href = strings.TrimSpace(href); href == "" || strings.HasPrefix(href, "#") {
			continue
		}
		if rel, _ := attr(a, "rel"); isNofollow(rel) {
			d.NofollowLinks = append(d.NofollowLinks, href)
		} else {
			d.Links = append(d.Links, href)
		}
	}
	if sc.canonical != nil {
		href, _ := attr(sc.canonical, "href")
		d.Canonical = strings.TrimSpace(href)
	}
	for _, m := range sc.metas {
		name, _ := attr(m, "name")
		content, _ := attr(m, "content")
		if hasRobotsDirective(content) {
			d.RobotsMeta = append(d.RobotsMeta, RobotsMeta{Name: strings.ToLower(strings.TrimSpace(name)), Content: content})
		}
	}
	var c *content
	d.Text, c = mainText(doc, &sc)
	d.Meta = pageMeta(&sc)
	d.content = c
	return d, nil
}

// unclosedTitle returns page without its <title> start tag when that
// title swallowed the page (no </title> closes it, so the body is empty
// and the title holds markup), else nil.
func unclosedTitle(page []byte, sc *scan) []byte {
	if sc.title == nil || sc.body != nil && sc.body.FirstChild != nil {
		return nil
	}
	t := sc.title.FirstChild
	if t == nil || t.Type != html.TextNode || len(t.Data) < 1024 || !strings.Contains(t.Data, "</") {
		return nil
	}
	i := bytes.Index(bytes.ToLower(page[:min(len(page), 1<<16)]), []byte("<title"))
	if i < 0 {
		return nil
	}
	j := bytes.IndexByte(page[i:], '>')
	if j < 0 {
		return nil
	}
	return append(page[:i:i], page[i+j+1:]...)
}

// RobotsMeta is one <meta name=NAME content=CONTENT> with a robots
// directive in its content.
type RobotsMeta struct{ Name, Content string }

// isNofollow reports whether a rel attribute marks a link not to be
// followed: nofollow, or sponsored or ugc (which imply it).
func isNofollow(rel string) bool {
	for _, v := range strings.Fields(strings.ToLower(rel)) {
		if v == "nofollow" || v == "sponsored" || v == "ugc" {
			return true
		}
	}
	return false
}

// Directives are the robots directives that apply to a page.
type Directives struct {
	NoIndex  bool // do not store the page
	NoFollow bool // do not follow its links
}

// ParseDirectives adds the directives of a robots meta content or an
// X-Robots-Tag value ("noindex, nofollow", "none") to d. An X-Robots-Tag
// value may name a user agent first ("otherbot: noindex"); such a value
// applies only when that agent is agent (our user agent's product token,
// lowercase) — pass its directives with the agent prefix as written.
func (d *Directives) ParseDirectives(v, agent string) {
	if name, rest, ok := strings.Cut(v, ":"); ok && !strings.ContainsAny(name, ",") {
		n := strings.ToLower(strings.TrimSpace(name))
		switch n {
		case "noindex", "nofollow", "none", "all", "index", "follow", "noarchive", "nosnippet", "unavailable_after", "max-snippet", "max-image-preview", "max-video-preview", "notranslate", "noimageindex", "indexifembedded":
			// a directive with a value ("unavailable_after: date"), not an agent
		default:
			if n != agent {
				return
			}
			v = rest
		}
	}
	for _, t := range strings.Split(v, ",") {
		switch strings.ToLower(strings.TrimSpace(t)) {
		case "noindex":
			d.NoIndex = true
		case "nofollow":
			d.NoFollow = true
		case "none":
			d.NoIndex, d.NoFollow = true, true
		}
	}
}

// hasRobotsDirective reports whether content holds noindex, nofollow or
// none.
func hasRobotsDirective(content string) bool {
	var d Directives
	d.ParseDirectives(content, "")
	return d.NoIndex || d.NoFollow
}

// scan is what one walk over the parsed page finds (one walk instead of a
// selector query per item: the queries each walked the whole tree).
type scan struct {
	base, title, h1 *html.Node   // the first <base href>, <title>, <h1>
	canonical       *html.Node   // the first <link rel=canonical href>
	metas           []*html.Node // <meta name content>
	links           []*html.Node // <a href> and <area href>, in document order
	mains, articles []*html.Node // <main> or [role=main] elements; <article>s
	body            *html.Node
	root            *html.Node   // <html>
	props           []*html.Node // <meta property|itemprop content>
	ldjson          []*html.Node // <script type=application/ld+json>
	ld              *ldResult    // ldArticle's answer, once asked
	time            *html.Node   // the first <time datetime>
	articleBody     *html.Node   // the first [itemprop=articleBody] element
	wrappers        []*html.Node // <header>s: sometimes left open over the page
}

func (s *scan) walk(n *html.Node) {
	if n.Type == html.ElementNode {
		_, hasHref := attr(n, "href")
		switch n.DataAtom {
		case atom.Base:
			if hasHref && s.base == nil {
				s.base = n
			}
		case atom.Title:
			if s.title == nil {
				s.title = n
			}
		case atom.Link:
			if rel, _ := attr(n, "rel"); hasHref && s.canonical == nil && hasToken(rel, "canonical") {
				s.canonical = n
			}
		case atom.Meta:
			if _, ok := attr(n, "name"); ok {
				s.metas = append(s.metas, n)
			} else if _, ok := attr(n, "property"); ok {
				s.props = append(s.props, n)
			} else if _, ok := attr(n, "itemprop"); ok {
				s.props = append(s.props, n)
			}
		case atom.Html:
			if s.root == nil {
				s.root = n
			}
		case atom.Script:
			if t, _ := attr(n, "type"); strings.EqualFold(strings.TrimSpace(t), "application/ld+json") {
				s.ldjson = append(s.ldjson, n)
			}
		case atom.Time:
			if _, ok := attr(n, "datetime"); ok && s.time == nil {
				s.time = n
			}
		case atom.H1:
			if s.h1 == nil {
				s.h1 = n
			}
		case atom.A, atom.Area:
			if hasHref {
				s.links = append(s.links, n)
			}
		case atom.Article:
			s.articles = append(s.articles, n)
		case atom.Header:
			s.wrappers = append(s.wrappers, n)
		case atom.Body:
			if s.body == nil {
				s.body = n
			}
		}
		if s.articleBody == nil && n.DataAtom != atom.Meta {
			if ip, ok := attr(n, "itemprop"); ok && hasToken(ip, "articleBody") {
				s.articleBody = n
			}
		}
		if role, _ := attr(n, "role"); n.DataAtom == atom.Main || role == "main" {
			s.mains = append(s.mains, n)
		}
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		s.walk(c)
	}
}

// LinkHeaderCanonical returns the target of the first rel="canonical" link
// in HTTP Link header values (`<https://e.com/a>; rel="canonical"`), as
// written, or "".
func LinkHeaderCanonical(values []string) string {
	for _, v := range values {
		for v != "" {
			i := strings.IndexByte(v, '<')
			if i < 0 {
				break
			}
			j := strings.IndexByte(v[i:], '>')
			if j < 0 {
				break
			}
			target := v[i+1 : i+j]
			rest := v[i+j+1:]
			params := rest
			if k := strings.IndexByte(rest, '<'); k >= 0 {
				params = rest[:k]
			}
			for _, p := range strings.Split(params, ";") {
				name, val, ok := strings.Cut(strings.TrimSpace(p), "=")
				if ok && strings.EqualFold(strings.TrimSpace(name), "rel") && hasToken(strings.Trim(strings.TrimSpace(val), `"`), "canonical") {
					return strings.TrimSpace(target)
				}
			}
			v = rest
		}
	}
	return ""
}

// hasToken reports whether the space-separated list v holds tok (ASCII
// case-insensitive).
func hasToken(v, tok string) bool {
	for _, f := range strings.Fields(v) {
		if strings.EqualFold(f, tok) {
			return true
		}
	}
	return false
}

// attr returns the value of n's first attribute named key, in any
// namespace, as goquery's Selection.Attr (so an SVG <a xlink:href> is a
// link too).
func attr(n *html.Node, key string) (string, bool) {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val, true
		}
	}
	return "", false
}

// nodeText is goquery's Selection.Text of n: its descendant text nodes
// ("" for nil n).
func nodeText(n *html.Node) string {
	if n == nil {
		return ""
	}
	return goquery.NewDocumentFromNode(n).Text()
}

// pageTitle returns the document's title: the <title> without site
// branding when it is the <h1> plus a separator and a site name ("Item |
// Site", "Site - Item"), so that one article syndicated on two sites has one
// title; the <h1> when there is no <title>.
func pageTitle(title, h1 string) string {
	if title == "" || h1 == "" || title == h1 {
		if title == "" {
			return h1
		}
		return title
	}
	const seps = "|-–—·:»«/"
	if rest, ok := strings.CutPrefix(title, h1); ok {
		if r := strings.TrimSpace(rest); r != "" && strings.ContainsRune(seps, []rune(r)[0]) {
			return h1
		}
	}
	if rest, ok := strings.CutSuffix(title, h1); ok {
		if r := []rune(strings.TrimSpace(rest)); len(r) > 0 && strings.ContainsRune(seps, r[len(r)-1]) {
			return h1
		}
	}
	return title
}

// decode returns body as UTF-8 and the name of the charset it came from.
func decode(body []byte, contentType string, alreadyUTF8 bool) ([]byte, string, error) {
	if alreadyUTF8 {
		return body, "utf-8", nil
	}
	enc, name, certain := charset.DetermineEncoding(body, contentType)
	if !certain && name == "windows-1252" {
		if !hasHighBit(body) {
			return body, "utf-8", nil // ASCII
		}
		// Nothing declared and not UTF-8: guess from the bytes. Chinese pages
		// without a declaration are common; windows-1252 would garble them.
		if r, err := chardet.NewHtmlDetector().DetectBest(body); err == nil && r.Confidence >= 50 {
			// chardet says "GB-18030" where the WHATWG label is "gb18030".
			for _, label := range []string{r.Charset, strings.ReplaceAll(r.Charset, "-", "")} {
				if e, n := charset.Lookup(label); e != nil {
					enc, name = e, n
					break
				}
			}
		}
	}
	if name == "utf-8" {
		return body, name, nil
	}
	out, _, err := transform.Bytes(enc.NewDecoder(), body)
	if err != nil {
		return nil, name, fmt.Errorf("charset %s: %w", name, err)
	}
	return out, name, nil
}

func hasHighBit(b []byte) bool {
	for _, c := range b {
		if c >= 0x80 {
			return true
		}
	}
	return false
}

// declaredCharset returns the charset parameter of a Content-Type ("" if none).
func declaredCharset(contentType string) string {
	_, params, err := mime.ParseMediaType(contentType)
	if err != nil {
		return ""
	}
	return strings.ToLower(params["charset"])
}

// mainText returns the page's main text: the region chooseContent picks
// (the one <main>, [role=main] or <article>; else the best-scoring block of
// <body> and its like siblings), without boilerplate (see isBoilerplate and
// content.dropped), with block elements separated by newlines and
// whitespace collapsed.
func mainText(doc *goquery.Document, sc *scan) (string, *content) {
	c := chooseContent(sc, doc.Nodes)
	w := textWriter{skip: c.skip, drop: c.drop}
	for _, n := range c.roots {
		w.node(n)
	}
	return w.String(), c
}

// isBoilerplate reports whether an element is left out of the main text:
// scripts and styles, and the template parts that repeat on every page of a
// site (navigation, header, footer, asides, forms, hidden elements).
func isBoilerplate(n *html.Node) bool {
	switch n.DataAtom {
	case atom.Script, atom.Style, atom.Noscript, atom.Template, atom.Svg, atom.Iframe, atom.Object,
		atom.Nav, atom.Header, atom.Footer, atom.Aside, atom.Form, atom.Button, atom.Select:
		return true
	}
	for _, a := range n.Attr {
		switch a.Key {
		case "hidden":
			return true
		case "aria-hidden":
			if a.Val == "true" {
				return true
			}
		case "role":
			switch a.Val {
			case "navigation", "banner", "contentinfo", "search":
				return true
			}
		}
	}
	return false
}

// textWriter collects text with whitespace collapsed in one pass: runs of
// spaces become one space, block boundaries one newline, no empty lines.
type textWriter struct {
	skip    func(*html.Node) bool // the boilerplate test; nil: isBoilerplate
	drop    map[*html.Node]bool   // elements left out
	b       strings.Builder
	pending byte // ' ' or '\n' to write before the next text, 0 for none
}

func (w *textWriter) text(s string) {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if asciiSpace[c] {
				if w.pending == 0 {
					w.pending = ' '
				}
				i++
				continue
			}
			// a run of printable ASCII is copied at once
			j := i + 1
			for j < len(s) && s[j] < utf8.RuneSelf && !asciiSpace[s[j]] {
				j++
			}
			w.flushPending()
			w.b.WriteString(s[i:j])
			i = j
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if unicode.IsSpace(r) {
			if w.pending == 0 {
				w.pending = ' '
			}
		} else {
			w.flushPending()
			w.b.WriteRune(r) // (an invalid byte becomes U+FFFD)
		}
		i += size
	}
}

func (w *textWriter) flushPending() {
	if w.pending != 0 && w.b.Len() > 0 {
		w.b.WriteByte(w.pending)
	}
	w.pending = 0
}

// asciiSpace marks the ASCII characters unicode.IsSpace reports.
var asciiSpace = [utf8.RuneSelf]bool{'\t': true, '\n': true, '\v': true, '\f': true, '\r': true, ' ': true}

func (w *textWriter) newline() { w.pending = '\n' }

func (w *textWriter) String() string { return w.b.String() }

func (w *textWriter) node(n *html.Node) {
	switch n.Type {
	case html.TextNode:
		w.text(n.Data)
		return
	case html.ElementNode:
		if w.drop[n] || (w.skip == nil && isBoilerplate(n)) || (w.skip != nil && w.skip(n)) {
			return
		}
	case html.DocumentNode:
	default:
		return
	}
	block := n.Type == html.ElementNode && isBlock(n.DataAtom)
	if block {
		w.newline()
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		w.node(c)
	}
	if block {
		w.newline()
	} else if (n.DataAtom == atom.Td || n.DataAtom == atom.Th) && w.pending == 0 {
		w.pending = ' '
	}
}

func isBlock(a atom.Atom) bool {
	switch a {
	case atom.P, atom.Div, atom.Section, atom.Article, atom.Main, atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6,
		atom.Li, atom.Ul, atom.Ol, atom.Dl, atom.Dt, atom.Dd, atom.Pre, atom.Blockquote, atom.Table, atom.Tr,
		atom.Br, atom.Hr, atom.Figure, atom.Figcaption, atom.Details, atom.Summary, atom.Body, atom.Caption:
		return true
	}
	return false
}

// collapse folds every run of whitespace into one space and trims.
func collapse(s string) string { return strings.Join(strings.Fields(s), " ") }
