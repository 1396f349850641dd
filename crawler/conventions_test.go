package crawler

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bloomcrawl/bloomcrawl/configs"
	"github.com/bloomcrawl/bloomcrawl/contentdedup"
	"github.com/bloomcrawl/bloomcrawl/storage"
)

// words returns n distinct letter-only words of vocabulary v: pages built
// from different vocabularies share no text.
func words(v, n int) string {
	out := make([]string, n)
	for i := range out {
		k := v*1000 + i
		b := []byte{'z'}
		for range 4 {
			b = append(b, byte('a'+k%26))
			k /= 26
		}
		out[i] = string(b)
	}
	return strings.Join(out, " ")
}

// conventionSite is a generated site that uses the web conventions:
// a sitemap index named in robots.txt listing a gzipped news sitemap and a
// plain one (their pages are linked from nowhere else); ?ref= variants
// declaring their canonical; different pages all declaring the home page
// canonical; nofollow and noindex robots meta tags, an X-Robots-Tag
// header and rel=nofollow links. It counts every request by path.
type conventionSite struct {
	srv  *httptest.Server
	mu   sync.Mutex
	hits map[string]int
	at   []time.Time // request times, robots.txt excluded
}

func (s *conventionSite) url(p string) string { return s.srv.URL + p }

func (s *conventionSite) count(p string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.hits[p]
}

func page(title, canonical, meta, body string, links ...string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "<!doctype html><html><head><title>%s</title>", title)
	if canonical != "" {
		fmt.Fprintf(&b, `<link rel="canonical" href="%s">`, canonical)
	}
	if meta != "" {
		fmt.Fprintf(&b, `<meta name="robots" content="%s">`, meta)
	}
	fmt.Fprintf(&b, "</head><body><main><h1>%s</h1><p>%s</p></main><nav>", title, body)
	for _, l := range links {
		b.WriteString(l)
	}
	b.WriteString("</nav></body></html>")
	return b.String()
}

func a(href string) string { return fmt.Sprintf(`<a href="%s">link</a>`, href) }

func newConventionSite(t *testing.T, robots func(base string) string) *conventionSite {
	t.Helper()
	s := &conventionSite{hits: map[string]int{}}
	article := words(1, 120)
	pages := map[string]string{
		"/": page("Home", "", "", words(0, 120),
			a("/article"), a("/list"), a("/p1"), a("/p2"), a("/p3"), a("/p4"),
			a("/nofollow-page"), a("/noindex-page"), a("/xrobots-page"),
			`<a rel="nofollow" href="/secret-nofollow">n</a>`, `<a rel="sponsored ugc" href="/ad">ad</a>`),
		"/article":          page("Article", "/article", "", article),
		"/list":             page("List", "", "", words(2, 120), a("/article?ref=list"), a("/article?ref=mail"), a("/article?ref=hdr")),
		"/article?ref=hdr":  page("Article", "", "", article), // declared by a Link header
		"/article?ref=list": page("Article", "/article", "", article+" "+words(3, 10)),
		"/article?ref=mail": page("Article", "/article", "", article),
		"/nofollow-page":    page("Nofollow", "", "nofollow", words(10, 120), a("/nf-target")),
		"/noindex-page":     page("Noindex", "", "noindex", words(11, 120), a("/ni-target")),
		"/xrobots-page":     page("X-Robots", "", "", words(12, 120), a("/xr-target")),
		"/nf-target":        page("NF target", "", "", words(13, 120)),
		"/ni-target":        page("NI target", "", "", words(14, 120)),
		"/xr-target":        page("XR target", "", "", words(15, 120)),
		"/secret-nofollow":  page("Secret", "", "", words(16, 120)),
		"/ad":               page("Ad", "", "", words(17, 120)),
		"/news/1":           page("News one", "", "", words(20, 120)),
		"/news/2":           page("News two", "", "", words(21, 120)),
		"/only-sitemap":     page("Only in the sitemap", "", "", words(22, 120)),
		"/private/x":        page("Private", "", "", words(23, 120)),
	}
	for i := 1; i <= 4; i++ { // different pages, all declaring the home page
		pages[fmt.Sprintf("/p%d", i)] = page(fmt.Sprintf("Post %d", i), "/", "", words(30+i, 120))
	}
	var mux http.ServeMux
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		p := r.URL.RequestURI()
		s.mu.Lock()
		s.hits[p]++
		if p != "/robots.txt" {
			s.at = append(s.at, time.Now())
		}
		s.mu.Unlock()
		base := "http://" + r.Host
		switch p {
		case "/robots.txt":
			fmt.Fprint(w, robots(base))
			return
		case "/sitemap-index.xml":
			fmt.Fprintf(w, `<?xml version="1.0"?><sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
<sitemap><loc>%s/sitemaps/news.xml.gz</loc><lastmod>2026-11-22</lastmod></sitemap>
<sitemap><loc>%s/sitemaps/pages.xml</loc></sitemap>
<sitemap><loc>%s/sitemaps/missing.xml</loc></sitemap></sitemapindex>`, base, base, base)
			return
		case "/sitemaps/news.xml.gz":
			w.Header().Set("Content-Type", "application/gzip")
			w.Write(gz(t, []byte(fmt.Sprintf(`<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:news="http://www.google.com/schemas/sitemap-news/0.9">
<url><loc>%s/news/1</loc><lastmod>2026-11-22T08:00:00Z</lastmod><news:news><news:publication_date>2026-11-22T07:30:00Z</news:publication_date><news:title>News one</news:title></news:news></url>
<url><loc>%s/news/2?utm_source=sitemap</loc></url></urlset>`, base, base))))
			return
		case "/sitemaps/pages.xml":
			fmt.Fprintf(w, `<urlset><url><loc>%s/only-sitemap</loc><lastmod>2026-10-01</lastmod></url>
<url><loc>%s/private/x</loc></url><url><loc>http://out-of-scope.example/x</loc></url><url><loc>/article</loc></url></urlset>`, base, base)
			return
		}
		body, ok := pages[p]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		if p == "/xrobots-page" {
			w.Header().Set("X-Robots-Tag", "noindex, nofollow")
		}
		if p == "/article?ref=hdr" {
			w.Header().Set("Link", `</style.css>; rel=preload, </article>; rel="canonical"`)
		}
		fmt.Fprint(w, body)
	})
	s.srv = httptest.NewServer(&mux)
	t.Cleanup(s.srv.Close)
	return s
}

