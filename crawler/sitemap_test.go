package crawler

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"
)

const newsSitemap = `<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"
        xmlns:news="http://www.google.com/schemas/sitemap-news/0.9">
  <url><loc> http://e.com/a </loc><lastmod>2026-11-20</lastmod></url>
  <url>
    <loc>http://e.com/news/1?x=1&amp;y=2</loc>
    <lastmod>2026-11-21T08:30:00+08:00</lastmod>
    <news:news>
      <news:publication><news:name>E News</news:name><news:language>zh</news:language></news:publication>
      <news:publication_date>2026-11-21T08:00Z</news:publication_date>
      <news:title>布隆过滤器 &amp; crawlers</news:title>
    </news:news>
  </url>
  <url><lastmod>2026-01-01</lastmod></url>
</urlset>`

func gz(t testing.TB, b []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	w, _ := gzip.NewWriterLevel(&buf, gzip.BestSpeed)
	if _, err := w.Write(b); err != nil {
		t.Fatal(err)
	}
	w.Close()
	return buf.Bytes()
}

// TestParseSitemap: urlset with lastmod and Google News fields, an index,
// gzip, text sitemaps; the protocol's URL and size limits cut the file with
// a Limit record (the size limit also guards against decompression bombs);
// malformed input names what is wrong.
func TestParseSitemap(t *testing.T) {
	for _, compressed := range []bool{false, true} {
		in := []byte(newsSitemap)
		if compressed {
			in = gz(t, in)
		}
		sm, err := ParseSitemap(bytes.NewReader(in))
		if err != nil || sm.Index || sm.Gzip != compressed || sm.Limit != "" || len(sm.Entries) != 2 {
			t.Fatalf("gzip=%v: %+v, %v", compressed, sm, err)
		}
		a, n := sm.Entries[0], sm.Entries[1]
		if a.Loc != "http://e.com/a" || !a.LastMod.Equal(time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC)) || a.NewsTitle != "" {
			t.Errorf("entry 0: %+v", a)
		}
		if n.Loc != "http://e.com/news/1?x=1&y=2" || !n.LastMod.Equal(time.Date(2026, 11, 21, 0, 30, 0, 0, time.UTC)) ||
			!n.NewsPublished.Equal(time.Date(2026, 11, 21, 8, 0, 0, 0, time.UTC)) || n.NewsTitle != "布隆过滤器 & crawlers" {
			t.Errorf("entry 1: %+v", n)
		}
	}

	index := `<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
<sitemap><loc>http://e.com/s1.xml.gz</loc><lastmod>2026-11-22T10:00:00Z</lastmod></sitemap>
<sitemap><loc>http://e.com/s2.xml</loc></sitemap></sitemapindex>`
	sm, err := ParseSitemap(strings.NewReader(index))
	if err != nil || !sm.Index || len(sm.Entries) != 2 || sm.Entries[0].Loc != "http://e.com/s1.xml.gz" || sm.Entries[0].LastMod.IsZero() {
		t.Fatalf("index: %+v, %v", sm, err)
	}

	sm, err = ParseSitemap(bytes.NewReader(gz(t, []byte("\ufeffhttp://e.com/1\n\nhttp://e.com/2\r\n"))))
	if err != nil || len(sm.Entries) != 2 || sm.Entries[1].Loc != "http://e.com/2" {
		t.Fatalf("text sitemap: %+v, %v", sm, err)
	}

	// 50,001 URLs: the first 50,000 and a Limit record
	var big bytes.Buffer
	big.WriteString("<urlset>")
	for i := range SitemapMaxURLs + 1 {
		fmt.Fprintf(&big, "<url><loc>http://e.com/%d</loc></url>", i)
	}
	big.WriteString("</urlset>")
	sm, err = ParseSitemap(bytes.NewReader(gz(t, big.Bytes())))
	if err != nil || len(sm.Entries) != SitemapMaxURLs || !strings.Contains(sm.Limit, "more than 50000 URLs") {
		t.Fatalf("50,001 URLs: %d entries, limit %q, %v", len(sm.Entries), sm.Limit, err)
	}

	// a gzip bomb: 2 URLs, then 64 MiB of spaces (66 KB compressed): read
	// up to the size limit (1 MiB here, 50 MB in crawls), never more, with a
	// Limit record
	bomb := append([]byte("<urlset><url><loc>http://e.com/1</loc></url><url><loc>http://e.com/2</loc></url>"), bytes.Repeat([]byte(" "), 64<<20)...)
	zb := gz(t, bomb)
	cr := &countingReader{r: bytes.NewReader(zb)}
	sm, err = parseSitemap(cr, 1<<20, SitemapMaxURLs)
	if err != nil || len(sm.Entries) != 2 || !strings.Contains(sm.Limit, "bytes uncompressed") {
		t.Fatalf("bomb: %+v, %v", sm.Limit, err)
	}
	t.Logf("bomb: %d bytes compressed, %d read; limit %q", len(zb), cr.n, sm.Limit)

	for _, c := range []struct{ in, want string }{
		{"", "empty file"},
		{"<html><body>not found</body></html>", "root element <html>"},
		{"<urlset><url><loc>http://e.com/1</loc></url><url><loc>http://e.com/2", "sitemap XML, line 1"},
	} {
		sm, err := ParseSitemap(strings.NewReader(c.in))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: err = %v, want %q", c.in, err, c.want)
		}
		if c.want == "empty file" && !errors.Is(err, ErrSitemapFormat) {
			t.Errorf("%q: err does not wrap ErrSitemapFormat", c.in)
		}
		if strings.HasPrefix(c.want, "sitemap XML") && len(sm.Entries) != 1 {
			t.Errorf("truncated XML: %d entries kept, want the 1 complete one", len(sm.Entries))
		}
	}
}

type countingReader struct {
	r io.Reader
	n int
}

func (c *countingReader) Read(p []byte) (int, error) {
	k, err := c.r.Read(p)
	c.n += k
	return k, err
}
