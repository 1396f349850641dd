// Package newssite serves a test news site that changes over time, for
// continuous-crawl tests and benchmarks: several hosts (distinct loopback
// addresses 127.0.0.2, 127.0.0.3 …), each with a hub page ("/") listing its
// latest articles (with an ETag, answering 304 to a matching
// If-None-Match), articles published when the caller says so (Publish),
// syndicated copies of other hosts' articles (same text, published on the
// next host), edits (Edit: a few words, a near-duplicate) and rewrites
// (Rewrite: a new text). It counts every request per URL path.
package newssite

import (
	"fmt"
	"html"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"time"
)

// Site is a running news site. Create it with Start; Close stops it.
type Site struct {
	Hosts []*Host
	// SyndicateEvery: every n-th article of a host is also published as a
	// syndicated copy on the next host (0 = none).
	SyndicateEvery int
	// HubSize is how many of the latest articles a hub lists.
	HubSize int
}

// Host is one host of the site.
type Host struct {
	site *Site
	idx  int
	srv  *httptest.Server

	mu       sync.Mutex
	articles []article // own articles, in publication order (id = index+1)
	copies   []copyOf  // syndicated copies, in publication order
	hits     map[string]int
	first    map[string]time.Time // first request per path
	notMod   int
}

type article struct {
	words     string
	edits     int
	rewrites  int
	published time.Time
}

type copyOf struct {
	from, id int // the original: host index and article id
}

// Start serves n hosts, on 127.0.0.2 … 127.0.0.(n+1).
func Start(n int) (*Site, error) {
	s := &Site{SyndicateEvery: 3, HubSize: 50}
	for i := range n {
		l, err := net.Listen("tcp", fmt.Sprintf("127.0.0.%d:0", i+2))
		if err != nil {
			s.Close()
			return nil, fmt.Errorf("newssite: listen: %w", err)
		}
		h := &Host{site: s, idx: i, hits: map[string]int{}, first: map[string]time.Time{}}
		h.srv = &httptest.Server{Listener: l, Config: &http.Server{Handler: h}}
		h.srv.Start()
		s.Hosts = append(s.Hosts, h)
	}
	return s, nil
}

// Close stops every host.
func (s *Site) Close() {
	for _, h := range s.Hosts {
		h.srv.Close()
	}
}

// URL returns the absolute URL of path on h.
func (h *Host) URL(path string) string { return h.srv.URL + path }

// ArticlePath is the path of article id (1-based) on its own host.
func ArticlePath(id int) string { return fmt.Sprintf("/a/%d", id) }

// CopyPath is the path of the syndicated copy of host from's article id.
func CopyPath(from, id int) string { return fmt.Sprintf("/s/%d/%d", from, id) }

// Publish adds one article to every host (and the syndicated copies due).
func (s *Site) Publish() {
	for i, h := range s.Hosts {
		h.mu.Lock()
		h.articles = append(h.articles, article{words: text(i, len(h.articles)+1), published: time.Now()})
		id := len(h.articles)
		h.mu.Unlock()
		if s.SyndicateEvery > 0 && id%s.SyndicateEvery == 0 && len(s.Hosts) > 1 {
			next := s.Hosts[(i+1)%len(s.Hosts)]
			next.mu.Lock()
			next.copies = append(next.copies, copyOf{from: i, id: id})
			next.mu.Unlock()
		}
	}
}

// Edit changes a few words of article id of host h (a near-duplicate of
// its earlier text).
func (h *Host) Edit(id int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.articles[id-1].edits++
}

// Rewrite replaces the text of article id of host h with a new one (no
// near-duplicate of any earlier text; its edits start again from none).
// ArticleText returns it.
func (h *Host) Rewrite(id int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	a := &h.articles[id-1]
	a.rewrites++
	a.edits = 0
	a.words = rewritten(h.idx, id, a.rewrites)
}

// ArticleText returns the text of article id of host h as served now.
func (h *Host) ArticleText(id int) string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.articles[id-1].text()
}

// Articles returns the number of articles h published.
func (h *Host) Articles() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.articles)
}