// TestCrawlWebConventions crawls the convention site with the defaults
// and checks exactly what is fetched (server-side), stored and mapped.
func TestCrawlWebConventions(t *testing.T) {
	site := newConventionSite(t, func(base string) string {
		return "User-agent: *\nDisallow: /private/\nSitemap: " + base + "/sitemap-index.xml\n"
	})
	cfg := configs.Default()
	cfg.Seeds = []string{site.url("/")}
	cfg.Politeness.PerHostParallelism = 1 // one at a time: /article before its variants
	cfg.Fetch.Timeout = configs.Duration(5 * time.Second)
	r := crawlInto(t, context.Background(), cfg, t.TempDir(), nil, nil)
	if r.err != nil {
		t.Fatal(r.err)
	}

	// fetched: exactly these, once each
	want := []string{"/robots.txt", "/sitemap-index.xml", "/sitemaps/news.xml.gz", "/sitemaps/pages.xml", "/sitemaps/missing.xml", "/sitemap.xml",
		"/", "/article", "/list", "/article?ref=list", "/article?ref=mail", "/article?ref=hdr", "/p1", "/p2", "/p3", "/p4",
		"/nofollow-page", "/noindex-page", "/ni-target", "/xrobots-page", "/news/1", "/news/2", "/only-sitemap"}
	site.mu.Lock()
	var got []string
	for p, n := range site.hits {
		got = append(got, p)
		if n != 1 {
			t.Errorf("%s requested %d times", p, n)
		}
	}
	site.mu.Unlock()
	sort.Strings(got)
	sort.Strings(want)
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("requested:\n %v\nwant\n %v", got, want)
	}

	rec := func(p string) storage.URLRecord {
		t.Helper()
		x, ok := r.urls[p]
		if !ok {
			t.Fatalf("no URL record for %s", p)
		}
		return x
	}
	// sitemap-only pages: stored, with what the sitemap said
	n1 := rec("/news/1")
	if n1.DocID == 0 || n1.Duplicate || !n1.Hints.LastMod.Equal(time.Date(2026, 11, 22, 8, 0, 0, 0, time.UTC)) ||
		!n1.Hints.NewsPublished.Equal(time.Date(2026, 11, 22, 7, 30, 0, 0, time.UTC)) || n1.Hints.NewsTitle != "News one" {
		t.Errorf("/news/1: %+v", n1)
	}
	if p := r.pages[n1.DocID]; p.Referrer != site.url("/sitemaps/news.xml.gz") || p.Depth != 0 {
		t.Errorf("/news/1 page: referrer %q depth %d", p.Referrer, p.Depth)
	}
	for _, p := range []string{"/news/2", "/only-sitemap"} {
		if x := rec(p); x.DocID == 0 || x.Duplicate {
			t.Errorf("%s: %+v, want stored", p, x)
		}
	}
	if x := rec("/only-sitemap"); !x.Hints.LastMod.Equal(time.Date(2026, 10, 1, 0, 0, 0, 0, time.UTC)) {
		t.Errorf("/only-sitemap lastmod: %+v", x.Hints)
	}
	if x := rec("/private/x"); x.Err != "disallowed by robots.txt" {
		t.Errorf("/private/x (in a sitemap, disallowed): %+v", x)
	}
	for _, p := range []string{"/sitemap-index.xml", "/sitemaps/news.xml.gz", "/sitemaps/pages.xml"} {
		if x := rec(p); x.Reason != ReasonSitemap || !x.Hints.Sitemap || x.Err != "" || x.Status != 200 {
			t.Errorf("sitemap %s: %+v", p, x)
		}
	}
	if x := rec("/sitemaps/missing.xml"); x.Reason != ReasonSitemap || x.Err != "HTTP 404" || x.Status != 404 {
		t.Errorf("declared sitemap that is missing: %+v", x)
	}
	if x, ok := r.urls["/sitemap.xml"]; ok {
		t.Errorf("/sitemap.xml, guessed and missing, was recorded: %+v", x)
	}

	// ?ref= variants: one document, reason canonical
	art := rec("/article")
	for _, p := range []string{"/article?ref=list", "/article?ref=mail", "/article?ref=hdr"} {
		x := rec(p)
		if x.DocID != art.DocID || x.Reason != string(contentdedup.ReasonCanonical) || x.Hints.Canonical != site.url("/article") {
			t.Errorf("%s: %+v, want a canonical duplicate of /article (%x)", p, x, art.DocID)
		}
	}
	if art.Duplicate || art.Hints.Canonical != "" {
		t.Errorf("/article (declares itself): %+v", art)
	}
	// pages all declaring the home page: kept apart, declaration recorded
	home := rec("/")
	ids := map[storage.DocID]bool{home.DocID: true}
	for i := 1; i <= 4; i++ {
		x := rec(fmt.Sprintf("/p%d", i))
		if x.Duplicate || ids[x.DocID] || x.Hints.Canonical != site.url("/") {
			t.Errorf("/p%d: %+v, want its own document and canonical %s", i, x, site.url("/"))
		}
		ids[x.DocID] = true
	}
	// robots meta and X-Robots-Tag
	if x := rec("/nofollow-page"); x.DocID == 0 || x.Duplicate {
		t.Errorf("/nofollow-page: %+v, want stored", x)
	}
	for _, p := range []string{"/noindex-page", "/xrobots-page"} {
		if x := rec(p); x.DocID != 0 || x.Reason != ReasonNoIndex || x.Status != 200 {
			t.Errorf("%s: %+v, want a noindex record", p, x)
		}
	}
	if x := rec("/ni-target"); x.DocID == 0 {
		t.Errorf("/ni-target (linked from a noindex page): %+v, want stored", x)
	}
	st := r.stats
	if st.Sitemaps != 4 || st.SitemapURLs != 3+2+4 || st.NoIndex != 2 || st.Robots != 1 || st.Queued != 0 {
		t.Errorf("stats: %+v", st)
	}
	if want := len(want) - 6 - 2; int(st.Stored+st.Duplicates) != want {
		t.Errorf("stored+duplicates = %d, want %d", st.Stored+st.Duplicates, want)
	}

	// the switches: sitemaps off, meta robots ignored, nofollow links followed
	site2 := newConventionSite(t, func(base string) string { return "Sitemap: " + base + "/sitemap-index.xml\n" })
	cfg2 := configs.Default()
	cfg2.Seeds = []string{site2.url("/")}
	cfg2.Scope.Sitemaps = configs.Sitemaps{Off: true}
	cfg2.Politeness.ObeyMetaRobots = false
	cfg2.Politeness.FollowNofollowLinks = true
	r2 := crawlInto(t, context.Background(), cfg2, t.TempDir(), nil, nil)
	if r2.err != nil {
		t.Fatal(r2.err)
	}
	for _, p := range []string{"/nf-target", "/xr-target", "/secret-nofollow", "/ad"} {
		if site2.count(p) != 1 {
			t.Errorf("switched: %s requested %d times, want 1", p, site2.count(p))
		}
	}
	for _, p := range []string{"/sitemap-index.xml", "/sitemap.xml", "/news/1"} {
		if site2.count(p) != 0 {
			t.Errorf("sitemaps off: %s requested", p)
		}
	}
	if x := r2.urls["/noindex-page"]; x.DocID == 0 {
		t.Errorf("obey_meta_robots false: /noindex-page %+v, want stored", x)
	}
}

