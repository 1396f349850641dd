package crawler

import (
	"context"
	"fmt"
	"hash/fnv"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bloomcrawl/bloomcrawl/configs"
	"github.com/bloomcrawl/bloomcrawl/storage"
)

// Redirect targets are links: scope, the store, robots.txt and the target
// host's politeness apply before a target is requested (checkRedirect).
// Each test serves hosts on loopback addresses of their own (127.0.0.2,
// 127.0.0.3… are distinct hosts), logging every request; the crawls run
// under a deadline and the servers close with the test.

// loopHost is a server on a loopback address of its own, answering with
// its handler and logging every request: path, start time, and the most
// requests in flight at once (page requests: robots.txt and sitemaps
// excluded).
type loopHost struct {
	srv *httptest.Server

	mu          sync.Mutex
	hits        map[string]int
	at          map[string]time.Time // page path → start of its (last) request
	inFlight    int
	maxInFlight int
}

// serveLoopHost starts a loopHost on ip; handle answers its requests
// (nil: 404 for robots.txt and sitemaps, a page of vocabulary vocab
// otherwise).
func serveLoopHost(t *testing.T, ip string, vocab int, handle func(w http.ResponseWriter, r *http.Request) bool) *loopHost {
	t.Helper()
	s := &loopHost{hits: map[string]int{}, at: map[string]time.Time{}}
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p := r.URL.Path
		page := p != "/robots.txt" && !strings.Contains(p, "sitemap") && !strings.HasPrefix(p, "/maps/")
		s.mu.Lock()
		s.hits[p]++
		if page {
			s.at[p] = time.Now()
			s.inFlight++
			s.maxInFlight = max(s.maxInFlight, s.inFlight)
		}
		s.mu.Unlock()
		if page {
			defer func() {
				s.mu.Lock()
				s.inFlight--
				s.mu.Unlock()
			}()
		}
		if handle != nil && handle(w, r) {
			return
		}
		if !page {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, pageOf(ip+p, vocab*1000+pathVocab(p)))
	})
	l, err := net.Listen("tcp", ip+":0")
	if err != nil {
		if os.Getenv("BLOOMCRAWL_CI") == "1" {
			t.Fatalf("listen on %s: %v", ip, err)
		}
		t.Skipf("listen on %s: %v", ip, err)
	}
	s.srv = &httptest.Server{Listener: l, Config: &http.Server{Handler: h, ReadHeaderTimeout: 5 * time.Second}}
	s.srv.Start()
	t.Cleanup(s.srv.Close)
	return s
}

// pathVocab is a vocabulary of p's own (below 1000).
func pathVocab(p string) int {
	h := fnv.New32a()
	h.Write([]byte(p))
	return int(h.Sum32() % 997)
}

// pageOf is a page of its own text (vocabulary v), titled title.
func pageOf(title string, v int, links ...string) string {
	return page(title, "", "", words(v, 60), links...)
}

func (s *loopHost) url(p string) string { return s.srv.URL + p }
func (s *loopHost) host() string        { return strings.TrimPrefix(s.srv.URL, "http://") }

func (s *loopHost) count(p string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.hits[p]
}

// times returns the start times of the page requests whose path starts
// with prefix, in order.
func (s *loopHost) times(prefix string) []time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []time.Time
	for p, at := range s.at {
		if strings.HasPrefix(p, prefix) {
			out = append(out, at)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Before(out[j]) })
	return out
}

// hostsConfig crawls from seed with every given host in scope.
func hostsConfig(seed string, hosts ...*loopHost) *configs.Config {
	cfg := configs.Default()
	cfg.Seeds = []string{seed}
	for _, h := range hosts {
		cfg.Scope.AllowedHosts = append(cfg.Scope.AllowedHosts, h.srv.Listener.Addr().(*net.TCPAddr).IP.String())
	}
	cfg.Scope.Sitemaps = configs.Sitemaps{Off: true}
	cfg.Politeness.Concurrency = 8
	cfg.Politeness.PerHostParallelism = 8
	cfg.Fetch.Timeout = configs.Duration(5 * time.Second)
	return cfg
}

