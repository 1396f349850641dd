package crawler

import (
	"context"
	"crypto/tls"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"strings"
	"sync"
	"time"

	"golang.org/x/net/http/httpproxy"
	"golang.org/x/net/publicsuffix"

	"github.com/bloomcrawl/bloomcrawl/configs"
	"github.com/bloomcrawl/bloomcrawl/internal/cookiefile"
	"github.com/bloomcrawl/bloomcrawl/storage"
)

// How the crawl reaches hosts (fetch.proxy, fetch.proxy_rules,
// fetch.no_proxy, fetch.headers, fetch.host_rules, fetch.cookies,
// fetch.cookies_file): the proxy chosen per request, the headers and
// basic auth added per host by a transport layer (so the HTTP client
// never copies them onto a redirect to another host), and a cookie jar
// saved in the store.

// access is a crawl's access settings, credentials read (newAccess).
type access struct {
	rules   []proxyRule
	proxy   *url.URL // fetch.proxy; nil: none
	noProxy []string
	// env is the proxy the environment variables choose (HTTP_PROXY,
	// HTTPS_PROXY, NO_PROXY), used when fetch.proxy is not set.
	env     func(*url.URL) (*url.URL, error)
	headers http.Header // fetch.headers
	hosts   []hostAccess
	cookies []*http.Cookie      // fetch.cookies
	file    []cookiefile.Cookie // fetch.cookies_file
	// tls, if set, is the transport's TLS configuration (tests: a loopback
	// HTTPS site's certificate).
	tls *tls.Config
}

type proxyRule struct {
	match string
	proxy *url.URL // nil: direct
}

type hostAccess struct {
	match   string
	headers http.Header
	auth    string // the Authorization value; "" for none
}

// newAccess reads f's access settings, the passwords included. Its errors
// name the field (the config was checked with file:line before).
func newAccess(f configs.Fetch) (*access, error) {
	a := &access{noProxy: f.NoProxy, headers: http.Header{}}
	if f.Proxy != "" {
		u, err := url.Parse(f.Proxy)
		if err != nil {
			return nil, errors.New("fetch.proxy: not a valid URL")
		}
		a.proxy = u
	} else {
		if env := httpproxy.FromEnvironment(); env.HTTPProxy != "" || env.HTTPSProxy != "" {
			a.env = env.ProxyFunc()
		}
	}
	for i, r := range f.ProxyRules {
		pr := proxyRule{match: r.Match}
		if r.Proxy != "direct" {
			u, err := url.Parse(r.Proxy)
			if err != nil {
				return nil, fmt.Errorf("fetch.proxy_rules[%d].proxy: not a valid URL", i)
			}
			pr.proxy = u
		}
		a.rules = append(a.rules, pr)
	}
	if err := addHeaders(a.headers, f.Headers, "fetch.headers"); err != nil {
		return nil, err
	}
	for i, r := range f.HostRules {
		h := hostAccess{match: r.Match, headers: http.Header{}}
		if err := addHeaders(h.headers, r.Headers, fmt.Sprintf("fetch.host_rules[%d].headers", i)); err != nil {
			return nil, err
		}
		if !r.BasicAuth.IsZero() {
			pw, err := r.BasicAuth.Password()
			if err != nil {
				return nil, fmt.Errorf("fetch.host_rules[%d].basic_auth: %w", i, err)
			}
			h.auth = "Basic " + base64.StdEncoding.EncodeToString([]byte(r.BasicAuth.User+":"+pw))
		}
		a.hosts = append(a.hosts, h)
	}
	for i, s := range f.Cookies {
		c, err := configs.ParseSetCookie(s)
		if err != nil {
			return nil, fmt.Errorf("fetch.cookies[%d]: %w", i, err)
		}
		a.cookies = append(a.cookies, c)
	}
	if f.CookiesFile != "" {
		cs, err := cookiefile.Load(f.CookiesFile)
		if err != nil {
			return nil, fmt.Errorf("fetch.cookies_file: %w", err)
		}
		a.file = cs
	}
	return a, nil
}

func addHeaders(h http.Header, lines []string, field string) error {
	for i, l := range lines {
		name, value, err := configs.ParseHeader(l)
		if err != nil {
			return fmt.Errorf("%s[%d]: %w", field, i, err)
		}
		h.Add(name, value)
	}
	return nil
}

// proxied reports whether any request may go through a proxy (a rule,
// fetch.proxy, or the environment naming one). Without, the transport has
// no Proxy function, so the WARC recorder can tap its connections and
// keep the heads as received.
func (a *access) proxied() bool {
	for _, r := range a.rules {
		if r.proxy != nil {
			return true
		}
	}
	return a.proxy != nil || a.env != nil
}

