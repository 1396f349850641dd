// Package jssite generates a loopback test site whose pages are built by
// JavaScript, beside plain server-rendered pages, with its ground truth
// (Manifest): which pages exist, the phrase each one's real text holds,
// and which of them only a browser can see. It serves the rendering tests
// and benchmarks (package render, crawler, the lab) and is never imported
// by product code.
//
// The site (every page reachable from /):
//
//   - /plain/N: plain pages, all text and links in the server's HTML.
//   - /js/: a hub whose navigation (<nav id="toc">, empty in the HTML) a
//     script writes; /js/page/N: pages whose text a script writes into an
//     empty <main> from inline data.
//   - /app/...: a single-page app: every route is served the same empty
//     shell (<div id="root"></div>); app.js reads the path, fetch()es the
//     route's content from /api/route and renders it with links to the
//     other routes (followed with history.pushState); /app/ itself
//     replaceState's to /app/home, a route no link names.
//   - /feed: a list that loads more items (fetch() of /api/feed) when
//     scrolled to its bottom; /more: a list with a "Load more" button.
//     Their items (/item/N) are plain pages, most of them linked only
//     from the items loaded later.
package jssite

import (
	"encoding/json"
	"fmt"
	"html"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// Options size the site. Zero fields take the defaults in brackets.
type Options struct {
	Plain     int // plain pages [6]
	JSPages   int // script-written pages under /js/ [4]
	Routes    int // SPA routes besides home [4]
	FeedPages int // pages of 4 items the scroll list loads, the first served with the HTML [3]
	MorePages int // pages of 3 items the "Load more" list loads [2]
	Seed      uint64
}

func (o *Options) defaults() {
	if o.Plain == 0 {
		o.Plain = 6
	}
	if o.JSPages == 0 {
		o.JSPages = 4
	}
	if o.Routes == 0 {
		o.Routes = 4
	}
	if o.FeedPages == 0 {
		o.FeedPages = 3
	}
	if o.MorePages == 0 {
		o.MorePages = 2
	}
}

// Page is one HTML page of the site.
type Page struct {
	Path string // path on the site ("/plain/1")
	// Phrase is a sentence of the page's real text (what a browser
	// shows), unique to it.
	Phrase string
	// Kind is how the page is built: "plain", "js" (script-written),
	// "spa" (an app route), "feed" or "more" (lists built by script),
	// "item" (a plain page linked from a list).
	Kind string
	// NeedsBrowser says the page's text is not in the server's HTML.
	NeedsBrowser bool
	// Hidden says no link in any server HTML leads to the page: only a
	// browser finds it (a script-built link, a pushed route, an item
	// loaded on scroll or click).
	Hidden bool
}

// Site is a generated site.
type Site struct {
	o     Options
	pages map[string]*Page
	order []string
	text  map[string]string // path → the page's text

	mu   sync.Mutex
	hits map[string]int // requests served, by path
}

// New generates a site.
func New(o Options) *Site {
	o.defaults()
	s := &Site{o: o, pages: map[string]*Page{}, text: map[string]string{}, hits: map[string]int{}}
	r := rand.New(rand.NewPCG(o.Seed, 31))
	add := func(path, kind string, needs, hidden bool) {
		text := paragraph(r, 70)
		p := &Page{Path: path, Phrase: firstSentence(text), Kind: kind, NeedsBrowser: needs, Hidden: hidden}
		s.pages[path] = p
		s.order = append(s.order, path)
		s.text[path] = text
	}
	add("/", "plain", false, false)
	for i := 1; i <= o.Plain; i++ {
		add("/plain/"+strconv.Itoa(i), "plain", false, false)
	}
	add("/js/", "js", true, false)
	for i := 1; i <= o.JSPages; i++ {
		add("/js/page/"+strconv.Itoa(i), "js", true, true)
	}
	add("/app/", "spa", true, false)
	add("/app/home", "spa", true, true)
	for i := 1; i <= o.Routes; i++ {
		add("/app/r/"+strconv.Itoa(i), "spa", true, true)
	}
	add("/feed", "feed", false, false)
	for i := 1; i <= 4*o.FeedPages; i++ {
		add("/item/f"+strconv.Itoa(i), "item", false, i > 4)
	}
	add("/more", "more", false, false)
	for i := 1; i <= 3*o.MorePages; i++ {
		add("/item/m"+strconv.Itoa(i), "item", false, true)
	}
	return s
}

// Manifest returns the site's pages in a fixed order.
func (s *Site) Manifest() []Page {
	out := make([]Page, 0, len(s.order))
	for _, p := range s.order {
		out = append(out, *s.pages[p])
	}
	return out
}

// Serve starts the site on a loopback httptest server, closed at cleanup.
func (s *Site) Serve(tb testing.TB) *httptest.Server {
	tb.Helper()
	srv := httptest.NewServer(s)
	tb.Cleanup(srv.Close)
	return srv
}

// Hits returns how many requests for path the site has answered.
func (s *Site) Hits(path string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.hits[path]
}

// ServeHTTP serves the site. robots.txt disallows /private/, which the
// guide's script asks for (a request a polite browser never makes), as
// it asks for a URL on another host (out of any crawl's scope).
func (s *Site) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	p := r.URL.Path
	s.mu.Lock()
	s.hits[p]++
	s.mu.Unlock()
	switch {
	case p == "/robots.txt":
		w.Header().Set("Content-Type", "text/plain")
		fmt.Fprint(w, "User-agent: *\nDisallow: /private/\n")
	case p == "/app.js":
		w.Header().Set("Content-Type", "text/javascript")
		fmt.Fprint(w, appJS)
	case p == "/api/route":
		s.apiRoute(w, r.URL.Query().Get("path"))
	case p == "/api/feed":
		s.apiList(w, "f", 4, r.URL.Query().Get("page"), s.o.FeedPages)
	case p == "/api/more":
		s.apiList(w, "m", 3, r.URL.Query().Get("page"), s.o.MorePages)
	case p == "/app" || strings.HasPrefix(p, "/app/"):
		page(w, "App", `<div id="root"></div><noscript>You need to enable JavaScript to run this app.</noscript><script src="/app.js"></script>`)
	case p == "/js/":
		var links []string
		for i := 1; i <= s.o.JSPages; i++ {
			links = append(links, fmt.Sprintf("%q", "/js/page/"+strconv.Itoa(i)))
		}
		page(w, "Guide", fmt.Sprintf(`<nav id="toc"></nav><main id="content"></main>
<script>
const links = [%s];
const nav = document.getElementById('toc');
links.forEach((href, i) => { const a = document.createElement('a'); a.href = href; a.textContent = 'Chapter ' + (i + 1); nav.appendChild(a); });
document.getElementById('content').innerHTML = '<h1>Guide</h1><p>' + %s + '</p>';
fetch('/private/stats').catch(() => {});
fetch('http://elsewhere.invalid/track').catch(() => {});
</script>`, strings.Join(links, ","), jsString(s.text[p])))
	case strings.HasPrefix(p, "/js/page/") && s.pages[p] != nil:
		page(w, "Chapter", fmt.Sprintf(`<main id="content"></main>
<script>
const data = {title: %s, text: %s};
document.title = data.title;
document.getElementById('content').innerHTML = '<h1>' + data.title + '</h1><p>' + data.text + '</p><a href="/js/">Guide</a>';
</script>`, jsString("Chapter "+strings.TrimPrefix(p, "/js/page/")), jsString(s.text[p])))
	case p == "/feed":
		items := s.items("f", 1, 4)
		page(w, "Feed", fmt.Sprintf(`<h1>Feed</h1><p>%s</p><ul id="list">%s</ul><div id="end" style="height:20px"></div>
<script>
let next = 2, loading = false;
window.addEventListener('scroll', async () => {
  if (loading || next > %d) return;
  if (window.innerHeight + window.scrollY < document.documentElement.scrollHeight - 50) return;
  loading = true;
  const r = await fetch('/api/feed?page=' + next); next++;
  const items = await r.json();
  for (const it of items) { const li = document.createElement('li'); li.innerHTML = '<a href="' + it.href + '">' + it.title + '</a><p style="height:900px">' + it.title + '</p>'; document.getElementById('list').appendChild(li); }
  loading = false;
});
</script>`, s.text[p], items, s.o.FeedPages))
	case p == "/more":
		page(w, "More", fmt.Sprintf(`<h1>More</h1><p>%s</p><ul id="list"></ul><button id="more" type="button">Load more</button>
<script>
let next = 1;
document.getElementById('more').addEventListener('click', async () => {
  const r = await fetch('/api/more?page=' + next); next++;
  const items = await r.json();
  for (const it of items) { const li = document.createElement('li'); li.innerHTML = '<a href="' + it.href + '">' + it.title + '</a>'; document.getElementById('list').appendChild(li); }
  if (next > %d) document.getElementById('more').remove();
});
</script>`, s.text[p], s.o.MorePages))
	case s.pages[p] != nil:
		// a plain page: text and links in the HTML
		var b strings.Builder
		fmt.Fprintf(&b, "<h1>%s</h1><p>%s</p><ul>", html.EscapeString(p), s.text[p])
		if p == "/" {
			for _, q := range s.order {
				if pg := s.pages[q]; pg.Path != "/" && !pg.Hidden && pg.Kind != "item" {
					fmt.Fprintf(&b, `<li><a href="%s">%s</a></li>`, q, q)
				}
			}
		}
		b.WriteString(`<li><a href="/">Home</a></li></ul>`)
		page(w, "Page "+p, b.String())
	default:
		http.NotFound(w, r)
	}
}