// redirect answers with a 302 to target.
func redirect(w http.ResponseWriter, r *http.Request, target string) bool {
	http.Redirect(w, r, target, http.StatusFound)
	return true
}

// TestRedirectIntoDisallowedPath: host A's /go redirects to host B's
// /private/page, which B's robots.txt disallows. The target is never
// requested (B's log); it is recorded with reason robots, and so is /go.
func TestRedirectIntoDisallowedPath(t *testing.T) {
	hb := serveLoopHost(t, "127.0.0.3", 100, func(w http.ResponseWriter, r *http.Request) bool {
		if r.URL.Path == "/robots.txt" {
			fmt.Fprint(w, "User-agent: *\nDisallow: /private/\n")
			return true
		}
		return false
	})
	ha := serveLoopHost(t, "127.0.0.2", 200, func(w http.ResponseWriter, r *http.Request) bool {
		switch r.URL.Path {
		case "/":
			fmt.Fprint(w, pageOf("A", 201, a("/go"), a("/b-public")))
			return true
		case "/go":
			return redirect(w, r, hb.url("/private/page"))
		case "/b-public":
			return redirect(w, r, hb.url("/public"))
		}
		return false
	})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	r := crawlInto(t, ctx, hostsConfig(ha.url("/"), ha, hb), t.TempDir(), nil, nil)
	if r.err != nil {
		t.Fatal(r.err)
	}
	if n := hb.count("/private/page"); n != 0 {
		t.Errorf("B's /private/page requested %d times; robots.txt disallows it", n)
	}
	if hb.count("/robots.txt") != 1 || hb.count("/public") != 1 {
		t.Errorf("B's robots.txt requested %d times, /public %d: want 1 and 1", hb.count("/robots.txt"), hb.count("/public"))
	}
	recs := byURL(t, r)
	target := recs[hb.url("/private/page")]
	if target.Reason != ReasonRobots || target.Status != 0 || target.DocID != 0 {
		t.Errorf("target's record %+v: want reason robots, not requested", target)
	}
	if from := recs[ha.url("/go")]; from.Reason != ReasonRobots || from.Status != http.StatusFound || from.DocID != 0 ||
		!strings.Contains(from.Err, "disallowed by robots.txt") {
		t.Errorf("/go's record %+v: want the 302 recorded with reason robots", from)
	}
	if pub := recs[ha.url("/b-public")]; pub.DocID == 0 || pub.DocID != recs[hb.url("/public")].DocID {
		t.Errorf("/b-public → %+v, B's /public → %+v: want one document", pub, recs[hb.url("/public")])
	}
	if r.stats.Robots != 2 {
		t.Errorf("stats count %d robots records, want 2 (/go and its target): %+v", r.stats.Robots, r.stats)
	}
}

// byURL returns r's URL records by absolute URL.
func byURL(t *testing.T, r crawlResult) map[string]storage.URLRecord {
	t.Helper()
	out := map[string]storage.URLRecord{}
	for _, rec := range r.urls {
		out[rec.URL] = rec
	}
	return out
}

