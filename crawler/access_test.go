package crawler

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bloomcrawl/bloomcrawl/archive"
	"github.com/bloomcrawl/bloomcrawl/configs"
	"github.com/bloomcrawl/bloomcrawl/storage"
)

// accessConfig crawls from seed with the given hosts (names, no port) in
// scope, sitemaps off.
func accessConfig(seed string, hosts ...string) *configs.Config {
	cfg := configs.Default()
	cfg.Seeds = []string{seed}
	cfg.Scope.AllowedHosts = hosts
	cfg.Scope.Sitemaps = configs.Sitemaps{Off: true}
	cfg.Politeness.Concurrency = 4
	cfg.Politeness.PerHostParallelism = 2
	cfg.Fetch.Timeout = configs.Duration(5 * time.Second)
	cfg.Dedup.Capacity = 10_000
	return cfg
}

// accessRun is one crawl of accessCrawl: its counters and records.
type accessRun struct {
	stats Stats
	err   error
	recs  map[string]storage.URLRecord // by absolute URL
	dir   string
	log   string
}

// accessCrawl crawls cfg into a store at dir (a new one if ""), with
// mod applied to the crawler before Run (nil: none) and archive set
// when warcDir is not "". The crawl logs at debug level; the log is kept.
func accessCrawl(t *testing.T, cfg *configs.Config, dir, warcDir string, mod func(*Crawler)) accessRun {
	t.Helper()
	if dir == "" {
		dir = t.TempDir()
	}
	cfg.Store.Dir = dir
	db, err := storage.Open(dir, StoreOptions(cfg.Store))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var logBuf bytes.Buffer
	var logMu sync.Mutex
	o := Options{Store: db, Grace: time.Second, RetryBackoff: 10 * time.Millisecond,
		Logger: slog.New(slog.NewTextHandler(lockedWriter{&logMu, &logBuf}, &slog.HandlerOptions{Level: slog.LevelDebug}))}
	if warcDir != "" {
		cfg.Store.WARCDir = warcDir
		aw, err := archive.Open(ArchiveOptions(cfg, db))
		if err != nil {
			t.Fatal(err)
		}
		defer func() {
			if err := aw.Close(); err != nil {
				t.Error(err)
			}
		}()
		o.Archive = aw
	}
	c, err := newCrawler(cfg, o)
	if err != nil {
		t.Fatal(err)
	}
	if mod != nil {
		mod(c)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	r := accessRun{recs: map[string]storage.URLRecord{}, dir: dir}
	r.stats, r.err = c.Run(ctx)
	if err := db.ForEachURL(context.Background(), func(u storage.URLRecord) error {
		r.recs[u.URL] = u
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	logMu.Lock()
	r.log = logBuf.String()
	logMu.Unlock()
	return r
}

type lockedWriter struct {
	mu *sync.Mutex
	w  io.Writer
}

func (l lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// stored counts the records with a document.
func (r accessRun) stored() int {
	n := 0
	for _, rec := range r.recs {
		if rec.DocID != 0 {
			n++
		}
	}
	return n
}

// proxiedSite serves, on 127.0.0.1, a home page linking five pages and
// the home page of a second host on 127.0.0.2 (other).
func proxiedSite(t *testing.T) (site, other *loopHost) {
	other = serveLoopHost(t, "127.0.0.2", 520, nil)
	site = serveLoopHost(t, "127.0.0.1", 510, func(w http.ResponseWriter, r *http.Request) bool {
		if r.URL.Path == "/" {
			fmt.Fprint(w, pageOf("home", 511, a("/p1"), a("/p2"), a("/p3"), a("/p4"), a("/p5"), a(other.url("/"))))
			return true
		}
		return false
	})
	return site, other
}

func (s *loopHost) port() string {
	_, port, _ := net.SplitHostPort(s.host())
	return port
}

func (s *loopHost) total() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, v := range s.hits {
		n += v
	}
	return n
}

// TestProxyForward: with fetch.proxy an HTTP proxy (credentials in its
// URL), every request of the crawl goes through it (the site's name,
// site.invalid, resolves only at the proxy), robots.txt included; a
// proxy rule "direct" sends the second host's requests around it.
func TestProxyForward(t *testing.T) {
	site, other := proxiedSite(t)
	px := newHTTPProxy(t, "crawler", "pr0xy-secret")
	siteHost := "site.invalid:" + site.port()
	cfg := accessConfig("http://"+siteHost+"/", "site.invalid", "127.0.0.2")
	cfg.Fetch.Proxy = px.url()
	cfg.Fetch.ProxyRules = []configs.ProxyRule{{Match: "127.0.0.2", Proxy: "direct"}}
	r := accessCrawl(t, cfg, "", "", nil)
	if r.err != nil {
		t.Fatal(r.err)
	}
	forwards, connects, denied := px.counts()
	t.Logf("site answered %d requests, the proxy forwarded %v, tunnels %v; other host answered %d", site.total(), forwards, connects, other.total())
	if r.stored() != 7 || r.stats.Errors != 0 {
		t.Errorf("%d pages stored, %d errors; want 7 and 0: %+v", r.stored(), r.stats.Errors, r.recs)
	}
	if forwards[siteHost] != site.total() || site.total() != 7 {
		t.Errorf("proxy forwarded %d requests to %s, the site answered %d: want 7 = 7 (6 pages and robots.txt)", forwards[siteHost], siteHost, site.total())
	}
	if n := forwards[other.host()] + connects[other.host()]; n != 0 || other.total() != 2 {
		t.Errorf("the proxy saw %d requests for %s, which answered %d: want 0 and 2 (direct)", n, other.host(), other.total())
	}
	if denied != 0 {
		t.Errorf("%d requests reached the proxy without its credentials", denied)
	}
	if strings.Contains(r.log, "pr0xy-secret") {
		t.Error("the proxy password is in the log")
	}
}

// TestProxyConnect: an https site reached through the HTTP proxy's
// CONNECT tunnels.
func TestProxyConnect(t *testing.T) {
	var mu sync.Mutex
	hits := 0
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		hits++
		mu.Unlock()
		switch r.URL.Path {
		case "/":
			fmt.Fprint(w, pageOf("tls home", 531, a("/q1"), a("/q2")))
		case "/q1", "/q2":
			fmt.Fprint(w, pageOf("tls "+r.URL.Path, 532+len(r.URL.Path)*7+int(r.URL.Path[2])))
		default:
			http.NotFound(w, r)
		}
	}))
	srv.StartTLS()
	t.Cleanup(srv.Close)
	_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
	px := newHTTPProxy(t, "crawler", "pr0xy-secret")
	// example.com is in the test certificate; the proxy maps it to 127.0.0.1
	host := "example.com:" + port
	cfg := accessConfig("https://"+host+"/", "example.com")
	cfg.Fetch.Proxy = px.url()
	pool := x509.NewCertPool()
	pool.AddCert(srv.Certificate())
	r := accessCrawl(t, cfg, "", "", func(c *Crawler) { c.access.tls = &tls.Config{RootCAs: pool} })
	if r.err != nil {
		t.Fatal(r.err)
	}
	_, connects, _ := px.counts()
	mu.Lock()
	defer mu.Unlock()
	t.Logf("site answered %d requests through %d CONNECT tunnels", hits, connects[host])
	if r.stored() != 3 || hits != 4 || connects[host] == 0 {
		t.Errorf("%d pages stored, %d requests answered, %d tunnels: want 3, 4 (robots.txt too), > 0: %+v", r.stored(), hits, connects[host], r.recs)
	}
}

