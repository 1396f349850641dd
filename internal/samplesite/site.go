package samplesite

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/net/html"
	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/simplifiedchinese"
)

// DefaultSlowDelay is the default of Options.SlowDelay; MaxSlowDelay bounds
// it.
const (
	DefaultSlowDelay = 500 * time.Millisecond
	MaxSlowDelay     = 10 * time.Second
)

// maxMonth is the largest calendar month served (Trap.MaxMonth).
const maxMonth = 1_000_000_000

// maxLog bounds the request log.
const maxLog = 1 << 16

// Options configure a Site. The zero value gives the defaults.
type Options struct {
	// SlowDelay is how long /slow waits before answering. Default 500ms
	// (when 0); negative means no delay; values above MaxSlowDelay are cut
	// to it.
	SlowDelay time.Duration
}

// Site is the sample website. Its pages are generated once by New; its
// handler is safe for concurrent use, and it logs every request it serves.
type Site struct {
	slowDelay time.Duration
	pages     map[string]*page // by path
	redirects map[string]Redirect
	manifest  Manifest

	mu      sync.Mutex
	log     []string       // request URIs in arrival order (at most maxLog)
	hits    map[string]int // request URI -> count (at most maxLog keys)
	dropped int            // requests not logged because the log was full
}

// page is one static response.
type page struct {
	contentType string
	body        []byte
	links       []string // <a href> targets, resolved to absolute URLs on siteBase
}

// siteBase is the placeholder origin links are resolved against while the
// site is generated; the real base URL is only known once it is served.
var siteBase, _ = url.Parse("http://samplesite.invalid/")

// New generates the site with default Options. Generation is deterministic:
// every call produces the same pages and Manifest.
func New() *Site { return NewWithOptions(Options{}) }

// NewWithOptions generates the site with o.
func NewWithOptions(o Options) *Site {
	delay := o.SlowDelay
	switch {
	case delay == 0:
		delay = DefaultSlowDelay
	case delay < 0:
		delay = 0
	case delay > MaxSlowDelay:
		delay = MaxSlowDelay
	}
	s := &Site{slowDelay: delay, pages: map[string]*page{}, redirects: map[string]Redirect{}, hits: map[string]int{}}
	s.build()
	return s
}

// Manifest returns the site's ground truth (a copy the caller may modify).
func (s *Site) Manifest() Manifest { return s.manifest.clone() }

// SlowDelay returns how long /slow waits.
func (s *Site) SlowDelay() time.Duration { return s.slowDelay }

// Requests returns the request URIs served so far ("/articles/en/x",
// "/calendar?month=3"), in arrival order, and how many more were not logged
// because the log was full.
func (s *Site) Requests() (uris []string, dropped int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.log), s.dropped
}

// Hits returns how many times the request URI uri (path and query) was
// requested.
func (s *Site) Hits(uri string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.hits[uri]
}

func (s *Site) record(uri string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.log) >= maxLog {
		s.dropped++
		return
	}
	s.log = append(s.log, uri)
	if _, ok := s.hits[uri]; ok || len(s.hits) < maxLog {
		s.hits[uri]++
	}
}

// Handler returns the site's HTTP handler. It answers GET and HEAD.
func (s *Site) Handler() http.Handler { return http.HandlerFunc(s.serve) }

func (s *Site) serve(w http.ResponseWriter, r *http.Request) {
	s.record(r.URL.RequestURI())
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	path := r.URL.Path
	switch path {
	case "/calendar":
		s.serveCalendar(w, r)
		return
	case "/slow":
		t := time.NewTimer(s.slowDelay)
		defer t.Stop()
		select {
		case <-t.C:
		case <-r.Context().Done():
			// The client went away or the server is stopping: drop the
			// connection rather than answer 200 with an empty page.
			panic(http.ErrAbortHandler)
		}
	}
	if rd, ok := s.redirects[path]; ok {
		http.Redirect(w, r, rd.To, rd.Status)
		return
	}
	p, ok := s.pages[path]
	if !ok {
		notFound(w)
		return
	}
	writePage(w, p)
}

func writePage(w http.ResponseWriter, p *page) {
	w.Header().Set("Content-Type", p.contentType)
	w.Header().Set("Content-Length", strconv.Itoa(len(p.body)))
	w.Write(p.body) //nolint:errcheck // a failed write means the client left
}