// Copies returns the syndicated copies on h as (original host, id) pairs.
func (h *Host) Copies() [][2]int {
	h.mu.Lock()
	defer h.mu.Unlock()
	out := make([][2]int, len(h.copies))
	for i, c := range h.copies {
		out[i] = [2]int{c.from, c.id}
	}
	return out
}

// Hits returns how many requests path got (any answer).
func (h *Host) Hits(path string) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.hits[path]
}

// Published returns when article id of h was published.
func (h *Host) Published(id int) time.Time {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.articles[id-1].published
}

// FirstHit returns when path was first requested (zero: never).
func (h *Host) FirstHit(path string) time.Time {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.first[path]
}

// NotModified returns how many 304 answers the hub gave.
func (h *Host) NotModified() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.notMod
}

// text is the body of article id of host i: 120 words, distinct per
// article.
func text(host, id int) string {
	var b strings.Builder
	for k := range 120 {
		fmt.Fprintf(&b, "w%dx%dy%d ", host, id, k%40+k*7%13)
	}
	return b.String()
}

// rewritten is the text of article id of host i after its n-th rewrite:
// 120 words, none shared with the original or another rewrite.
func rewritten(host, id, n int) string {
	var b strings.Builder
	for k := range 120 {
		fmt.Fprintf(&b, "r%dv%dx%dy%d ", n, host, id, k%40+k*7%13)
	}
	return b.String()
}

// text is the article's text with its edits.
func (a *article) text() string {
	words := a.words
	for e := range a.edits {
		words = strings.Replace(words, " ", fmt.Sprintf(" edit%d ", e), 1)
	}
	return words
}

func (h *Host) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.hits[r.URL.Path]++
	if _, ok := h.first[r.URL.Path]; !ok {
		h.first[r.URL.Path] = time.Now()
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	switch {
	case r.URL.Path == "/":
		etag := fmt.Sprintf(`"%d-%d"`, len(h.articles), len(h.copies))
		w.Header().Set("ETag", etag)
		if r.Header.Get("If-None-Match") == etag {
			h.notMod++
			w.WriteHeader(http.StatusNotModified)
			return
		}
		var links []string
		for id := len(h.articles); id >= 1 && len(links) < h.site.HubSize; id-- {
			links = append(links, ArticlePath(id))
		}
		for k := len(h.copies) - 1; k >= 0 && len(links) < 2*h.site.HubSize; k-- {
			links = append(links, CopyPath(h.copies[k].from, h.copies[k].id))
		}
		// the hub's own text: the titles of its latest articles
		var body strings.Builder
		fmt.Fprintf(&body, "<p>Latest news of host %d: %d stories.</p>", h.idx, len(h.articles))
		for _, l := range links {
			fmt.Fprintf(&body, `<p><a href="%s">story %s</a></p>`, l, html.EscapeString(l))
		}
		page(w, fmt.Sprintf("Front page %d", h.idx), body.String())
	case strings.HasPrefix(r.URL.Path, "/a/"):
		var id int
		if _, err := fmt.Sscanf(r.URL.Path, "/a/%d", &id); err != nil || id < 1 || id > len(h.articles) {
			http.NotFound(w, r)
			return
		}
		a := &h.articles[id-1]
		page(w, fmt.Sprintf("Story %d of host %d", id, h.idx), "<p>"+a.text()+"</p>")
	case strings.HasPrefix(r.URL.Path, "/s/"):
		var from, id int
		if _, err := fmt.Sscanf(r.URL.Path, "/s/%d/%d", &from, &id); err != nil || !h.hasCopy(from, id) {
			http.NotFound(w, r)
			return
		}
		// the original's text; another title (the syndicating site's)
		page(w, fmt.Sprintf("Syndicated: story %d", id), "<p>"+text(from, id)+"</p>")
	default:
		http.NotFound(w, r)
	}
}

func (h *Host) hasCopy(from, id int) bool {
	for _, c := range h.copies {
		if c.from == from && c.id == id {
			return true
		}
	}
	return false
}

func page(w http.ResponseWriter, title, body string) {
	fmt.Fprintf(w, "<!doctype html><html><head><title>%s</title></head><body><main><h1>%s</h1>%s</main></body></html>",
		html.EscapeString(title), html.EscapeString(title), body)
}