// TestCrawlDelay: robots.txt's Crawl-delay spaces the requests to a host
// (here 1 s, three pages, per_host_parallelism 4), and a Crawl-delay above
// politeness.max_crawl_delay (our agent's group: 100 s) is capped and
// logged (a second host on 127.0.0.2, 1.5 s apart).
func TestCrawlDelay(t *testing.T) {
	serve := func(t *testing.T, ip, robots string, vocab int) *conventionSite {
		s := &conventionSite{hits: map[string]int{}}
		var mux http.ServeMux
		mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
			s.mu.Lock()
			s.hits[r.URL.Path]++
			if r.URL.Path != "/robots.txt" {
				s.at = append(s.at, time.Now())
			}
			s.mu.Unlock()
			switch r.URL.Path {
			case "/robots.txt":
				fmt.Fprint(w, robots)
			case "/":
				fmt.Fprint(w, page("Home "+ip, "", "", words(vocab, 60), a("/a"), a("/b")))
			case "/a", "/b":
				fmt.Fprint(w, page(r.URL.Path, "", "", words(vocab+1+int(r.URL.Path[1]-'a'), 60)))
			default:
				http.NotFound(w, r)
			}
		})
		l, err := net.Listen("tcp", ip+":0")
		if err != nil {
			t.Fatalf("listen on %s: %v", ip, err)
		}
		s.srv = &httptest.Server{Listener: l, Config: &http.Server{Handler: &mux}}
		s.srv.Start()
		t.Cleanup(s.srv.Close)
		return s
	}
	slow := serve(t, "127.0.0.1", "User-agent: *\nCrawl-delay: 1\n", 40)
	capped := serve(t, "127.0.0.2", "User-agent: *\nCrawl-delay: 5\n\nUser-agent: bloomcrawl\nCrawl-delay: 100\n", 50)
	cfg := configs.Default()
	cfg.Seeds = []string{slow.url("/"), capped.url("/")}
	cfg.Scope.Sitemaps = configs.Sitemaps{Off: true}
	cfg.Politeness.PerHostParallelism = 4
	cfg.Politeness.MaxCrawlDelay = configs.Duration(1500 * time.Millisecond)
	var logBuf syncBuffer
	r := crawlInto(t, context.Background(), cfg, t.TempDir(), nil, nil, func(o *Options) {
		o.Logger = slog.New(slog.NewTextHandler(&logBuf, &slog.HandlerOptions{Level: slog.LevelWarn}))
	})
	if r.err != nil {
		t.Fatal(r.err)
	}
	if log := logBuf.String(); !strings.Contains(log, "Crawl-delay above politeness.max_crawl_delay") ||
		!strings.Contains(log, "host="+capped.srv.Listener.Addr().String()) || !strings.Contains(log, "crawl_delay=1m40s max_crawl_delay=1.5s") {
		t.Errorf("no warning about the capped Crawl-delay in the log:\n%s", log)
	}
	if r.stats.Stored != 6 {
		t.Errorf("stored %d pages, want 6", r.stats.Stored)
	}
	for _, c := range []struct {
		s   *conventionSite
		gap time.Duration
	}{{slow, time.Second}, {capped, 1500 * time.Millisecond}} {
		c.s.mu.Lock()
		at := append([]time.Time(nil), c.s.at...)
		c.s.mu.Unlock()
		if len(at) != 3 {
			t.Fatalf("%s: %d page requests, want 3", c.s.srv.URL, len(at))
		}
		sort.Slice(at, func(i, j int) bool { return at[i].Before(at[j]) })
		for i := 1; i < len(at); i++ {
			if d := at[i].Sub(at[i-1]); d < c.gap {
				t.Errorf("%s: requests %d and %d %v apart, want >= %v", c.s.srv.URL, i-1, i, d, c.gap)
			}
		}
	}
}