func notFound(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(http.StatusNotFound)
	fmt.Fprint(w, "<!DOCTYPE html>\n<html><head><title>Not found</title></head><body><h1>Not found</h1><p>There is no page at this address.</p><p><a href=\"/\">Home</a></p></body></html>\n")
}

var monthNames = [...]string{"January", "February", "March", "April", "May", "June",
	"July", "August", "September", "October", "November", "December"}

// calendarMonth names month n (1 = January 2026).
func calendarMonth(n int) string {
	return fmt.Sprintf("%s %d", monthNames[(n-1)%12], 2026+(n-1)/12)
}

func (s *Site) serveCalendar(w http.ResponseWriter, r *http.Request) {
	n, err := strconv.Atoi(r.URL.Query().Get("month"))
	if err != nil || n < 1 || n > maxMonth {
		notFound(w)
		return
	}
	d := calendarData{L: langLabels["en"], Month: calendarMonth(n), Next: CalendarPath(n + 1)}
	if n > 1 {
		d.Prev = CalendarPath(n - 1)
	}
	if n == maxMonth {
		d.Next = CalendarPath(n) // never link past the last month served
	}
	var b bytes.Buffer
	if err := templates.ExecuteTemplate(&b, "calendar", d); err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	writePage(w, &page{contentType: "text/html; charset=utf-8", body: b.Bytes()})
}

// siteBuilder generates the site's pages in named steps; its fields carry
// what a later step needs from an earlier one.
type siteBuilder struct {
	s      *Site
	en, zh map[string]article
	byLang map[string]map[string]article
	mains  map[string][]string

	articleDocs map[string]*Doc // by path
	introDocs   []*Doc

	slow, gbk, gb                article
	privatePath, gbkPath, gbPath string
}

// build generates every page, redirect and the Manifest.
func (s *Site) build() {
	b := newSiteBuilder(s)
	b.articles()
	b.intros()
	b.slowAndPrivate()
	b.legacyCharsets()
	b.otherResponses()
	b.home()
	docs := b.manifest()
	b.depths(docs)
}

// newSiteBuilder loads every article the site serves.
func newSiteBuilder(s *Site) *siteBuilder {
	en := map[string]article{}
	zh := map[string]article{}
	for _, slug := range slices.Concat(enMain, enIntro, []string{enSlow, enPrivate}) {
		en[slug] = loadArticle("en", slug)
	}
	for _, slug := range slices.Concat(zhMain, []string{zhGBK, zhGB18030}) {
		zh[slug] = loadArticle("zh", slug)
	}
	return &siteBuilder{
		s:           s,
		en:          en,
		zh:          zh,
		byLang:      map[string]map[string]article{"en": en, "zh": zh},
		mains:       map[string][]string{"en": enMain, "zh": zhMain},
		articleDocs: map[string]*Doc{},
	}
}

// articles renders the articles, their print views, syndicated and mirrored
// copies and old addresses, and records each article's Doc.
func (b *siteBuilder) articles() {
	for _, lang := range []string{"en", "zh"} {
		for i, slug := range b.mains[lang] {
			b.article(lang, i, slug)
		}
	}
}