// TestProxySOCKS5: the same crawl as TestProxyForward through a SOCKS5
// proxy with user/password authentication.
func TestProxySOCKS5(t *testing.T) {
	site, other := proxiedSite(t)
	px := newSOCKSProxy(t, "crawler", "s0cks-secret")
	siteHost := "site.invalid:" + site.port()
	cfg := accessConfig("http://"+siteHost+"/", "site.invalid", "127.0.0.2")
	cfg.Fetch.Proxy = px.url()
	cfg.Fetch.ProxyRules = []configs.ProxyRule{{Match: "127.0.0.2", Proxy: "direct"}}
	r := accessCrawl(t, cfg, "", "", nil)
	if r.err != nil {
		t.Fatal(r.err)
	}
	connects, denied := px.counts()
	t.Logf("site answered %d requests through %v tunnels", site.total(), connects)
	if r.stored() != 7 || site.total() != 7 || connects[siteHost] == 0 {
		t.Errorf("%d pages stored, site answered %d requests, %d tunnels: want 7, 7, > 0", r.stored(), site.total(), connects[siteHost])
	}
	if connects[other.host()] != 0 || other.total() != 2 || denied != 0 {
		t.Errorf("%d tunnels to %s (direct), which answered %d; %d denied", connects[other.host()], other.host(), other.total(), denied)
	}
}