// syncBuffer is a bytes.Buffer safe for the crawl's concurrent logging.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestSitemapResume: a sitemap's URLs are queued through the frontier's
// reserve → commit (here in chunks of 3) with their lastmod; a crawl
// stopped after reading it and resumed fetches every page exactly once,
// reads the sitemap once, and the pages fetched by the second run still
// carry their sitemap lastmod.
func TestSitemapResume(t *testing.T) {
	old := sitemapCommitChunk
	sitemapCommitChunk = 3
	defer func() { sitemapCommitChunk = old }()

	const n = 10
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var mu sync.Mutex
	hits := map[string]int{}
	var mux http.ServeMux
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		hits[r.URL.Path]++
		mu.Unlock()
		switch {
		case r.URL.Path == "/robots.txt":
			fmt.Fprintf(w, "Sitemap: http://%s/sm.xml\n", r.Host)
		case r.URL.Path == "/sm.xml":
			fmt.Fprint(w, "<urlset>")
			for i := range n {
				fmt.Fprintf(w, "<url><loc>http://%s/s/%d</loc><lastmod>2026-11-%02dT00:00:00Z</lastmod></url>", r.Host, i, i+1)
			}
			fmt.Fprint(w, "</urlset>")
		case r.URL.Path == "/":
			fmt.Fprint(w, page("Home", "", "", words(60, 60)))
		case strings.HasPrefix(r.URL.Path, "/s/"):
			if r.URL.Path == "/s/0" {
				cancel() // stop the first run at its first sitemap page
			}
			var i int
			fmt.Sscan(r.URL.Path[3:], &i)
			fmt.Fprint(w, page(r.URL.Path, "", "", words(61+i, 60)))
		default:
			http.NotFound(w, r)
		}
	})
	srv := httptest.NewServer(&mux)
	defer srv.Close()
	cfg := configs.Default()
	cfg.Seeds = []string{srv.URL + "/"}
	cfg.Politeness.PerHostParallelism = 1
	dir := t.TempDir()
	r1 := crawlInto(t, ctx, cfg, dir, nil, nil)
	if r1.err == nil || r1.queue == 0 {
		t.Fatalf("first run: err %v, %d queued; want it stopped with sitemap URLs queued", r1.err, r1.queue)
	}
	r2 := crawlInto(t, context.Background(), cfg, dir, nil, nil)
	if r2.err != nil || r2.queue != 0 {
		t.Fatalf("resumed run: err %v, %d queued", r2.err, r2.queue)
	}
	mu.Lock()
	defer mu.Unlock()
	for p, c := range hits {
		if c != 1 && p != "/robots.txt" {
			t.Errorf("%s requested %d times over both runs", p, c)
		}
	}
	for i := range n {
		p := fmt.Sprintf("/s/%d", i)
		rec, ok := r2.urls[p]
		if hits[p] != 1 || !ok || rec.DocID == 0 {
			t.Errorf("%s: requested %d times, record %+v", p, hits[p], rec)
			continue
		}
		if want := time.Date(2026, 11, i+1, 0, 0, 0, 0, time.UTC); !rec.Hints.LastMod.Equal(want) {
			t.Errorf("%s: lastmod %v, want %v", p, rec.Hints.LastMod, want)
		}
	}
	if hits["/sm.xml"] != 1 || r1.stats.Sitemaps != 1 || r2.stats.Sitemaps != 0 {
		t.Errorf("sitemap read %d times (run 1: %d, run 2: %d)", hits["/sm.xml"], r1.stats.Sitemaps, r2.stats.Sitemaps)
	}
	t.Logf("first run stopped with %d queued; the resumed run fetched %d", r1.queue, r2.stats.Fetched)
}