// article renders the i-th main article of lang, its print view and the
// copy or redirects its position calls for, and records its Doc.
func (b *siteBuilder) article(lang string, i int, slug string) {
	s := b.s
	list := b.mains[lang]
	a := b.byLang[lang][slug]
	path := articlePath(lang, slug)
	printPath := "/print" + path
	other := "en"
	if lang == "en" {
		other = "zh"
	}
	next1 := b.byLang[lang][list[(i+1)%len(list)]]
	next2 := b.byLang[lang][list[(i+2)%len(list)]]
	cross := b.byLang[other][b.mains[other][i]]
	related := []link{
		{Href: "../" + lang + "/" + next1.Slug + "?utm_source=related&utm_medium=web", Text: next1.Title},
		{Href: next2.Slug + "#comments", Text: next2.Title},
		{Href: "../" + other + "/" + cross.Slug, Text: cross.Title},
	}
	s.html(path, "article", articleData{L: langLabels[lang], MetaCharset: "utf-8", Title: a.Title, Paras: a.Paras, PrintHref: printPath, Related: related})
	s.html(printPath, "print", articleData{L: langLabels[lang], MetaCharset: "utf-8", Title: a.Title, Paras: a.Paras, Canonical: path})
	d := &Doc{Path: path, Kind: KindArticle, Lang: lang, Title: a.Title, Charset: "utf-8", Snippet: snippet(a.Paras),
		Copies: []Copy{{Path: printPath, Kind: CopyPrint, SameText: true}}}
	switch i {
	case 0, 1:
		sp := "/syndicated/" + lang + "/" + slug
		s.html(sp, "syndicated", articleData{L: langLabels[lang], MetaCharset: "utf-8", Title: a.Title, Paras: a.Paras})
		d.Copies = append(d.Copies, Copy{Path: sp, Kind: CopySyndicated, Extra: langLabels[lang].Dateline})
	case 2:
		mp := "/mirror/" + lang + "/" + slug
		paras, note := editCopy(lang, a.Paras)
		s.html(mp, "article", articleData{L: langLabels[lang], MetaCharset: "utf-8", Title: a.Title, Paras: paras})
		d.Copies = append(d.Copies, Copy{Path: mp, Kind: CopyEdited, Note: note})
	case 3:
		old := "/old/" + lang + "/" + slug
		if lang == "en" {
			s.redirect(old, path, http.StatusMovedPermanently)
			d.Redirects = []string{old}
		} else {
			// Two hops: a permanent move, then a temporary one.
			mid := "/archive/2024/" + slug
			s.redirect(old, mid, http.StatusMovedPermanently)
			s.redirect(mid, path, http.StatusFound)
			d.Redirects = []string{old, mid}
		}
	}
	b.articleDocs[path] = d
}

// intros renders four different articles, all titled "Introduction", and
// the listing that links them, and records their Docs.
func (b *siteBuilder) intros() {
	var introEntries []link
	for i, slug := range enIntro {
		a := b.en[slug]
		path := "/intro/" + strconv.Itoa(i+1)
		b.s.html(path, "article", articleData{L: langLabels["en"], MetaCharset: "utf-8", Title: "Introduction", Paras: a.Paras})
		b.introDocs = append(b.introDocs, &Doc{Path: path, Kind: KindIntro, Lang: "en", Title: "Introduction", Charset: "utf-8", Snippet: snippet(a.Paras)})
		introEntries = append(introEntries, link{Href: strconv.Itoa(i + 1), Text: "Introduction", Note: a.Title})
	}
	b.s.html("/intro/", "listing", listingData{L: langLabels["en"], Title: "Introductions",
		Intro: "Every chapter of our guide starts with an introduction. They share a title, not their content.", Entries: introEntries})
}

// slowAndPrivate renders the slow page and the page robots.txt disallows.
func (b *siteBuilder) slowAndPrivate() {
	b.slow = b.en[enSlow]
	b.s.html("/slow", "article", articleData{L: langLabels["en"], MetaCharset: "utf-8", Title: b.slow.Title, Paras: b.slow.Paras})
	priv := b.en[enPrivate]
	b.privatePath = "/private/" + enPrivate
	b.s.html(b.privatePath, "article", articleData{L: langLabels["en"], MetaCharset: "utf-8", Title: priv.Title, Paras: priv.Paras})
}

// legacyCharsets renders the Chinese pages served in GBK and GB18030.
func (b *siteBuilder) legacyCharsets() {
	b.gbk = b.zh[zhGBK]
	b.gbkPath = "/gbk/" + zhGBK
	b.s.encoded(b.gbkPath, "text/html; charset=GBK", simplifiedchinese.GBK,
		articleData{L: langLabels["zh"], Title: b.gbk.Title, Paras: b.gbk.Paras})
	b.gb = b.zh[zhGB18030]
	b.gbPath = "/gb18030/" + zhGB18030
	b.s.encoded(b.gbPath, "text/html", simplifiedchinese.GB18030,
		articleData{L: langLabels["zh"], MetaCharset: "gb18030", Title: b.gb.Title, Paras: b.gb.Paras})
}

