// Package synthsite generates a synthetic website of any size for the
// lab's scale and cluster benchmarks (`go run ./cmd/bloomcrawl-lab
// synthetic`, `cluster`) and for tests, with its exact ground truth: which
// pages exist, which are near-copies of which.
//
// A Site of N pages serves /p/0 … /p/{N-1} and an allow-all /robots.txt;
// every other path is 404. Page i has a title and about 250 words of text
// drawn from a vocabulary of 16,384 made-up six-letter words (no English
// stop words), and exactly 8 links: its two children in a binary tree
// (/p/{2i+1}, /p/{2i+2}, so every page is reachable from /p/0 within
// log2(N)+1 links) and pseudo-random pages for the rest (pointing back at
// the tree, as real sites do, so that most links are already seen). Every
// 10th page (i%10 == 9) is a near-copy of the page before it: the same
// text with one word replaced and the title with " | Print" appended.
//
// Pages are generated on request from (Seed, i) with a splitmix64 stream:
// nothing is held per page, so a 10M-page site costs no memory, and the
// same Site always serves the same bytes.
package synthsite

import (
	"bytes"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
)

// The shape of every Site.
const (
	// Words is the number of words of a page's text.
	Words = 250
	// Links is the number of links on every page.
	Links = 8
	// CopyEvery makes page i a near-copy of page i-1 when i%CopyEvery ==
	// CopyEvery-1.
	CopyEvery = 10
	// vocab is the number of distinct words.
	vocab = 1 << 14
)

// Site is a synthetic website: N pages generated from Seed. It is a value;
// its Handler is safe for concurrent use.
type Site struct {
	N    int
	Seed uint64
}

// New returns the site of n pages (n >= 1) generated from seed.
func New(n int, seed uint64) (Site, error) {
	if n < 1 {
		return Site{}, fmt.Errorf("synthsite: %d pages (want at least 1)", n)
	}
	return Site{N: n, Seed: seed}, nil
}

// Path returns the path of page i: /p/{i}.
func Path(i int) string { return "/p/" + strconv.Itoa(i) }

// SeedPath is the path the crawl starts from (page 0).
const SeedPath = "/p/0"

// PageIndex returns the page number of a URL or path of the site
// ("/p/17" or "http://127.0.0.1:8080/p/17" → 17), and false for anything
// else, including pages outside 0..N-1.
func (s Site) PageIndex(u string) (int, bool) {
	if strings.Contains(u, "://") {
		pu, err := url.Parse(u)
		if err != nil || pu.RawQuery != "" {
			return 0, false
		}
		u = pu.Path
	}
	rest, ok := strings.CutPrefix(u, "/p/")
	if !ok || rest == "" || (len(rest) > 1 && rest[0] == '0') {
		return 0, false
	}
	i, err := strconv.Atoi(rest)
	if err != nil || i < 0 || i >= s.N {
		return 0, false
	}
	return i, true
}

// NearCopyOf returns the page that page i is a near-copy of, and false
// when i is an original.
func NearCopyOf(i int) (int, bool) {
	if i%CopyEvery == CopyEvery-1 {
		return i - 1, true
	}
	return 0, false
}

// Originals returns how many of the site's pages are not near-copies: the
// number of distinct documents a crawl should store.
func (s Site) Originals() int { return s.N - s.NearCopies() }

// NearCopies returns how many of the site's pages are near-copies.
func (s Site) NearCopies() int { return s.N / CopyEvery }

// rng is a splitmix64 stream.
type rng uint64

func (r *rng) next() uint64 {
	*r += 0x9e3779b97f4a7c15
	z := uint64(*r)
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}

func (s Site) stream(i int, salt uint64) rng {
	r := rng(s.Seed ^ uint64(i)*0xd1342543de82ef95 ^ salt)
	r.next()
	return r
}

const consonants, vowels = "bdfgklmnprstvz", "aiou"

// word appends word w (0..vocab-1) of the vocabulary: three
// consonant-vowel syllables.
func word(dst []byte, w uint64) []byte {
	for k := 0; k < 3; k++ {
		syl := w % 56
		w /= 56
		dst = append(dst, consonants[syl/4], vowels[syl%4])
	}
	return dst
}

