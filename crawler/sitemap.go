package crawler

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"
)

// The sitemap protocol's limits (sitemaps.org), per file: a sitemap or
// sitemap index lists at most SitemapMaxURLs URLs and is at most
// SitemapMaxBytes uncompressed. They also bound what a crawl reads from
// one file, compressed or not (the decompression-bomb guard).
const (
	SitemapMaxURLs  = 50_000
	SitemapMaxBytes = 50 << 20
)

// SitemapEntry is one <url> of a sitemap, or one <sitemap> of an index.
type SitemapEntry struct {
	Loc     string    // <loc>, trimmed, as written
	LastMod time.Time // <lastmod> (zero when absent or unreadable)
	// NewsPublished and NewsTitle are a Google News sitemap's
	// <news:news><news:publication_date> and <news:title>.
	NewsPublished time.Time
	NewsTitle     string
}

// Sitemap is what ParseSitemap read from one file.
type Sitemap struct {
	// Index is true for a <sitemapindex>: Entries are sitemaps.
	Index   bool
	Entries []SitemapEntry
	// Limit is set when the file broke a protocol limit and was read only
	// up to it (the entries before it are kept): what was exceeded.
	Limit string
	// Gzip says the file was gzip-compressed.
	Gzip bool

	maxURLs int
}

// ErrSitemapFormat is wrapped by ParseSitemap's errors for a file that is
// neither a sitemap, a sitemap index nor a text sitemap.
var ErrSitemapFormat = errors.New("crawler: not a sitemap")

// ParseSitemap reads a sitemap: XML (<urlset> or <sitemapindex>, Google
// News fields read where present) or a text file of one URL per line,
// gzip-compressed or not (detected by its magic bytes). It reads at most
// SitemapMaxBytes of uncompressed data and SitemapMaxURLs entries; a file
// beyond either limit gives the entries before it and Sitemap.Limit says
// which limit. Malformed XML gives the entries read so far and an error
// naming the line.
func ParseSitemap(r io.Reader) (*Sitemap, error) {
	return parseSitemap(r, SitemapMaxBytes, SitemapMaxURLs)
}

// parseSitemap is ParseSitemap with the limits given.
func parseSitemap(r io.Reader, maxBytes int64, maxURLs int) (*Sitemap, error) {
	sm := &Sitemap{maxURLs: maxURLs}
	br := bufio.NewReader(io.LimitReader(r, maxBytes+1))
	if magic, _ := br.Peek(2); bytes.Equal(magic, []byte{0x1f, 0x8b}) {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return sm, fmt.Errorf("crawler: sitemap: gzip: %w", err)
		}
		sm.Gzip = true
		br = bufio.NewReader(zr)
	}
	lr := &limitedReader{r: br, n: maxBytes}
	in := bufio.NewReader(lr)
	first, err := firstNonSpace(in)
	if err != nil {
		return sm, fmt.Errorf("%w: empty file", ErrSitemapFormat)
	}
	if first == '<' {
		err = parseXMLSitemap(in, sm)
	} else {
		err = parseTextSitemap(in, sm)
	}
	if lr.over && sm.Limit == "" {
		sm.Limit = fmt.Sprintf("more than %d bytes uncompressed (the protocol's limit): read up to it", maxBytes)
		err = nil // cut by the limit: the error is the cut, already said
	}
	return sm, err
}

// limitedReader reads at most n bytes and remembers whether there was more.
type limitedReader struct {
	r    io.Reader
	n    int64
	over bool
}

func (l *limitedReader) Read(p []byte) (int, error) {
	if l.n <= 0 {
		var one [1]byte
		if k, _ := l.r.Read(one[:]); k > 0 {
			l.over = true
		}
		return 0, io.EOF
	}
	if int64(len(p)) > l.n {
		p = p[:l.n]
	}
	k, err := l.r.Read(p)
	l.n -= int64(k)
	return k, err
}

func firstNonSpace(r *bufio.Reader) (byte, error) {
	for {
		b, err := r.ReadByte()
		if err != nil {
			return 0, err
		}
		if b == 0xEF { // UTF-8 BOM
			r.ReadByte()
			r.ReadByte()
			continue
		}
		if b != ' ' && b != '\t' && b != '\r' && b != '\n' {
			r.UnreadByte()
			return b, nil
		}
	}
}

func (sm *Sitemap) add(e SitemapEntry) bool {
	if len(sm.Entries) >= sm.maxURLs {
		sm.Limit = fmt.Sprintf("more than %d URLs (the protocol's limit): the first %d read", sm.maxURLs, sm.maxURLs)
		return false
	}
	sm.Entries = append(sm.Entries, e)
	return true
}

func parseTextSitemap(r *bufio.Reader, sm *Sitemap) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4096), 64<<10)
	for sc.Scan() {
		if line := strings.TrimSpace(sc.Text()); line != "" && !sm.add(SitemapEntry{Loc: line}) {
			return nil
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("crawler: text sitemap: %w", err)
	}
	return nil
}

func parseXMLSitemap(r io.Reader, sm *Sitemap) error {
	dec := xml.NewDecoder(r)
	dec.Strict = false
	var (
		path  []string // local names of the open elements
		cur   SitemapEntry
		text  strings.Builder
		root  string
		inURL bool
	)
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			if root == "" {
				return fmt.Errorf("%w: no <urlset> or <sitemapindex> element", ErrSitemapFormat)
			}
			return nil
		}
		if err != nil {
			line, _ := dec.InputPos()
			return fmt.Errorf("crawler: sitemap XML, line %d: %w", line, err)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			name := strings.ToLower(t.Name.Local)
			if len(path) == 0 {
				switch name {
				case "urlset":
				case "sitemapindex":
					sm.Index = true
				default:
					return fmt.Errorf("%w: root element <%s>, want <urlset> or <sitemapindex>", ErrSitemapFormat, t.Name.Local)
				}
				root = name
			}
			path = append(path, name)
			text.Reset()
			if len(path) == 2 && (name == "url" || name == "sitemap") {
				inURL, cur = true, SitemapEntry{}
			}
		case xml.CharData:
			if inURL && text.Len() < 4096 {
				text.Write(t)
			}
		case xml.EndElement:
			if len(path) == 0 {
				continue
			}
			name := path[len(path)-1]
			path = path[:len(path)-1]
			if !inURL {
				continue
			}
			v := strings.TrimSpace(text.String())
			text.Reset()
			switch {
			case len(path) == 1: // the </url> or </sitemap>
				inURL = false
				if cur.Loc != "" && !sm.add(cur) {
					return nil
				}
			case name == "loc" && len(path) == 2:
				cur.Loc = v
			case name == "lastmod" && len(path) == 2:
				cur.LastMod = parseW3CTime(v)
			case name == "publication_date":
				cur.NewsPublished = parseW3CTime(v)
			case name == "title" && len(path) >= 3 && path[len(path)-1] == "news":
				cur.NewsTitle = v
			}
		}
	}
}

// parseW3CTime reads the W3C datetime forms sitemaps use ("2026-11-20",
// "2026-11-20T08:30Z", "2026-11-20T08:30:00+08:00", fractions of a
// second); the zero time when it is none of them.
func parseW3CTime(s string) time.Time {
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04Z07:00", "2006-01-02", "2006-01", "2006"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t.UTC()
		}
	}
	return time.Time{}
}