// TestProxyDown: a proxy that refuses connections is an error naming the
// proxy without its credentials, retried like a network error; the host
// is set aside after politeness.host_failures failures in a row and the
// crawl ends.
func TestProxyDown(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // nothing listens there now
	links := []string{}
	for i := range 8 {
		links = append(links, a(fmt.Sprintf("/p%d", i)))
	}
	site := serveLoopHost(t, "127.0.0.1", 540, func(w http.ResponseWriter, r *http.Request) bool {
		if r.URL.Path == "/" {
			fmt.Fprint(w, pageOf("home", 541, links...))
			return true
		}
		return false
	})
	// the seed direct (a rule), its links through the dead proxy
	cfg := accessConfig(site.url("/"), "127.0.0.1", "localhost")
	cfg.Politeness.ObeyRobots = false
	cfg.Politeness.MaxDelay = configs.Duration(100 * time.Millisecond)
	cfg.Politeness.HostFailures = 4
	cfg.Fetch.Retries = 1
	cfg.Fetch.Proxy = "http://crawler:pr0xy-secret@" + addr
	cfg.Fetch.ProxyRules = []configs.ProxyRule{{Match: site.host(), Proxy: "direct"}}
	for i := range 8 {
		cfg.Seeds = append(cfg.Seeds, fmt.Sprintf("http://localhost:%s/p%d", site.port(), i))
	}
	r := accessCrawl(t, cfg, "", "", nil)
	if r.err != nil {
		t.Fatal(r.err)
	}
	failed, aside := 0, 0
	for u, rec := range r.recs {
		if !strings.HasPrefix(u, "http://localhost:") {
			continue
		}
		switch {
		case rec.Reason == ReasonHostFailing:
			aside++
		case strings.Contains(rec.Err, "via proxy http://"+addr+": "):
			if failed == 0 {
				t.Logf("%s: %s", u, rec.Err)
			}
			failed++
		default:
			t.Errorf("%s: %+v, want an error naming the proxy", u, rec)
		}
		if strings.Contains(rec.Err, "pr0xy-secret") || strings.Contains(rec.Err, "crawler:") {
			t.Errorf("%s: the error shows the proxy's credentials: %s", u, rec.Err)
		}
	}
	t.Logf("%d URLs failed through the dead proxy, %d set aside; %d retries", failed, aside, r.stats.Retries)
	if failed == 0 || aside == 0 || failed+aside != 8 || r.stats.Retries == 0 || r.stats.HostsSetAside != 1 {
		t.Errorf("%d failed, %d set aside, %d retries, %d hosts set aside: want some, some, 8 in all, > 0, 1", failed, aside, r.stats.Retries, r.stats.HostsSetAside)
	}
	if strings.Contains(r.log, "pr0xy-secret") {
		t.Error("the proxy password is in the log")
	}
}

// TestProxyRefusesCredentials: a forwarding proxy that answers 407 (the
// password in fetch.proxy is wrong) is an error naming the proxy, not
// retried, and the host is set aside after politeness.host_failures.
func TestProxyRefusesCredentials(t *testing.T) {
	site, _ := proxiedSite(t)
	px := newHTTPProxy(t, "crawler", "the-right-one")
	cfg := accessConfig("http://site.invalid:"+site.port()+"/", "site.invalid")
	for i := range 6 {
		cfg.Seeds = append(cfg.Seeds, fmt.Sprintf("http://site.invalid:%s/p%d", site.port(), i))
	}
	cfg.Politeness.ObeyRobots = false
	cfg.Politeness.HostFailures = 3
	cfg.Politeness.MaxDelay = configs.Duration(100 * time.Millisecond)
	cfg.Fetch.Proxy = "http://crawler:wr0ng-secret@" + strings.TrimPrefix(px.srv.URL, "http://")
	r := accessCrawl(t, cfg, "", "", nil)
	if r.err != nil {
		t.Fatal(r.err)
	}
	want := "via proxy " + px.srv.URL + ": 407 Proxy Authentication Required"
	refused, aside := 0, 0
	for u, rec := range r.recs {
		switch {
		case strings.Contains(rec.Err, want):
			refused++
		case rec.Reason == ReasonHostFailing:
			aside++
		default:
			t.Errorf("%s: %+v, want %q or set aside", u, rec, want)
		}
		if strings.Contains(rec.Err, "wr0ng-secret") {
			t.Errorf("%s: the error shows the password", u)
		}
	}
	_, _, denied := px.counts()
	t.Logf("%d URLs refused by the proxy, %d set aside; the proxy denied %d requests; %d retries", refused, aside, denied, r.stats.Retries)
	if refused == 0 || aside == 0 || refused+aside != 7 || r.stats.Retries != 0 || site.total() != 0 {
		t.Errorf("%d refused, %d set aside, %d retries, %d requests reached the site: want some, some, 7 in all, 0, 0", refused, aside, r.stats.Retries, site.total())
	}
}