// TestSitemapLimitsRecorded: a sitemap over the protocol's 50,000 URLs
// is read up to the limit and its URL record says so; a sitemap index
// listed by a sitemap index is not read (the protocol allows one level)
// and its record says so; configured sitemap URLs replace auto.
func TestSitemapLimitsRecorded(t *testing.T) {
	var mu sync.Mutex
	hits := map[string]int{}
	var mux http.ServeMux
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		hits[r.URL.Path]++
		mu.Unlock()
		switch r.URL.Path {
		case "/big.xml.gz":
			var b strings.Builder
			b.WriteString("<urlset>")
			for i := range SitemapMaxURLs + 1 {
				fmt.Fprintf(&b, "<url><loc>http://%s/big/%d</loc></url>", r.Host, i)
			}
			b.WriteString("</urlset>")
			w.Write(gz(t, []byte(b.String())))
		case "/index.xml":
			fmt.Fprintf(w, "<sitemapindex><sitemap><loc>http://%s/nested.xml</loc></sitemap></sitemapindex>", r.Host)
		case "/nested.xml":
			fmt.Fprintf(w, "<sitemapindex><sitemap><loc>http://%s/deep.xml</loc></sitemap></sitemapindex>", r.Host)
		case "/":
			fmt.Fprint(w, page("Home", "", "", words(70, 60)))
		default:
			http.NotFound(w, r)
		}
	})
	srv := httptest.NewServer(&mux)
	defer srv.Close()
	cfg := configs.Default()
	cfg.Seeds = []string{srv.URL + "/"}
	cfg.Scope.Exclude = []string{"/big/"} // read the list, fetch none of it
	cfg.Scope.Sitemaps = configs.Sitemaps{URLs: []string{srv.URL + "/big.xml.gz", srv.URL + "/index.xml"}}
	r := crawlInto(t, context.Background(), cfg, t.TempDir(), nil, nil)
	if r.err != nil {
		t.Fatal(r.err)
	}
	if x := r.urls["/big.xml.gz"]; !strings.Contains(x.Err, "sitemap more than 50000 URLs (the protocol's limit): the first 50000 read") || !x.Hints.Sitemap {
		t.Errorf("/big.xml.gz: %+v", x)
	}
	if x := r.urls["/nested.xml"]; !strings.Contains(x.Err, "a sitemap index listed by a sitemap index: not read") {
		t.Errorf("/nested.xml: %+v", x)
	}
	mu.Lock()
	defer mu.Unlock()
	if hits["/deep.xml"] != 0 || hits["/sitemap.xml"] != 0 || hits["/robots.txt"] != 1 || hits["/big/0"] != 0 {
		t.Errorf("requests: %v", hits)
	}
	if r.stats.Sitemaps != 3 || r.stats.SitemapURLs != SitemapMaxURLs+1 { // 50,000 read of big, 1 of the index
		t.Errorf("stats: %+v", r.stats)
	}
}

