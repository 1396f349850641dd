package samplesite

import (
	"bytes"
	"context"
	"errors"
	"image/png"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"net/url"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"golang.org/x/net/html"
	"golang.org/x/net/html/charset"
	"golang.org/x/text/encoding/simplifiedchinese"

	"github.com/bloomcrawl/bloomcrawl/robots"
)

// noRedirect is a client that reports redirects instead of following them.
var noRedirect = &http.Client{
	CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	Timeout:       30 * time.Second,
}

func get(t *testing.T, rawURL string) (*http.Response, []byte) {
	t.Helper()
	resp, err := noRedirect.Get(rawURL)
	if err != nil {
		t.Fatalf("GET %s: %v", rawURL, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("read %s: %v", rawURL, err)
	}
	return resp, body
}

// parsed is what the test crawler keeps of an HTML page.
type parsed struct {
	title string
	text  string   // main text: <p> outside header/footer/nav
	links []string // <a href> as written
}

func parseHTML(t *testing.T, body []byte, contentType string) parsed {
	t.Helper()
	r, err := charset.NewReader(bytes.NewReader(body), contentType)
	if err != nil {
		t.Fatalf("charset: %v", err)
	}
	doc, err := html.Parse(r)
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	var p parsed
	var paras []string
	var walk func(n *html.Node, skip bool)
	walk = func(n *html.Node, skip bool) {
		if n.Type == html.ElementNode {
			switch n.Data {
			case "header", "footer", "nav", "script", "style":
				skip = true
			case "title":
				p.title = textOf(n)
			case "a":
				for _, a := range n.Attr {
					if a.Key == "href" {
						p.links = append(p.links, a.Val)
					}
				}
			case "p":
				if !skip {
					paras = append(paras, textOf(n))
				}
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c, skip)
		}
	}
	walk(doc, false)
	p.text = strings.Join(paras, "\n")
	return p
}

func textOf(n *html.Node) string {
	var b strings.Builder
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.TextNode {
			b.WriteString(n.Data)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(n)
	return strings.TrimSpace(b.String())
}

// crawlResult is what a breadth-first crawl of the site observed.
type crawlResult struct {
	pages      map[string]parsed // 200 HTML pages by canonical path
	depth      map[string]int
	status     map[string]int
	ctype      map[string]string
	redirects  map[string]string // from -> to
	loops      []string          // redirect targets already seen during a chain
	aliases    map[string]string // link as written (resolved path) -> canonical
	external   []string
	disallowed []string
}

// crawl is a small, independent breadth-first crawler: it obeys
// robots.txt, strips fragments and utm_* parameters, follows redirects
// hop by hop, and goes at most maxDepth links from "/".
func crawl(t *testing.T, base string, maxDepth int) crawlResult {
	t.Helper()
	baseURL, _ := url.Parse(base)
	_, robotsBody := get(t, base+"/robots.txt")
	rules := robots.Parse(robotsBody)
	res := crawlResult{pages: map[string]parsed{}, depth: map[string]int{"/": 0}, status: map[string]int{},
		ctype: map[string]string{}, redirects: map[string]string{}, aliases: map[string]string{}}
	type item struct {
		path  string
		depth int
	}
	queue := []item{{"/", 0}}
	seenExt := map[string]bool{}
	enqueue := func(from *url.URL, href string, depth int, viaRedirect bool) {
		u, err := from.Parse(href)
		if err != nil {
			t.Errorf("bad link %q on %s: %v", href, from, err)
			return
		}
		if u.Scheme != baseURL.Scheme || u.Host != baseURL.Host {
			if !seenExt[u.String()] {
				seenExt[u.String()] = true
				res.external = append(res.external, u.String())
			}
			return
		}
		written := (&url.URL{Path: u.Path, RawQuery: u.RawQuery, Fragment: u.Fragment}).String()
		canon := canonicalPath(u)
		if written != canon {
			res.aliases[written] = canon
		}
		if viaRedirect {
			res.redirects[from.RequestURI()] = canon
		}
		if _, seen := res.depth[canon]; seen {
			if viaRedirect {
				res.loops = append(res.loops, canon)
			}
			return
		}
		if depth > maxDepth {
			return
		}
		res.depth[canon] = depth
		queue = append(queue, item{canon, depth})
	}
	for len(queue) > 0 {
		it := queue[0]
		queue = queue[1:]
		if !rules.Allowed("bloomcrawl", it.path) {
			res.disallowed = append(res.disallowed, it.path)
			continue
		}
		pageURL, _ := baseURL.Parse(it.path)
		resp, body := get(t, pageURL.String())
		res.status[it.path] = resp.StatusCode
		ct := resp.Header.Get("Content-Type")
		res.ctype[it.path] = ct
		switch {
		case resp.StatusCode >= 300 && resp.StatusCode < 400:
			enqueue(pageURL, resp.Header.Get("Location"), it.depth, true)
		case resp.StatusCode == http.StatusOK && strings.HasPrefix(ct, "text/html"):
			p := parseHTML(t, body, ct)
			res.pages[it.path] = p
			for _, l := range p.links {
				enqueue(pageURL, l, it.depth+1, false)
			}
		}
	}
	return res
}

func startSite(t *testing.T, o Options) (*Site, string) {
	t.Helper()
	s := NewWithOptions(o)
	srv := httptest.NewServer(s.Handler())
	t.Cleanup(srv.Close)
	return s, srv.URL
}

// TestCrawlMatchesManifest crawls the site independently and checks that
// every statement of the Manifest holds, and that the Manifest lists
// everything the crawl found.
func TestCrawlMatchesManifest(t *testing.T) {
	site, base := startSite(t, Options{SlowDelay: -1})
	m := site.Manifest()
	const maxDepth = 4
	res := crawl(t, base, maxDepth)

	// Every HTML page found is a Doc or a Copy of one, or a calendar month.
	want := map[string]bool{}
	for _, d := range m.Docs {
		want[d.Path] = true
		for _, c := range d.Copies {
			want[c.Path] = true
		}
	}
	var months []string
	for p := range res.pages {
		if strings.HasPrefix(p, "/calendar?") {
			months = append(months, p)
			continue
		}
		if !want[p] {
			t.Errorf("crawl found page %s, which the manifest does not list", p)
		}
	}
	for p := range want {
		if _, ok := res.pages[p]; !ok {
			t.Errorf("manifest lists %s, crawl did not find it (status %d)", p, res.status[p])
		}
	}

	// Depths.
	for _, d := range m.Docs {
		if got := res.depth[d.Path]; got != d.Depth {
			t.Errorf("%s: depth %d, manifest says %d", d.Path, got, d.Depth)
		}
		for _, c := range d.Copies {
			if got := res.depth[c.Path]; got != c.Depth {
				t.Errorf("%s: depth %d, manifest says %d", c.Path, got, c.Depth)
			}
		}
	}

	// Titles, snippets (charset decoding), content of copies.
	for _, d := range m.Docs {
		p := res.pages[d.Path]
		if p.title != d.Title {
			t.Errorf("%s: title %q, manifest says %q", d.Path, p.title, d.Title)
		}
		if d.Snippet == "" || !strings.Contains(p.text, d.Snippet) {
			t.Errorf("%s: text does not contain the snippet %q", d.Path, d.Snippet)
		}
		for _, c := range d.Copies {
			cp := res.pages[c.Path]
			switch c.Kind {
			case CopyIdentical, CopyPrint:
				if cp.text != p.text || !c.SameText {
					t.Errorf("%s (%s copy of %s): main text differs or SameText is false", c.Path, c.Kind, d.Path)
				}
			case CopySyndicated:
				if cp.text != c.Extra+"\n"+p.text || c.SameText || c.Extra == "" {
					t.Errorf("%s (%s copy of %s): main text is not the date line %q and the article", c.Path, c.Kind, d.Path, c.Extra)
				}
			case CopyEdited:
				if cp.text == p.text || c.SameText {
					t.Errorf("%s: edited copy has the same text as %s", c.Path, d.Path)
				}
				edited := p.text
				for _, e := range strings.Split(c.Note, ", ") {
					from, to, _ := strings.Cut(e, "→")
					i := strings.Index(edited, from)
					if i < 0 {
						t.Fatalf("%s: edit %q does not apply", c.Path, e)
					}
					// Replace the first occurrence at or after a word
					// boundary, as editCopy does.
					edited = applyFirst(edited, from, to, d.Lang)
				}
				if edited != cp.text {
					t.Errorf("%s: text is not %s with the edits %q", c.Path, d.Path, c.Note)
				}
				if n := len(strings.Split(c.Note, ", ")); n != 3 {
					t.Errorf("%s: %d words changed, want 3", c.Path, n)
				}
			default:
				t.Errorf("%s: unknown copy kind %q", c.Path, c.Kind)
			}
		}
	}

	// "/" and "/index.html" are byte-identical.
	_, home := get(t, base+"/")
	_, index := get(t, base+"/index.html")
	if !bytes.Equal(home, index) {
		t.Error(`"/" and "/index.html" differ`)
	}

	// Distinct Docs have distinct texts.
	texts := map[string]string{}
	for _, d := range m.Docs {
		if other, dup := texts[res.pages[d.Path].text]; dup {
			t.Errorf("%s and %s have the same text", d.Path, other)
		}
		texts[res.pages[d.Path].text] = d.Path
	}

	// Redirects: every one is reached, and the crawl saw exactly them.
	gotRedirects := map[string]string{}
	for from, to := range res.redirects {
		gotRedirects[from] = to
	}
	wantRedirects := map[string]string{}
	for _, r := range m.Redirects {
		wantRedirects[r.From] = r.To
		if res.status[r.From] != r.Status {
			t.Errorf("redirect %s: status %d, manifest says %d", r.From, res.status[r.From], r.Status)
		}
	}
	if !maps.Equal(gotRedirects, wantRedirects) {
		t.Errorf("redirects seen %v, manifest %v", gotRedirects, wantRedirects)
	}
	for _, d := range m.Docs {
		for _, r := range d.Redirects {
			if !reachesVia(wantRedirects, r, d.Path) {
				t.Errorf("%s does not redirect to %s", r, d.Path)
			}
		}
	}

	// Errors.
	for _, f := range m.Errors {
		switch f.Reason {
		case "not found":
			if res.status[f.Path] != http.StatusNotFound {
				t.Errorf("%s: status %d, want 404", f.Path, res.status[f.Path])
			}
		case "redirect loop":
			if !reachesVia(wantRedirects, f.Path, f.Path) {
				t.Errorf("%s is not a redirect loop", f.Path)
			}
			if !slices.Contains(res.loops, f.Path) {
				t.Errorf("crawl did not detect the loop at %s", f.Path)
			}
		default:
			t.Errorf("%s: unknown reason %q", f.Path, f.Reason)
		}
		if res.depth[f.Path] != f.Depth {
			t.Errorf("%s: depth %d, manifest says %d", f.Path, res.depth[f.Path], f.Depth)
		}
	}

	// Resources.
	for _, r := range m.Resources {
		if res.status[r.Path] != http.StatusOK || res.ctype[r.Path] != r.ContentType {
			t.Errorf("%s: status %d, type %q; manifest says 200, %q", r.Path, res.status[r.Path], res.ctype[r.Path], r.ContentType)
		}
		if res.depth[r.Path] != r.Depth {
			t.Errorf("%s: depth %d, manifest says %d", r.Path, res.depth[r.Path], r.Depth)
		}
	}

	// Robots: the disallowed page is linked, skipped, and never requested.
	if !slices.Equal(res.disallowed, m.Disallowed) {
		t.Errorf("disallowed links %v, manifest %v", res.disallowed, m.Disallowed)
	}
	for _, p := range m.Disallowed {
		if n := site.Hits(p); n != 0 {
			t.Errorf("%s requested %d times", p, n)
		}
	}

	// Aliases: exactly the links with fragments or tracking parameters.
	wantAliases := map[string]string{}
	for _, a := range m.Aliases {
		wantAliases[a.Href] = a.Canonical
	}
	if !maps.Equal(res.aliases, wantAliases) {
		t.Errorf("aliases seen %v\nmanifest %v", res.aliases, wantAliases)
	}
	var withFragment, withUTM int
	for _, a := range m.Aliases {
		if strings.Contains(a.Href, "#") {
			withFragment++
		}
		if strings.Contains(a.Href, "utm_") {
			withUTM++
		}
	}
	if withFragment == 0 || withUTM == 0 {
		t.Errorf("aliases: %d with fragments, %d with utm_ parameters; want both > 0", withFragment, withUTM)
	}
	requested, _ := site.Requests()
	for _, uri := range requested {
		if strings.Contains(uri, "utm_") {
			t.Errorf("the crawl requested %s as written", uri)
		}
	}

	// External links.
	slices.Sort(res.external)
	ext := slices.Sorted(slices.Values(m.External))
	if !slices.Equal(res.external, ext) {
		t.Errorf("external links %v, manifest %v", res.external, ext)
	}

	// The trap: months 1..maxDepth-FirstDepth+1, each one link deeper.
	if m.Trap.FirstDepth != 1 {
		t.Errorf("trap first depth %d, want 1", m.Trap.FirstDepth)
	}
	slices.Sort(months)
	var wantMonths []string
	for n := 1; n <= maxDepth-m.Trap.FirstDepth+1; n++ {
		wantMonths = append(wantMonths, CalendarPath(n))
		if d := res.depth[CalendarPath(n)]; d != m.Trap.FirstDepth+n-1 {
			t.Errorf("%s at depth %d, want %d", CalendarPath(n), d, m.Trap.FirstDepth+n-1)
		}
	}
	slices.Sort(wantMonths)
	if !slices.Equal(months, wantMonths) {
		t.Errorf("calendar months crawled %v, want %v", months, wantMonths)
	}
}

// applyFirst replaces the first occurrence of from (as a whole word in
// English) with to.
func applyFirst(s, from, to, lang string) string {
	for i := 0; i+len(from) <= len(s); i++ {
		if !strings.HasPrefix(s[i:], from) {
			continue
		}
		if lang == "en" && (i > 0 && isWordByte(s[i-1]) || i+len(from) < len(s) && isWordByte(s[i+len(from)])) {
			continue
		}
		return s[:i] + to + s[i+len(from):]
	}
	return s
}

func isWordByte(b byte) bool {
	return b == '_' || b >= '0' && b <= '9' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z'
}

// reachesVia reports whether following redirects from `from` reaches to
// (in at least one hop, at most len(redirects)+1 hops).
func reachesVia(redirects map[string]string, from, to string) bool {
	cur := from
	for range len(redirects) + 1 {
		next, ok := redirects[cur]
		if !ok {
			return false
		}
		if next == to {
			return true
		}
		cur = next
	}
	return false
}

func TestDocsAreSized(t *testing.T) {
	m := New().Manifest()
	_, base := startSite(t, Options{SlowDelay: -1})
	for _, d := range m.Docs {
		if d.Kind == KindListing {
			continue
		}
		resp, body := get(t, base+d.Path)
		p := parseHTML(t, body, resp.Header.Get("Content-Type"))
		var size int
		if d.Lang == "zh" {
			for _, r := range p.text {
				if r >= 0x4e00 && r <= 0x9fff {
					size++
				}
			}
		} else {
			size = len(strings.Fields(p.text))
		}
		if size < 230 || size > 800 {
			t.Errorf("%s: %d %s, want 230..800", d.Path, size, map[string]string{"en": "words", "zh": "Han characters"}[d.Lang])
		}
		if n := strings.Count(p.text, "\n") + 1; n < 3 {
			t.Errorf("%s: %d paragraphs, want several", d.Path, n)
		}
	}
	var en, zh int
	for _, d := range m.Docs {
		if d.Kind == KindArticle && d.Lang == "en" {
			en++
		}
		if d.Kind == KindArticle && d.Lang == "zh" {
			zh++
		}
	}
	if en != 8 || zh != 8 {
		t.Errorf("%d English and %d Chinese articles, want 8 and 8", en, zh)
	}
}

func TestIntroductionsShareTitleNotContent(t *testing.T) {
	_, base := startSite(t, Options{})
	m := New().Manifest()
	var texts []string
	for _, d := range m.Docs {
		if d.Kind != KindIntro {
			continue
		}
		resp, body := get(t, base+d.Path)
		p := parseHTML(t, body, resp.Header.Get("Content-Type"))
		if p.title != "Introduction" {
			t.Errorf("%s: title %q", d.Path, p.title)
		}
		texts = append(texts, p.text)
	}
	if len(texts) < 3 {
		t.Fatalf("%d introductions, want several", len(texts))
	}
	for i := range texts {
		for j := i + 1; j < len(texts); j++ {
			if s := jaccard(texts[i], texts[j]); s > 0.5 {
				t.Errorf("introductions %d and %d share %.0f%% of their words", i+1, j+1, 100*s)
			}
		}
	}
}

func jaccard(a, b string) float64 {
	set := func(s string) map[string]bool {
		m := map[string]bool{}
		for _, w := range strings.Fields(strings.ToLower(s)) {
			m[w] = true
		}
		return m
	}
	sa, sb := set(a), set(b)
	inter := 0
	for w := range sa {
		if sb[w] {
			inter++
		}
	}
	return float64(inter) / float64(len(sa)+len(sb)-inter)
}

func TestLegacyCharsets(t *testing.T) {
	_, base := startSite(t, Options{})
	m := New().Manifest()
	n := 0
	for _, d := range m.Docs {
		if d.Kind != KindCharset {
			continue
		}
		n++
		resp, body := get(t, base+d.Path)
		if utf8.Valid(body) {
			t.Errorf("%s: body is valid UTF-8, want %s bytes", d.Path, d.Charset)
		}
		ct := resp.Header.Get("Content-Type")
		var dec []byte
		var err error
		switch d.Charset {
		case "gbk":
			if ct != "text/html; charset=GBK" {
				t.Errorf("%s: Content-Type %q", d.Path, ct)
			}
			if bytes.Contains(bytes.ToLower(body), []byte("charset")) {
				t.Errorf("%s: declares its charset in the body too", d.Path)
			}
			dec, err = simplifiedchinese.GBK.NewDecoder().Bytes(body)
		case "gb18030":
			if ct != "text/html" {
				t.Errorf("%s: Content-Type %q, want no charset", d.Path, ct)
			}
			if !bytes.Contains(body, []byte(`<meta http-equiv="Content-Type" content="text/html; charset=gb18030">`)) {
				t.Errorf("%s: no <meta> charset declaration", d.Path)
			}
			dec, err = simplifiedchinese.GB18030.NewDecoder().Bytes(body)
		default:
			t.Fatalf("%s: charset %q", d.Path, d.Charset)
		}
		if err != nil {
			t.Fatalf("%s: decode: %v", d.Path, err)
		}
		if !bytes.Contains(dec, []byte("<title>"+d.Title+"</title>")) || !bytes.Contains(dec, []byte(d.Snippet)) {
			t.Errorf("%s: decoded page lacks its title or snippet", d.Path)
		}
		// A decoder that guesses from the header and <meta> gets it right.
		if p := parseHTML(t, body, ct); p.title != d.Title {
			t.Errorf("%s: charset.NewReader decoded title %q", d.Path, p.title)
		}
	}
	if n != 2 {
		t.Errorf("%d legacy-charset pages, want 2", n)
	}
}

func TestResourcesAreReal(t *testing.T) {
	_, base := startSite(t, Options{})
	_, pdf := get(t, base+"/files/debian-faq.pdf")
	if !bytes.HasPrefix(pdf, []byte("%PDF-1.4\n")) || !bytes.HasSuffix(pdf, []byte("%%EOF\n")) {
		t.Errorf("PDF is malformed: %q", pdf)
	}
	_, img := get(t, base+"/images/logo.png")
	if cfg, err := png.DecodeConfig(bytes.NewReader(img)); err != nil || cfg.Width != 16 {
		t.Errorf("PNG: %v %+v", err, cfg)
	}
	resp, body := get(t, base+"/robots.txt")
	if resp.Header.Get("Content-Type") != "text/plain; charset=utf-8" || !bytes.Contains(body, []byte("Disallow: /private/")) {
		t.Errorf("robots.txt: %q", body)
	}
	// The private page exists: only robots.txt keeps crawlers out.
	if resp, _ := get(t, base+New().Manifest().Disallowed[0]); resp.StatusCode != http.StatusOK {
		t.Errorf("private page: status %d", resp.StatusCode)
	}
}

func TestCalendarBounds(t *testing.T) {
	_, base := startSite(t, Options{})
	for _, q := range []string{"month=0", "month=-1", "month=abc", "", "month=1000000001", "month=99999999999999999999999"} {
		if resp, _ := get(t, base+"/calendar?"+q); resp.StatusCode != http.StatusNotFound {
			t.Errorf("/calendar?%s: status %d, want 404", q, resp.StatusCode)
		}
	}
	resp, body := get(t, base+CalendarPath(1))
	p := parseHTML(t, body, resp.Header.Get("Content-Type"))
	if p.title != "Events: January 2026" || slices.Contains(p.links, "/calendar?month=0") || !slices.Contains(p.links, CalendarPath(2)) {
		t.Errorf("month 1: title %q, links %v", p.title, p.links)
	}
	resp, body = get(t, base+CalendarPath(14))
	if p := parseHTML(t, body, resp.Header.Get("Content-Type")); p.title != "Events: February 2027" ||
		!slices.Contains(p.links, CalendarPath(13)) || !slices.Contains(p.links, CalendarPath(15)) {
		t.Errorf("month 14: title %q, links %v", p.title, p.links)
	}
	resp, body = get(t, base+CalendarPath(maxMonth))
	if p := parseHTML(t, body, resp.Header.Get("Content-Type")); resp.StatusCode != 200 || slices.Contains(p.links, CalendarPath(maxMonth+1)) {
		t.Errorf("last month: status %d, links %v", resp.StatusCode, p.links)
	}
}

func TestSlowDelayBounded(t *testing.T) {
	for _, c := range []struct{ in, want time.Duration }{
		{0, DefaultSlowDelay}, {-1, 0}, {time.Millisecond, time.Millisecond}, {time.Hour, MaxSlowDelay},
	} {
		if got := NewWithOptions(Options{SlowDelay: c.in}).SlowDelay(); got != c.want {
			t.Errorf("SlowDelay(%v) = %v, want %v", c.in, got, c.want)
		}
	}
}

// TestSlowPageAndStop: a client with a short timeout gives up on the slow
// page, and stopping the server ends the waiting handler at once.
func TestSlowPageAndStop(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	site := NewWithOptions(Options{SlowDelay: MaxSlowDelay})
	base, stop, err := site.Start(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	if !strings.HasPrefix(base, "http://127.0.0.1:") {
		t.Fatalf("base URL %s is not on 127.0.0.1", base)
	}
	impatient := &http.Client{Timeout: 50 * time.Millisecond}
	if _, err := impatient.Get(base + "/slow"); err == nil {
		t.Fatal("slow page answered within 50ms with a 10s delay")
	}
	// A second request is left waiting while the server stops.
	errc := make(chan error, 1)
	go func() {
		_, err := http.Get(base + "/slow")
		errc <- err
	}()
	for site.Hits("/slow") < 2 {
		time.Sleep(time.Millisecond)
	}
	cancel() // stops the server; the waiting request fails
	if err := <-errc; err == nil {
		t.Error("slow request succeeded after the server stopped")
	}
	stop()
	stop() // idempotent
}

func TestStartStopsWithContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	base, stop, err := Start(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	if resp, _ := get(t, base+"/"); resp.StatusCode != http.StatusOK {
		t.Fatalf("home: %d", resp.StatusCode)
	}
	cancel()
	// The server goes away by itself; poll until connections are refused.
	client := &http.Client{Timeout: time.Second}
	for deadline := time.Now().Add(10 * time.Second); ; {
		resp, err := client.Get(base + "/")
		if err != nil {
			break
		}
		resp.Body.Close()
		if time.Now().After(deadline) {
			t.Fatal("server still answers 10s after its context was cancelled")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestDeterministic(t *testing.T) {
	a, b := New(), New()
	if !reflect.DeepEqual(a.Manifest(), b.Manifest()) {
		t.Fatal("two sites have different manifests")
	}
	for path, p := range a.pages {
		if !bytes.Equal(p.body, b.pages[path].body) {
			t.Errorf("%s differs between two sites", path)
		}
	}
	m := a.Manifest()
	m.Docs[0].Copies[0].Path = "changed"
	if a.Manifest().Docs[0].Copies[0].Path == "changed" {
		t.Error("Manifest returns shared slices")
	}
}

func TestDocOf(t *testing.T) {
	m := New().Manifest()
	for _, c := range []struct{ path, want string }{
		{"/index.html", "/"},
		{"/print/articles/en/what-is-debian", "/articles/en/what-is-debian"},
		{"/archive/2024/maintainer-scripts", "/articles/zh/maintainer-scripts"},
		{"/intro/2", "/intro/2"},
	} {
		if d, ok := m.DocOf(c.path); !ok || d.Path != c.want {
			t.Errorf("DocOf(%s) = %s, %v; want %s", c.path, d.Path, ok, c.want)
		}
	}
	if _, ok := m.DocOf("/loop/a"); ok {
		t.Error("DocOf(/loop/a) found a document")
	}
}

func TestMethodsAndLog(t *testing.T) {
	site, base := startSite(t, Options{})
	resp, err := http.Post(base+"/", "text/plain", strings.NewReader("x"))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("POST: %d", resp.StatusCode)
	}
	resp, err = http.Head(base + "/articles/en/what-is-debian")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || resp.ContentLength <= 0 {
		t.Errorf("HEAD: %d, length %d", resp.StatusCode, resp.ContentLength)
	}
	if r, _ := get(t, base+"/no/such/page"); r.StatusCode != http.StatusNotFound {
		t.Errorf("unknown path: %d", r.StatusCode)
	}
	uris, dropped := site.Requests()
	want := []string{"/", "/articles/en/what-is-debian", "/no/such/page"}
	if !slices.Equal(uris, want) || dropped != 0 {
		t.Errorf("log %v (dropped %d), want %v", uris, dropped, want)
	}
	if site.Hits("/") != 1 || site.Hits("/nothing") != 0 {
		t.Error("Hits miscounts")
	}
}

func TestStartListensOnLoopbackOnly(t *testing.T) {
	base, stop, err := Start(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	stop()
	u, _ := url.Parse(base)
	if u.Hostname() != "127.0.0.1" {
		t.Fatalf("listening on %s", u.Host)
	}
	if _, err := (&http.Client{Timeout: time.Second}).Get(base); err == nil {
		t.Fatal("server answers after stop")
	} else if errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("request hung after stop: %v", err)
	}
}