// TestProxyFromEnvironment: with fetch.proxy unset the environment
// decides (HTTPS_PROXY, NO_PROXY); set, it is ignored; rules come first.
func TestProxyFromEnvironment(t *testing.T) {
	t.Setenv("HTTP_PROXY", "http://env-proxy:3128")
	t.Setenv("HTTPS_PROXY", "http://env-proxy:3129")
	t.Setenv("NO_PROXY", "skip.example")
	cases := []struct {
		f    configs.Fetch
		url  string
		want string
	}{
		{configs.Fetch{}, "http://a.example/", "http://env-proxy:3128"},
		{configs.Fetch{}, "https://a.example/", "http://env-proxy:3129"},
		{configs.Fetch{}, "https://skip.example/", ""},
		{configs.Fetch{Proxy: "socks5://127.0.0.1:1080"}, "https://skip.example/", "socks5://127.0.0.1:1080"},
		{configs.Fetch{Proxy: "socks5://127.0.0.1:1080", NoProxy: []string{"example.org"}}, "http://docs.example.org/", ""},
		{configs.Fetch{Proxy: "socks5://127.0.0.1:1080", NoProxy: []string{".example.org"}}, "http://example.org/", "socks5://127.0.0.1:1080"},
		{configs.Fetch{Proxy: "socks5://127.0.0.1:1080", NoProxy: []string{"*.internal"}}, "http://wiki.internal:8080/", ""},
		{configs.Fetch{ProxyRules: []configs.ProxyRule{{Match: "*.example", Proxy: "direct"}}}, "http://a.example/", ""},
		{configs.Fetch{Proxy: "http://p:1", ProxyRules: []configs.ProxyRule{{Match: "a.example", Proxy: "http://q:2"}}}, "http://a.example/", "http://q:2"},
	}
	for i, tc := range cases {
		a, err := newAccess(tc.f)
		if err != nil {
			t.Fatal(err)
		}
		u, err := url.Parse(tc.url)
		if err != nil {
			t.Fatal(err)
		}
		p, err := a.proxyFor(u)
		if err != nil {
			t.Fatal(err)
		}
		got := ""
		if p != nil {
			got = p.String()
		}
		if got != tc.want {
			t.Errorf("case %d: proxy for %s = %q, want %q", i, tc.url, got, tc.want)
		}
	}
}

// readWARCs returns the decompressed text of the WARC files in dir.
func readWARCs(t *testing.T, dir string) string {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(dir, "*.warc.gz"))
	if len(files) == 0 {
		t.Fatalf("no WARC file in %s", dir)
	}
	var b strings.Builder
	for _, f := range files {
		fh, err := os.Open(f)
		if err != nil {
			t.Fatal(err)
		}
		zr, err := gzip.NewReader(fh)
		if err != nil {
			t.Fatal(err)
		}
		zr.Multistream(true)
		if _, err := io.Copy(&b, zr); err != nil {
			t.Fatal(err)
		}
		fh.Close()
	}
	return b.String()
}

// grepDir reports the files under dir whose bytes contain s.
func grepDir(t *testing.T, dir, s string) []string {
	t.Helper()
	var hits []string
	filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
		if err != nil || info.IsDir() {
			return nil
		}
		b, err := os.ReadFile(p)
		if err == nil && bytes.Contains(b, []byte(s)) {
			hits = append(hits, p)
		}
		return nil
	})
	return hits
}

// TestHostHeaders: fetch.headers go to every host; a host rule's headers
// and basic auth (here its password from a file) only to the hosts it
// matches, a later rule's header replacing an earlier one's.
func TestHostHeaders(t *testing.T) {
	pw := filepath.Join(t.TempDir(), "pw")
	if err := os.WriteFile(pw, []byte("f1le-secret\nignored\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	a, err := newAccess(configs.Fetch{
		Headers: []string{"X-Run: 7", "X-Team: all"},
		HostRules: []configs.HostRule{
			{Match: "*.example.com", Headers: []string{"x-team: docs"}, BasicAuth: configs.BasicAuth{User: "bob", PasswordFile: pw}},
			{Match: "api.example.com:8443", Headers: []string{"X-Team: api"}},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	auth := "Basic " + base64.StdEncoding.EncodeToString([]byte("bob:f1le-secret"))
	for _, tc := range []struct {
		host, team, auth string
	}{
		{"docs.example.com", "docs", auth},
		{"api.example.com:8443", "api", auth},
		{"api.example.com:443", "docs", auth},
		{"example.com", "all", ""},
		{"cdn.example.net", "all", ""},
	} {
		h := a.extra(tc.host)
		if h.Get("X-Run") != "7" || h.Get("X-Team") != tc.team || h.Get("Authorization") != tc.auth || len(h["X-Team"]) != 1 {
			t.Errorf("%s: headers %v, want X-Team %q, Authorization %q", tc.host, h, tc.team, tc.auth)
		}
	}
}