// TestRedirectCrawlDelay: ten URLs of host A redirect to ten pages of host
// B, whose robots.txt asks for Crawl-delay 1; with eight workers the ten
// requests to B still start at least 1 s apart.
func TestRedirectCrawlDelay(t *testing.T) {
	if testing.Short() {
		t.Skip("takes 10 s")
	}
	hb := serveLoopHost(t, "127.0.0.3", 300, func(w http.ResponseWriter, r *http.Request) bool {
		if r.URL.Path == "/robots.txt" {
			fmt.Fprint(w, "User-agent: *\nCrawl-delay: 1\n")
			return true
		}
		return false
	})
	const n = 10
	ha := serveLoopHost(t, "127.0.0.2", 400, func(w http.ResponseWriter, r *http.Request) bool {
		if r.URL.Path == "/" {
			var links []string
			for i := range n {
				links = append(links, a(fmt.Sprintf("/go%d", i)))
			}
			fmt.Fprint(w, pageOf("A", 401, links...))
			return true
		}
		if strings.HasPrefix(r.URL.Path, "/go") {
			return redirect(w, r, hb.url("/p"+r.URL.Path[3:]))
		}
		return false
	})
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	r := crawlInto(t, ctx, hostsConfig(ha.url("/"), ha, hb), t.TempDir(), nil, nil)
	if r.err != nil {
		t.Fatal(r.err)
	}
	at := hb.times("/p")
	if len(at) != n {
		t.Fatalf("%d requests to B's pages, want %d", len(at), n)
	}
	for i := 1; i < len(at); i++ {
		if d := at[i].Sub(at[i-1]); d < time.Second {
			t.Errorf("requests %d and %d to B %v apart, want >= 1s (Crawl-delay)", i-1, i, d)
		}
	}
	recs := byURL(t, r)
	for i := range n {
		from, to := recs[ha.url(fmt.Sprintf("/go%d", i))], recs[hb.url(fmt.Sprintf("/p%d", i))]
		if from.DocID == 0 || from.DocID != to.DocID {
			t.Errorf("/go%d → %+v, /p%d → %+v: want one document", i, from, i, to)
		}
	}
}

// TestRedirectToStoredPage: /old redirects to /x, fetched before it (one
// worker, /x linked first); /old maps to /x's document and /x is not
// requested again; so does /older, which reaches /x through /hop, and
// /hop with it.
func TestRedirectToStoredPage(t *testing.T) {
	s := serveLoopHost(t, "127.0.0.2", 500, func(w http.ResponseWriter, r *http.Request) bool {
		switch r.URL.Path {
		case "/":
			fmt.Fprint(w, pageOf("Home", 501, a("/x"), a("/old"), a("/older")))
			return true
		case "/old":
			return redirect(w, r, "/x")
		case "/older":
			return redirect(w, r, "/hop")
		case "/hop":
			return redirect(w, r, "/x")
		}
		return false
	})
	cfg := hostsConfig(s.url("/"), s)
	cfg.Politeness.Concurrency = 1
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	r := crawlInto(t, ctx, cfg, t.TempDir(), nil, nil)
	if r.err != nil {
		t.Fatal(r.err)
	}
	if n := s.count("/x"); n != 1 {
		t.Errorf("/x requested %d times, want 1", n)
	}
	recs := byURL(t, r)
	x := recs[s.url("/x")]
	if x.DocID == 0 || x.Duplicate {
		t.Fatalf("/x: %+v, want its page stored", x)
	}
	for _, p := range []string{"/old", "/older", "/hop"} {
		if rec := recs[s.url(p)]; rec.DocID != x.DocID || rec.Reason != ReasonRedirect || rec.Status != http.StatusFound {
			t.Errorf("%s: %+v, want a 302 mapped to /x's document %x (reason redirect)", p, rec, x.DocID)
		}
	}
	if r.stats.Stored != 2 || len(r.pages) != 2 {
		t.Errorf("stored %d pages (%d in the store), want 2 (/ and /x): %+v", r.stats.Stored, len(r.pages), r.stats)
	}
}

// TestRedirectPerHostParallelism: twenty URLs of host A redirect to
// twenty slow pages of host B, and A links twenty more of B's pages; with
// eight workers and per_host_parallelism 2, neither host ever has more
// than two requests in flight, redirect hops included (followed without
// B's limit, B's own entries and A's redirects would reach four).
func TestRedirectPerHostParallelism(t *testing.T) {
	slow := func(w http.ResponseWriter, r *http.Request) bool {
		if r.URL.Path != "/robots.txt" {
			time.Sleep(40 * time.Millisecond)
		}
		return false
	}
	hb := serveLoopHost(t, "127.0.0.3", 600, slow)
	const n = 20
	ha := serveLoopHost(t, "127.0.0.2", 700, func(w http.ResponseWriter, r *http.Request) bool {
		slow(w, r)
		if r.URL.Path == "/" {
			var links []string
			for i := range n {
				links = append(links, a(fmt.Sprintf("/go%d", i)), a(hb.url(fmt.Sprintf("/q%d", i))))
			}
			fmt.Fprint(w, pageOf("A", 701, links...))
			return true
		}
		if strings.HasPrefix(r.URL.Path, "/go") {
			return redirect(w, r, hb.url("/p"+r.URL.Path[3:]))
		}
		return false
	})
	cfg := hostsConfig(ha.url("/"), ha, hb)
	cfg.Politeness.PerHostParallelism = 2
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	r := crawlInto(t, ctx, cfg, t.TempDir(), nil, nil)
	if r.err != nil {
		t.Fatal(r.err)
	}
	if len(hb.times("/p")) != n || len(hb.times("/q")) != n || r.stats.Stored != 2*n+1 {
		t.Fatalf("B's pages requested: %d + %d, stored %d: want %d + %d and %d",
			len(hb.times("/p")), len(hb.times("/q")), r.stats.Stored, n, n, 2*n+1)
	}
	for _, h := range []*loopHost{ha, hb} {
		h.mu.Lock()
		if h.maxInFlight > 2 {
			t.Errorf("%s: %d requests in flight at once, want <= 2 (per_host_parallelism)", h.host(), h.maxInFlight)
		}
		h.mu.Unlock()
	}
}