// otherResponses adds robots.txt, the PDF, the image and the redirect loop.
func (b *siteBuilder) otherResponses() {
	s := b.s
	s.pages["/robots.txt"] = &page{contentType: "text/plain; charset=utf-8",
		body: []byte("# Sample News\nUser-agent: *\nDisallow: /private/\n")}
	s.pages["/files/debian-faq.pdf"] = &page{contentType: "application/pdf", body: samplePDF()}
	s.pages["/images/logo.png"] = &page{contentType: "image/png", body: samplePNG()}
	s.redirect("/loop/a", "/loop/b", http.StatusFound)
	s.redirect("/loop/b", "/loop/a", http.StatusFound)
}

// home renders the home page, served at "/" and "/index.html".
func (b *siteBuilder) home() {
	en, zh := b.en, b.zh
	var enLinks, zhLinks []link
	for i, slug := range enMain {
		href := articlePath("en", slug)
		switch i % 3 {
		case 1:
			href += "#top"
		case 2:
			href += "?utm_source=home&utm_medium=web"
		}
		enLinks = append(enLinks, link{Href: href, Text: en[slug].Title})
	}
	for i, slug := range zhMain {
		href := strings.TrimPrefix(articlePath("zh", slug), "/") // relative
		if i%2 == 1 {
			href += "?utm_campaign=zh-home"
		}
		zhLinks = append(zhLinks, link{Href: href, Text: zh[slug].Title})
	}
	home := homeData{L: langLabels["en"], Sections: []section{
		{Heading: "English", Links: enLinks},
		{Heading: "中文", Links: zhLinks},
		{Heading: "From our partners", Links: []link{
			{Href: "/syndicated/en/" + enMain[0], Text: en[enMain[0]].Title},
			{Href: "/syndicated/en/" + enMain[1], Text: en[enMain[1]].Title},
			{Href: "/syndicated/zh/" + zhMain[0], Text: zh[zhMain[0]].Title},
			{Href: "/syndicated/zh/" + zhMain[1], Text: zh[zhMain[1]].Title},
		}},
		{Heading: "Mirrors", Links: []link{
			{Href: "/mirror/en/" + enMain[2], Text: en[enMain[2]].Title, Note: "(mirror)"},
			{Href: "/mirror/zh/" + zhMain[2], Text: zh[zhMain[2]].Title, Note: "(镜像)"},
		}},
		{Heading: "Archive", Links: []link{
			{Href: "/old/en/" + enMain[3], Text: en[enMain[3]].Title, Note: "(old address)"},
			{Href: "/old/zh/" + zhMain[3], Text: zh[zhMain[3]].Title, Note: "(旧地址)"},
			{Href: "/articles/en/removed-story", Text: "A story that was removed"},
			{Href: "/loop/a", Text: "A page that redirects in circles"},
		}},
		{Heading: "More", Links: []link{
			{Href: "/intro/", Text: "Introductions"},
			{Href: CalendarPath(1), Text: "Events calendar"},
			{Href: "/slow", Text: b.slow.Title, Note: "(a slow page)"},
			{Href: b.gbkPath, Text: b.gbk.Title, Note: "(GBK)"},
			{Href: b.gbPath, Text: b.gb.Title, Note: "(GB18030)"},
			{Href: b.privatePath, Text: "Staff only", Note: "(disallowed by robots.txt)"},
			{Href: "/files/debian-faq.pdf", Text: "The FAQ as a PDF"},
			{Href: "/images/logo.png", Text: "Our logo"},
			{Href: "https://www.debian.org/", Text: "Debian"},
			{Href: "mailto:editors@samplesite.invalid", Text: "Write to the editors"},
		}},
	}}
	b.s.html("/", "home", home)
	b.s.pages["/index.html"] = b.s.pages["/"]
}