// proxyFor returns the proxy for a request to u (nil: direct): the first
// proxy rule matching u's host; else, with fetch.proxy set, it unless
// fetch.no_proxy lists the host; else what the environment says.
func (a *access) proxyFor(u *url.URL) (*url.URL, error) {
	for _, r := range a.rules {
		if configs.MatchHost(r.match, u.Host) {
			return r.proxy, nil
		}
	}
	if a.proxy == nil {
		if a.env == nil {
			return nil, nil
		}
		return a.env(u)
	}
	for _, n := range a.noProxy {
		if noProxyMatch(n, u.Host) {
			return nil, nil
		}
	}
	return a.proxy, nil
}

// noProxyMatch reports whether host matches a fetch.no_proxy entry: "*"
// (every host), a glob, ".domain" (its subdomains) or a host name (it and
// its subdomains).
func noProxyMatch(entry, host string) bool {
	entry = strings.ToLower(strings.TrimSpace(entry))
	name := strings.ToLower(hostname(host))
	switch {
	case entry == "*":
		return true
	case strings.ContainsAny(entry, "*?["):
		return configs.MatchHost(entry, host)
	case strings.HasPrefix(entry, "."):
		return strings.HasSuffix(name, entry)
	case strings.Contains(entry, ":"):
		return entry == strings.ToLower(host)
	}
	return name == entry || strings.HasSuffix(name, "."+entry)
}

// hostname is host without its port.
func hostname(host string) string {
	u := url.URL{Host: host}
	return u.Hostname()
}

// extra returns the headers to add to a request to host: fetch.headers,
// then each matching host rule's (a rule's header replaces one of the same
// name), and its basic auth. nil when there are none.
func (a *access) extra(host string) http.Header {
	var h http.Header
	if len(a.headers) > 0 {
		h = a.headers.Clone()
	}
	for _, r := range a.hosts {
		if !configs.MatchHost(r.match, host) {
			continue
		}
		if h == nil {
			h = http.Header{}
		}
		for k, v := range r.headers {
			h[k] = v
		}
		if r.auth != "" {
			h.Set("Authorization", r.auth)
		}
	}
	return h
}

// accessTransport adds each request's per-host headers and basic auth (on
// a copy: the HTTP client never sees them, so it cannot carry them to a
// redirect's host), and names the proxy in the errors of a proxied
// request.
type accessTransport struct {
	a    *access
	next http.RoundTripper
	// observe, if set, learns how each round trip went
	// (throttle.roundTrip): no queue or politeness wait is in took.
	observe func(req *http.Request, resp *http.Response, err error, took time.Duration)
}

func (t *accessTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if h := t.a.extra(req.URL.Host); h != nil {
		req = req.Clone(req.Context())
		for k, v := range h {
			req.Header[k] = v
		}
	}
	began := time.Now()
	resp, err := t.next.RoundTrip(req)
	if t.observe != nil {
		t.observe(req, resp, err, time.Since(began))
	}
	if err == nil && resp.StatusCode != http.StatusProxyAuthRequired {
		return resp, nil
	}
	p, perr := t.a.proxyFor(req.URL)
	if perr != nil || p == nil {
		return resp, err
	}
	if err == nil {
		// a forwarding proxy refused our credentials: the proxy's
		// answer, not the site's
		resp.Body.Close()
		return nil, &proxyError{proxy: redactProxy(p), err: errors.New(resp.Status), refused: true}
	}
	return nil, &proxyError{proxy: redactProxy(p), err: err, refused: strings.Contains(err.Error(), "Proxy Authentication Required")}
}

// proxyError is a failed request that went through a proxy: the proxy
// refused or failed, or the host behind it did. It is retried like a
// transient network error (transient), unless the proxy refused our
// credentials (407).
type proxyError struct {
	proxy   string // scheme://host:port, no credentials
	err     error
	refused bool // 407: the proxy refused the credentials (not retried)
}

func (e *proxyError) Error() string { return "via proxy " + e.proxy + ": " + e.err.Error() }
func (e *proxyError) Unwrap() error { return e.err }

// redactProxy is a proxy URL without its credentials.
func redactProxy(u *url.URL) string {
	return (&url.URL{Scheme: u.Scheme, Host: u.Host}).String()
}

// cookieMeta is the store's meta key under which the cookie jar is saved.
const cookieMeta = "crawl/cookies"

// metaStore is the part of *storage.DB that keeps the cookie jar and the
// console's exclusions.
type metaStore interface {
	GetMeta(key string) ([]byte, error)
	PutMeta(key string, val []byte) error
}

// cookieJar is the crawl's cookie jar (net/http/cookiejar, which sends a
// cookie only to its domain) saved in the store: every cookie a site sets
// is written under cookieMeta, and a resumed crawl loads them back, so it
// keeps its session. A write error is logged, not fatal: the crawl goes
// on with the cookies in memory.
type cookieJar struct {
	jar   *cookiejar.Jar
	store metaStore // nil: not saved
	log   *slog.Logger

	mu    sync.Mutex
	saved map[string]savedCookie
}