// TestSitemapOfHostReachedLater: with scope.sitemaps auto, the sitemaps
// of a host first reached by a link (B) and of one first reached by a
// redirect (C), neither a seed host, are read once each, and the pages
// they alone list are crawled.
func TestSitemapOfHostReachedLater(t *testing.T) {
	withSitemap := func(ip string) func(w http.ResponseWriter, r *http.Request) bool {
		return func(w http.ResponseWriter, r *http.Request) bool {
			switch r.URL.Path {
			case "/robots.txt":
				fmt.Fprintf(w, "User-agent: *\nAllow: /\nSitemap: http://%s/maps/site.xml\n", r.Host)
				return true
			case "/maps/site.xml":
				fmt.Fprintf(w, "<urlset><url><loc>http://%s/hidden</loc></url></urlset>", r.Host)
				return true
			}
			return false
		}
	}
	hb := serveLoopHost(t, "127.0.0.3", 800, withSitemap("127.0.0.3"))
	hc := serveLoopHost(t, "127.0.0.4", 900, withSitemap("127.0.0.4"))
	ha := serveLoopHost(t, "127.0.0.2", 1000, func(w http.ResponseWriter, r *http.Request) bool {
		switch r.URL.Path {
		case "/":
			fmt.Fprint(w, pageOf("A", 1001, a(hb.url("/")), a("/to-c")))
			return true
		case "/to-c":
			return redirect(w, r, hc.url("/"))
		}
		return false
	})
	cfg := hostsConfig(ha.url("/"), ha, hb, hc)
	cfg.Scope.Sitemaps = configs.Sitemaps{} // auto
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	r := crawlInto(t, ctx, cfg, t.TempDir(), nil, nil)
	if r.err != nil {
		t.Fatal(r.err)
	}
	for _, h := range []*loopHost{hb, hc} {
		for _, p := range []string{"/robots.txt", "/maps/site.xml", "/sitemap.xml", "/hidden", "/"} {
			if n := h.count(p); n != 1 {
				t.Errorf("%s%s requested %d times, want 1", h.host(), p, n)
			}
		}
	}
	if ha.count("/sitemap.xml") != 1 {
		t.Errorf("seed host's /sitemap.xml requested %d times, want 1", ha.count("/sitemap.xml"))
	}
	if r.stats.Sitemaps != 2 || r.stats.SitemapURLs != 2 {
		t.Errorf("stats: %d sitemaps read, %d URLs listed; want 2 and 2: %+v", r.stats.Sitemaps, r.stats.SitemapURLs, r.stats)
	}
}