// manifest fills in the Manifest's fields other than Docs and the depths,
// and returns the Docs in Manifest order, their depths not yet known.
func (b *siteBuilder) manifest() []*Doc {
	m := &b.s.manifest
	docs := []*Doc{
		{Path: "/", Kind: KindListing, Lang: "en", Title: "Sample News", Charset: "utf-8",
			Snippet: "Articles in English and Chinese, with their copies elsewhere on the web.",
			Copies:  []Copy{{Path: "/index.html", Kind: CopyIdentical, SameText: true}}},
		{Path: "/intro/", Kind: KindListing, Lang: "en", Title: "Introductions", Charset: "utf-8",
			Snippet: "Every chapter of our guide starts with an introduction."},
	}
	for _, lang := range []string{"en", "zh"} {
		for _, slug := range b.mains[lang] {
			docs = append(docs, b.articleDocs[articlePath(lang, slug)])
		}
	}
	docs = append(docs, b.introDocs...)
	docs = append(docs,
		&Doc{Path: "/slow", Kind: KindSlow, Lang: "en", Title: b.slow.Title, Charset: "utf-8", Snippet: snippet(b.slow.Paras)},
		&Doc{Path: b.gbkPath, Kind: KindCharset, Lang: "zh", Title: b.gbk.Title, Charset: "gbk", Snippet: snippet(b.gbk.Paras)},
		&Doc{Path: b.gbPath, Kind: KindCharset, Lang: "zh", Title: b.gb.Title, Charset: "gb18030", Snippet: snippet(b.gb.Paras)},
	)
	m.RobotsTxt = "/robots.txt"
	m.Slow = "/slow"
	m.Disallowed = []string{b.privatePath}
	m.Errors = []Failure{
		{Path: "/articles/en/removed-story", Status: http.StatusNotFound, Reason: "not found"},
		{Path: "/loop/a", Status: http.StatusFound, Reason: "redirect loop"},
	}
	m.Resources = []Resource{
		{Path: "/files/debian-faq.pdf", ContentType: "application/pdf"},
		{Path: "/images/logo.png", ContentType: "image/png"},
	}
	m.Trap = Trap{First: CalendarPath(1), Exclude: `/calendar\?`, MaxMonth: maxMonth}
	for _, from := range slices.Sorted(maps.Keys(b.s.redirects)) {
		m.Redirects = append(m.Redirects, b.s.redirects[from])
	}
	return docs
}

// depths walks the link graph, sets the depth of docs, their copies, the
// errors, resources and trap, appends docs to the Manifest, and records
// its aliases and external links.
func (b *siteBuilder) depths(docs []*Doc) {
	m := &b.s.manifest
	depth, aliases, external := b.s.crawlGraph()
	for _, d := range docs {
		d.Depth = depth[d.Path]
		for i := range d.Copies {
			d.Copies[i].Depth = depth[d.Copies[i].Path]
		}
		m.Docs = append(m.Docs, *d)
	}
	for i := range m.Errors {
		m.Errors[i].Depth = depth[m.Errors[i].Path]
	}
	for i := range m.Resources {
		m.Resources[i].Depth = depth[m.Resources[i].Path]
	}
	m.Trap.FirstDepth = depth[m.Trap.First]
	m.Aliases = aliases
	m.External = external
}

func articlePath(lang, slug string) string { return "/articles/" + lang + "/" + slug }

func (s *Site) redirect(from, to string, status int) {
	s.redirects[from] = Redirect{From: from, To: to, Status: status}
}

// html renders template name with data as a UTF-8 page at path.
func (s *Site) html(path, name string, data any) {
	var b bytes.Buffer
	if err := templates.ExecuteTemplate(&b, name, data); err != nil {
		panic(fmt.Sprintf("samplesite: render %s: %v", path, err))
	}
	s.pages[path] = &page{contentType: "text/html; charset=utf-8", body: b.Bytes(), links: extractLinks(path, b.Bytes())}
}

// encoded renders an article page and serves it in enc.
func (s *Site) encoded(path, contentType string, enc encoding.Encoding, data articleData) {
	var b bytes.Buffer
	if err := templates.ExecuteTemplate(&b, "article", data); err != nil {
		panic(fmt.Sprintf("samplesite: render %s: %v", path, err))
	}
	body, err := enc.NewEncoder().Bytes(b.Bytes())
	if err != nil {
		panic(fmt.Sprintf("samplesite: encode %s: %v", path, err))
	}
	s.pages[path] = &page{contentType: contentType, body: body, links: extractLinks(path, b.Bytes())}
}