// savedCookie is a cookie as the jar saves it: the URL that set it and
// its attributes, Max-Age turned into Expires.
type savedCookie struct {
	URL      string    `json:"url"`
	Name     string    `json:"name"`
	Value    string    `json:"value"`
	Domain   string    `json:"domain,omitempty"`
	Path     string    `json:"path,omitempty"`
	Expires  time.Time `json:"expires,omitzero"`
	Secure   bool      `json:"secure,omitempty"`
	HTTPOnly bool      `json:"http_only,omitempty"`
}

// maxSavedCookies bounds the cookies saved (the oldest are not evicted:
// new ones beyond it stay in memory only).
const maxSavedCookies = 3000

func newCookieJar(store metaStore, log *slog.Logger) *cookieJar {
	jar, _ := cookiejar.New(&cookiejar.Options{PublicSuffixList: publicsuffix.List}) // never fails
	return &cookieJar{jar: jar, store: store, log: log, saved: map[string]savedCookie{}}
}

func (j *cookieJar) Cookies(u *url.URL) []*http.Cookie { return j.jar.Cookies(u) }

func (j *cookieJar) SetCookies(u *url.URL, cookies []*http.Cookie) {
	j.jar.SetCookies(u, cookies)
	if j.store == nil {
		return
	}
	now := time.Now()
	j.mu.Lock()
	defer j.mu.Unlock()
	changed := false
	for _, c := range cookies {
		domain := c.Domain
		if domain == "" {
			domain = "=" + u.Hostname() // host-only
		}
		key := domain + "\x00" + c.Path + "\x00" + c.Name
		exp := c.Expires
		if c.MaxAge > 0 {
			exp = now.Add(time.Duration(c.MaxAge) * time.Second)
		}
		if c.MaxAge < 0 || !exp.IsZero() && !exp.After(now) {
			if _, ok := j.saved[key]; ok {
				delete(j.saved, key)
				changed = true
			}
			continue
		}
		s := savedCookie{URL: (&url.URL{Scheme: u.Scheme, Host: u.Host, Path: u.Path}).String(), Name: c.Name, Value: c.Value,
			Domain: c.Domain, Path: c.Path, Expires: exp, Secure: c.Secure, HTTPOnly: c.HttpOnly}
		if old, ok := j.saved[key]; ok && old == s {
			continue
		} else if !ok && len(j.saved) >= maxSavedCookies {
			continue
		}
		j.saved[key] = s
		changed = true
	}
	if !changed {
		return
	}
	b, err := json.Marshal(j.saved)
	if err == nil {
		err = j.store.PutMeta(cookieMeta, b)
	}
	if err != nil {
		j.log.Warn("cookie jar not saved in the store; a resumed crawl will not have these cookies", "err", err)
	}
}

// load seeds the jar: fetch.cookies and fetch.cookies_file first, then
// the cookies the store saved (a resumed crawl's session), which win.
func (j *cookieJar) load(a *access) (int, error) {
	for _, c := range a.cookies {
		scheme := "http"
		if c.Secure {
			scheme = "https"
		}
		path := c.Path
		if path == "" {
			path = "/"
		}
		j.jar.SetCookies(&url.URL{Scheme: scheme, Host: strings.TrimPrefix(c.Domain, "."), Path: path}, []*http.Cookie{c})
	}
	for _, fc := range a.file {
		c := fc.Cookie
		scheme := "http"
		if c.Secure {
			scheme = "https"
		}
		u := &url.URL{Scheme: scheme, Host: c.Domain, Path: c.Path}
		if !fc.Subdomains {
			c.Domain = "" // host-only
		}
		j.jar.SetCookies(u, []*http.Cookie{&c})
	}
	if j.store == nil {
		return 0, nil
	}
	b, err := j.store.GetMeta(cookieMeta)
	if errors.Is(err, storage.ErrNotFound) {
		return 0, nil
	} else if err != nil {
		return 0, fmt.Errorf("crawler: read the saved cookie jar: %w", err)
	}
	saved := map[string]savedCookie{}
	if err := json.Unmarshal(b, &saved); err != nil {
		return 0, fmt.Errorf("crawler: read the saved cookie jar: %w", err)
	}
	now := time.Now()
	n := 0
	j.mu.Lock()
	defer j.mu.Unlock()
	for k, s := range saved {
		if !s.Expires.IsZero() && !s.Expires.After(now) {
			continue
		}
		u, err := url.Parse(s.URL)
		if err != nil {
			continue
		}
		j.jar.SetCookies(u, []*http.Cookie{{Name: s.Name, Value: s.Value, Domain: s.Domain, Path: s.Path,
			Expires: s.Expires, Secure: s.Secure, HttpOnly: s.HTTPOnly}})
		j.saved[k] = s
		n++
	}
	return n, nil
}

// startAccess seeds the cookie jar before the first fetch (newCollector
// made it); ctx is unused but marks that it runs in Run.
func (c *Crawler) startAccess(_ context.Context) error {
	if c.jar == nil {
		return nil
	}
	n, err := c.jar.load(c.access)
	if err != nil {
		return err
	}
	if n > 0 {
		c.log.Info("cookie jar restored from the store", "cookies", n)
	}
	return nil
}