// items renders the list items first..first+n-1 of list l ("f" or "m").
func (s *Site) items(l string, first, n int) string {
	var b strings.Builder
	for i := first; i < first+n; i++ {
		fmt.Fprintf(&b, `<li><a href="/item/%s%d">Item %s%d</a><p style="height:900px">Item %s%d</p></li>`, l, i, l, i, l, i)
	}
	return b.String()
}

// apiList answers one page of a list: page k holds items (k-1)*per+1... of
// list l (the scroll list's page 1 is in its HTML).
func (s *Site) apiList(w http.ResponseWriter, l string, per int, page string, pages int) {
	k, err := strconv.Atoi(page)
	if err != nil || k < 1 || k > pages {
		http.Error(w, "no such page", http.StatusNotFound)
		return
	}
	type item struct {
		Href  string `json:"href"`
		Title string `json:"title"`
	}
	var out []item
	for i := (k-1)*per + 1; i <= k*per; i++ {
		out = append(out, item{Href: fmt.Sprintf("/item/%s%d", l, i), Title: fmt.Sprintf("Item %s%d", l, i)})
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(out)
}

// apiRoute answers an SPA route's content.
func (s *Site) apiRoute(w http.ResponseWriter, path string) {
	if path == "/app" || path == "/app/" {
		path = "/app/"
	}
	if p := s.pages[path]; p == nil || p.Kind != "spa" {
		http.Error(w, "no such route", http.StatusNotFound)
		return
	}
	var links []string
	for i := 1; i <= s.o.Routes; i++ {
		links = append(links, "/app/r/"+strconv.Itoa(i))
	}
	links = append(links, "/app/home")
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{"title": "Route " + path, "text": s.text[path], "links": links})
}