// words returns the word numbers of page i's text (before a near-copy's
// edit).
func (s Site) words(i int) []uint64 {
	r := s.stream(i, 0x7e57)
	ws := make([]uint64, Words)
	for k := range ws {
		ws[k] = r.next() % vocab
	}
	return ws
}

// Text returns the words of page i's text, space-separated (what a
// crawler's main-text extraction sees, less the sentence punctuation).
func (s Site) Text(i int) string {
	var b []byte
	for k, w := range s.pageWords(i) {
		if k > 0 {
			b = append(b, ' ')
		}
		b = word(b, w)
	}
	return string(b)
}

// pageWords returns page i's words: its own, or for a near-copy the words
// of the page before with one word replaced.
func (s Site) pageWords(i int) []uint64 {
	orig, copyOf := NearCopyOf(i)
	if !copyOf {
		return s.words(i)
	}
	ws := s.words(orig)
	r := s.stream(i, 0xed17)
	pos := r.next() % Words
	ws[pos] = (ws[pos] + 1 + r.next()%(vocab-1)) % vocab // a different word
	return ws
}

// Title returns page i's <title>.
func (s Site) Title(i int) string {
	orig, copyOf := NearCopyOf(i)
	if copyOf {
		return s.Title(orig) + " | Print"
	}
	r := s.stream(i, 0x717e)
	b := []byte("Page " + strconv.Itoa(i) + ": ")
	b = word(b, r.next()%vocab)
	b = append(b, ' ')
	b = word(b, r.next()%vocab)
	return string(b)
}

// LinksOf returns the page numbers page i links to, in order: always
// Links of them (repeats possible).
func (s Site) LinksOf(i int) []int {
	out := make([]int, 0, Links)
	for _, c := range []int{2*i + 1, 2*i + 2} {
		if c < s.N {
			out = append(out, c)
		}
	}
	r := s.stream(i, 0x1125)
	for len(out) < Links {
		out = append(out, int(r.next()%uint64(s.N)))
	}
	return out
}

// Distances returns every page's link distance from page 0 (the fewest
// links a crawl from SeedPath follows to reach it): a breadth-first
// search over LinksOf.
func (s Site) Distances() []int32 {
	dist := make([]int32, s.N)
	for i := range dist {
		dist[i] = -1
	}
	dist[0] = 0
	q := make([]int32, 1, s.N)
	for h := 0; h < len(q); h++ {
		for _, l := range s.LinksOf(int(q[h])) {
			if dist[l] < 0 {
				dist[l] = dist[q[h]] + 1
				q = append(q, int32(l))
			}
		}
	}
	return dist
}

var bufPool = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// WritePage writes page i's HTML to b.
func (s Site) WritePage(b *bytes.Buffer, i int) {
	title := s.Title(i)
	b.WriteString("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>")
	b.WriteString(title)
	b.WriteString("</title></head>\n<body><nav><ul>")
	for _, l := range s.LinksOf(i) {
		fmt.Fprintf(b, "<li><a href=\"%s\">page %d</a></li>", Path(l), l)
	}
	b.WriteString("</ul></nav>\n<main><h1>")
	b.WriteString(title)
	b.WriteString("</h1>\n<p>")
	var w []byte
	for k, x := range s.pageWords(i) {
		switch {
		case k == 0:
		case k%50 == 0:
			b.WriteString(".</p>\n<p>")
		case k%12 == 0:
			b.WriteString(". ")
		default:
			b.WriteByte(' ')
		}
		w = word(w[:0], x)
		b.Write(w)
	}
	b.WriteString(".</p></main>\n</body></html>\n")
}

// ServeHTTP serves the site: GET or HEAD /p/{i} and /robots.txt; 404
// otherwise.
func (s Site) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	if r.URL.Path == "/robots.txt" {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.Write([]byte("User-agent: *\nAllow: /\n"))
		return
	}
	i, ok := s.PageIndex(r.URL.Path)
	if !ok || r.URL.RawQuery != "" {
		http.NotFound(w, r)
		return
	}
	b := bufPool.Get().(*bytes.Buffer)
	b.Reset()
	s.WritePage(b, i)
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Content-Length", strconv.Itoa(b.Len()))
	w.Write(b.Bytes())
	bufPool.Put(b)
}