// extractLinks returns the <a href> targets of an HTML page at path,
// resolved to absolute URLs on siteBase (or left as they are, if they are
// absolute URLs elsewhere).
func extractLinks(path string, body []byte) []string {
	base := siteBase.ResolveReference(&url.URL{Path: path})
	var out []string
	z := html.NewTokenizer(bytes.NewReader(body))
	for {
		switch z.Next() {
		case html.ErrorToken:
			return out
		case html.StartTagToken, html.SelfClosingTagToken:
			name, hasAttr := z.TagName()
			if string(name) != "a" {
				continue
			}
			for hasAttr {
				var k, v []byte
				k, v, hasAttr = z.TagAttr()
				if string(k) == "href" {
					ref, err := url.Parse(string(v))
					if err != nil {
						panic(fmt.Sprintf("samplesite: bad link %q on %s: %v", v, path, err))
					}
					out = append(out, base.ResolveReference(ref).String())
				}
			}
		}
	}
}

// canonicalPath strips the fragment and utm_* parameters of u and returns
// its path with query.
func canonicalPath(u *url.URL) string {
	q := u.Query()
	for k := range q {
		if strings.HasPrefix(strings.ToLower(k), "utm_") {
			q.Del(k)
		}
	}
	c := url.URL{Path: u.Path, RawQuery: q.Encode()}
	return c.RequestURI()
}

// crawlGraph walks the static link graph breadth-first from "/", following
// redirects, and returns the depth of every path reached, the aliases
// (links with a fragment or tracking parameters) and the external links.
// The calendar is a leaf here: its pages are generated on request.
func (s *Site) crawlGraph() (map[string]int, []Alias, []string) {
	depth := map[string]int{"/": 0}
	queue := []string{"/"}
	var aliases []Alias
	var external []string
	seenAlias := map[string]bool{}
	seenExt := map[string]bool{}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		pg, ok := s.pages[p]
		if !ok {
			continue
		}
		for _, l := range pg.links {
			u, _ := url.Parse(l)
			if u.Scheme != siteBase.Scheme || u.Host != siteBase.Host {
				if !seenExt[l] {
					seenExt[l] = true
					external = append(external, l)
				}
				continue
			}
			written := (&url.URL{Path: u.Path, RawQuery: u.RawQuery, Fragment: u.Fragment}).String()
			canon := canonicalPath(u)
			if written != canon && !seenAlias[written] {
				seenAlias[written] = true
				aliases = append(aliases, Alias{Href: written, Canonical: canon})
			}
			// Follow redirects (bounded: the loop ends when a path repeats).
			for target := canon; ; {
				if _, seen := depth[target]; seen {
					break
				}
				depth[target] = depth[p] + 1
				rd, isRedirect := s.redirects[target]
				if !isRedirect {
					queue = append(queue, target)
					break
				}
				target = rd.To
			}
		}
	}
	return depth, aliases, external
}

// samplePDF is a minimal well-formed one-page PDF.
func samplePDF() []byte {
	objs := []string{
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>",
		"", // content stream, below
		"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
	}
	stream := "BT /F1 24 Tf 72 720 Td (The Debian GNU/Linux FAQ) Tj ET"
	objs[3] = fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", len(stream), stream)
	var b bytes.Buffer
	b.WriteString("%PDF-1.4\n")
	offsets := make([]int, len(objs))
	for i, o := range objs {
		offsets[i] = b.Len()
		fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", i+1, o)
	}
	xref := b.Len()
	fmt.Fprintf(&b, "xref\n0 %d\n0000000000 65535 f \n", len(objs)+1)
	for _, off := range offsets {
		fmt.Fprintf(&b, "%010d 00000 n \n", off)
	}
	fmt.Fprintf(&b, "trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n", len(objs)+1, xref)
	return b.Bytes()
}

// samplePNG is a 16×16 logo.
func samplePNG() []byte {
	img := image.NewNRGBA(image.Rect(0, 0, 16, 16))
	for y := range 16 {
		for x := range 16 {
			c := color.NRGBA{R: 0xd7, G: 0x0a, B: 0x53, A: 0xff} // Debian red
			if (x-8)*(x-8)+(y-8)*(y-8) < 20 {
				c = color.NRGBA{R: 0xff, G: 0xff, B: 0xff, A: 0xff}
			}
			img.Set(x, y, c)
		}
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		panic("samplesite: encode logo: " + err.Error())
	}
	return b.Bytes()
}