// appJS is the single-page app: it routes on location.pathname.
const appJS = `
async function show(path) {
  const r = await fetch('/api/route?path=' + encodeURIComponent(path));
  const root = document.getElementById('root');
  if (!r.ok) { root.innerHTML = '<h1>Not found</h1>'; return; }
  const d = await r.json();
  document.title = d.title;
  root.innerHTML = '<h1>' + d.title + '</h1><p>' + d.text + '</p><nav>' +
    d.links.map(h => '<a data-link href="' + h + '">' + h + '</a>').join(' ') + '</nav>';
}
document.addEventListener('click', e => {
  const a = e.target.closest('a[data-link]');
  if (!a) return;
  e.preventDefault();
  history.pushState(null, '', a.getAttribute('href'));
  show(location.pathname);
});
window.addEventListener('popstate', () => show(location.pathname));
if (location.pathname === '/app/' || location.pathname === '/app') {
  show('/app/');
  setTimeout(() => { history.replaceState(null, '', '/app/home'); }, 10);
} else {
  show(location.pathname);
}
`

// page writes an HTML page.
func page(w http.ResponseWriter, title, body string) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	fmt.Fprintf(w, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>%s</title></head><body>%s</body></html>\n", html.EscapeString(title), body)
}

// jsString quotes s as a JavaScript string literal.
func jsString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

var vocab = strings.Fields(`river stone maple harbor lantern copper meadow violet thunder cobalt saffron quartz willow ember falcon glacier orchard prairie summit canyon delta marble velvet amber crimson silver tundra lagoon cedar birch juniper pepper ginger basil fennel clover thistle heron otter badger lynx bison walrus pelican condor raven sparrow wren beacon anchor compass sextant rudder mast keel hull galley pantry cellar attic turret bastion rampart moat citadel bridge tunnel viaduct canal sluice weir dam reservoir aqueduct fountain cistern well spring brook creek stream estuary fjord bay cove inlet strait channel sound isthmus peninsula archipelago atoll reef shoal sandbar dune mesa butte plateau ridge valley gorge ravine`)

// paragraph returns n random words as sentences of 10.
func paragraph(r *rand.Rand, n int) string {
	var b strings.Builder
	for i := 0; i < n; i++ {
		w := vocab[r.IntN(len(vocab))]
		if i%10 == 0 {
			w = strings.ToUpper(w[:1]) + w[1:]
		}
		b.WriteString(w)
		if i%10 == 9 || i == n-1 {
			b.WriteString(". ")
		} else {
			b.WriteString(" ")
		}
	}
	return strings.TrimSpace(b.String())
}

func firstSentence(text string) string {
	s, _, _ := strings.Cut(text, ".")
	return s
}

// Chromium returns the path of the Chromium the tests drive (Debian's
// chromium in PATH, or $BLOOMCRAWL_CHROMIUM), or skips tb when there is
// none, except in CI (BLOOMCRAWL_CI=1, where .ci/run installs the
// package), where it fails tb.
func Chromium(tb testing.TB) string {
	tb.Helper()
	if p := os.Getenv("BLOOMCRAWL_CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-headless-shell", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("BLOOMCRAWL_CI") == "1" {
		tb.Fatal("chromium not found (.ci/run installs the Debian package chromium)")
	}
	tb.Skip("chromium not found: apt-get install chromium to run the rendering tests")
	return ""
}