// TestRedirectToHostWithUnreachableRobots: host B's robots.txt answers
// 503 for its first tries; A's /go, redirecting into B, waits (back in A's
// queue, not recorded as an error) and is fetched once a retry reads B's
// robots.txt; no page of B is requested before that.
func TestRedirectToHostWithUnreachableRobots(t *testing.T) {
	shortRobotsTiming(t, time.Hour, 20*time.Millisecond, 50)
	var mu sync.Mutex
	tries, pageEarly := 0, 0
	hb := serveLoopHost(t, "127.0.0.3", 1100, func(w http.ResponseWriter, r *http.Request) bool {
		mu.Lock()
		defer mu.Unlock()
		if r.URL.Path == "/robots.txt" {
			tries++
			if tries < 4 {
				http.Error(w, "busy", http.StatusServiceUnavailable)
				return true
			}
			fmt.Fprint(w, "User-agent: *\nAllow: /\n")
			return true
		}
		if tries < 4 {
			pageEarly++
		}
		return false
	})
	ha := serveLoopHost(t, "127.0.0.2", 1200, func(w http.ResponseWriter, r *http.Request) bool {
		switch r.URL.Path {
		case "/":
			fmt.Fprint(w, pageOf("A", 1201, a("/go")))
			return true
		case "/go":
			return redirect(w, r, hb.url("/target"))
		}
		return false
	})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	r := crawlInto(t, ctx, hostsConfig(ha.url("/"), ha, hb), t.TempDir(), nil, nil)
	if r.err != nil {
		t.Fatal(r.err)
	}
	mu.Lock()
	defer mu.Unlock()
	if pageEarly != 0 || hb.count("/target") != 1 || tries < 4 {
		t.Errorf("B: %d page requests before its robots.txt was read, /target requested %d times, robots.txt %d: want 0, 1, >= 4",
			pageEarly, hb.count("/target"), tries)
	}
	recs := byURL(t, r)
	if from, to := recs[ha.url("/go")], recs[hb.url("/target")]; from.DocID == 0 || from.DocID != to.DocID || from.Err != "" {
		t.Errorf("/go → %+v, /target → %+v: want one document", from, to)
	}
	if r.stats.Errors != 0 || r.queue != 0 {
		t.Errorf("errors %d, queue left %d: want 0 and 0", r.stats.Errors, r.queue)
	}
}

// TestSitemapRedirectChecked: a sitemap that redirects to a path another
// host's robots.txt disallows is not requested there; its record says
// why. One that redirects to an allowed one is read.
func TestSitemapRedirectChecked(t *testing.T) {
	hb := serveLoopHost(t, "127.0.0.3", 1300, func(w http.ResponseWriter, r *http.Request) bool {
		switch r.URL.Path {
		case "/robots.txt":
			fmt.Fprint(w, "User-agent: *\nDisallow: /private/\n")
			return true
		case "/maps/open.xml":
			fmt.Fprintf(w, "<urlset><url><loc>http://%s/listed</loc></url></urlset>", r.Host)
			return true
		}
		return false
	})
	ha := serveLoopHost(t, "127.0.0.2", 1400, func(w http.ResponseWriter, r *http.Request) bool {
		switch r.URL.Path {
		case "/robots.txt":
			fmt.Fprintf(w, "User-agent: *\nAllow: /\nSitemap: http://%s/maps/closed.xml\nSitemap: http://%s/maps/open.xml\n", r.Host, r.Host)
			return true
		case "/maps/closed.xml":
			return redirect(w, r, hb.url("/private/sitemap.xml"))
		case "/maps/open.xml":
			return redirect(w, r, hb.url("/maps/open.xml"))
		}
		return false
	})
	cfg := hostsConfig(ha.url("/"), ha, hb)
	cfg.Scope.Sitemaps = configs.Sitemaps{} // auto
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	r := crawlInto(t, ctx, cfg, t.TempDir(), nil, nil)
	if r.err != nil {
		t.Fatal(r.err)
	}
	if n := hb.count("/private/sitemap.xml"); n != 0 {
		t.Errorf("B's /private/sitemap.xml requested %d times; robots.txt disallows it", n)
	}
	if hb.count("/listed") != 1 {
		t.Errorf("B's /listed requested %d times, want 1 (listed by the redirected sitemap)", hb.count("/listed"))
	}
	recs := byURL(t, r)
	if rec := recs[ha.url("/maps/closed.xml")]; !strings.Contains(rec.Err, "robots.txt") {
		t.Errorf("closed sitemap's record %+v: want the robots.txt refusal", rec)
	}
}