// TestSitemapsOfEverySeedHost: with sitemaps auto, each seed host's
// robots.txt (read concurrently at start) names its own sitemap, and the
// pages only those sitemaps list are fetched on both hosts.
func TestSitemapsOfEverySeedHost(t *testing.T) {
	var mu sync.Mutex
	hits := map[string]int{}
	serve := func(ip string, vocab int) string {
		var mux http.ServeMux
		mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
			mu.Lock()
			hits[r.Host+r.URL.Path]++
			mu.Unlock()
			switch r.URL.Path {
			case "/robots.txt":
				fmt.Fprintf(w, "User-agent: *\nAllow: /\nSitemap: http://%s/maps/site.xml\n", r.Host)
			case "/maps/site.xml":
				fmt.Fprintf(w, "<urlset><url><loc>http://%s/hidden</loc></url></urlset>", r.Host)
			case "/":
				fmt.Fprint(w, page("Home "+ip, "", "", words(vocab, 60)))
			case "/hidden":
				fmt.Fprint(w, page("Hidden "+ip, "", "", words(vocab+1, 60)))
			default:
				http.NotFound(w, r)
			}
		})
		l, err := net.Listen("tcp", ip+":0")
		if err != nil {
			t.Fatalf("listen on %s: %v", ip, err)
		}
		srv := &httptest.Server{Listener: l, Config: &http.Server{Handler: &mux}}
		srv.Start()
		t.Cleanup(srv.Close)
		return srv.URL
	}
	a, b := serve("127.0.0.1", 80), serve("127.0.0.2", 90)
	cfg := configs.Default()
	cfg.Seeds = []string{a + "/", b + "/"}
	r := crawlInto(t, context.Background(), cfg, t.TempDir(), nil, nil)
	if r.err != nil {
		t.Fatal(r.err)
	}
	mu.Lock()
	defer mu.Unlock()
	for _, base := range []string{a, b} {
		host := strings.TrimPrefix(base, "http://")
		for _, p := range []string{"/robots.txt", "/maps/site.xml", "/hidden", "/", "/sitemap.xml"} {
			if hits[host+p] != 1 {
				t.Errorf("%s%s requested %d times, want 1", host, p, hits[host+p])
			}
		}
	}
	if r.stats.Stored != 4 || r.stats.Sitemaps != 2 || r.stats.SitemapURLs != 2 {
		t.Errorf("stats: %+v", r.stats)
	}
}
