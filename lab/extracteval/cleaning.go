package extracteval

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path"
	"regexp"
	"sort"
	"strings"
	"unicode/utf8"

	"golang.org/x/net/html"
	"golang.org/x/net/html/charset"
)

// The cleaning sets are the public boilerplate-removal collections as
// j-szulc/html-cleaning-dataset-merged gathers them: DIR/SET/input/KEY.html
// and DIR/SET/GoldStandard/KEY.txt, each set's gold in its own format. The
// gold is read as the Web Content Extraction Benchmark (Bevendorff et al.,
// SIGIR 2023, chatnoir-eu/web-content-extraction-benchmark) reads it.
type cleaningSet struct {
	name, dir string
	gold      func(b []byte) (body, rawURL string)
}

var cleaningSets = []cleaningSet{
	// Dragnet (Peters & Lecocq 2013): 1,382 news and blog pages; the gold
	// is the corrected article text, then a marker line and the comments,
	// which are left out (bloomcrawl keeps no comments).
	{"dragnet", "dragnet_data", dragnetGold},
	// L3S-GN1 (Kohlschütter et al. 2010): 621 Google News articles; the
	// gold is the page with spans classed x-nc-sel1 headline, 2 full text,
	// 3 supplemental (kept), 4 related, 5 comments (dropped).
	{"l3s-gn1", "page-signal-master", l3sGold},
	// CleanEval (Baroni et al. 2008), final test set: 681 pages of any
	// kind (not only articles); the gold is text marked <p>, <h>, <l>
	// after a URL line.
	{"cleaneval", "cleaneval-final", cleanEvalGold},
	// CleanPortalEval (Endrédy & Novák 2013): 71 pages of 4 news portals,
	// in CleanEval's format.
	{"cleanportaleval", "CleanPortalEval-master", cleanEvalGold},
	// Mozilla Readability's test pages: 116; the gold is Readability's
	// expected output, reviewed with each test.
	{"readability", "readability", htmlBodyGold},
}

// openCleaning returns the cleaning sets found under dir.
func openCleaning(dir string) ([]cleaningSet, error) {
	var found []cleaningSet
	for _, s := range cleaningSets {
		if st, err := os.Stat(path.Join(dir, s.dir, "GoldStandard")); err == nil && st.IsDir() {
			found = append(found, s)
		}
	}
	if len(found) == 0 {
		return nil, fmt.Errorf("extracteval: -clean %s: none of the sets (%s) is there as SET/input/ and SET/GoldStandard/", dir, cleaningDirs())
	}
	return found, nil
}

func cleaningDirs() string {
	var d []string
	for _, s := range cleaningSets {
		d = append(d, s.dir)
	}
	return strings.Join(d, ", ")
}

// loadCleaning reads one cleaning set: every gold file with its page.
func loadCleaning(fsys fs.FS, s cleaningSet) ([]page, error) {
	golds, err := fs.ReadDir(fsys, path.Join(s.dir, "GoldStandard"))
	if err != nil {
		return nil, fmt.Errorf("extracteval: %s: %w", s.name, err)
	}
	var pages []page
	for _, g := range golds {
		ext := path.Ext(g.Name())
		if g.IsDir() || (ext != ".txt" && ext != ".html") {
			continue
		}
		key := strings.TrimSuffix(g.Name(), ext)
		gb, err := fs.ReadFile(fsys, path.Join(s.dir, "GoldStandard", g.Name()))
		if err != nil {
			return nil, fmt.Errorf("extracteval: %s: %w", s.name, err)
		}
		hb, err := fs.ReadFile(fsys, path.Join(s.dir, "input", key+".html"))
		if errors.Is(err, fs.ErrNotExist) {
			continue // a gold file without its page (CleanEval has some)
		} else if err != nil {
			return nil, fmt.Errorf("extracteval: %s: %w", s.name, err)
		}
		body, raw := s.gold([]byte(toUTF8(gb)))
		u, err := url.Parse(raw)
		if raw == "" || err != nil || u.Host == "" {
			u = &url.URL{Scheme: "https", Host: strings.ToLower(s.name + "-" + key + ".invalid"), Path: "/"}
		}
		pages = append(pages, page{key: key, url: u, html: stripTextTag(hb), body: body})
	}
	sort.Slice(pages, func(i, j int) bool { return pages[i].key < pages[j].key })
	if len(pages) == 0 {
		return nil, fmt.Errorf("extracteval: %s: no page with its gold under %s", s.name, s.dir)
	}
	return pages, nil
}

// toUTF8 decodes a gold file: UTF-8 when it is, else by its <meta> or a
// guess (most are Windows-1252).
func toUTF8(b []byte) string {
	if utf8.Valid(b) {
		return string(b)
	}
	enc, _, _ := charset.DetermineEncoding(b, "text/plain")
	out, err := io.ReadAll(enc.NewDecoder().Reader(bytes.NewReader(b)))
	if err != nil {
		return string(b)
	}
	return string(out)
}

var commentsLine = regexp.MustCompile(`(?m)^\S*\*\(\)\s+COMMENTS\s*$`)

func dragnetGold(b []byte) (string, string) {
	s := string(b)
	if loc := commentsLine.FindStringIndex(s); loc != nil {
		s = s[:loc[0]]
	}
	return s, ""
}

var (
	urlLine   = regexp.MustCompile(`^\s*URL: (\S+)`)
	cleanMark = regexp.MustCompile(`(?i)<(p|h|l)>`)
)

// cleanEvalGold is the text of a CleanEval gold file: its URL line off,
// the <p>/<h>/<l> marks off, entities decoded.
func cleanEvalGold(b []byte) (string, string) {
	s := string(b)
	var raw string
	if m := urlLine.FindStringSubmatch(s); m != nil {
		raw = m[1]
		s = s[len(m[0]):]
	}
	s = cleanMark.ReplaceAllString(s, "\n")
	return html.UnescapeString(s), raw
}

// htmlBodyGold is the text of an HTML gold file.
func htmlBodyGold(b []byte) (string, string) {
	doc, err := html.Parse(bytes.NewReader(b))
	if err != nil {
		return "", ""
	}
	return spacedText(doc), ""
}

// l3sGold is the text of the leaf elements classed x-nc-sel1..3, a line
// break before each whose parent is a block (the benchmark's reading).
func l3sGold(b []byte) (string, string) {
	doc, err := html.Parse(bytes.NewReader(b))
	if err != nil {
		return "", ""
	}
	var out strings.Builder
	var f func(*html.Node)
	f = func(n *html.Node) {
		if n.Type == html.ElementNode {
			switch attrOf(n, "class") {
			case "x-nc-sel1", "x-nc-sel2", "x-nc-sel3":
				if c := n.FirstChild; c != nil && c.NextSibling == nil && c.Type == html.TextNode {
					if p := n.Parent; p != nil && p.Type == html.ElementNode && blockTags[p.Data] {
						out.WriteByte('\n')
					}
					out.WriteString(strings.TrimSpace(c.Data))
					out.WriteByte(' ')
				}
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			f(c)
		}
	}
	f(doc)
	return strings.TrimSpace(out.String()), ""
}

var blockTags = map[string]bool{}

func init() {
	for _, t := range strings.Fields("address article aside blockquote canvas dd div dl dt fieldset figcaption figure footer form h1 h2 h3 h4 h5 h6 header hr li main nav noscript ol p pre section table tfoot ul video") {
		blockTags[t] = true
	}
}

var textTag = regexp.MustCompile(`(?m)(?:\A\s*<text [^>]+>\s*|\s*</text>\s*\z)`)

// stripTextTag takes off the <text id=...> wrapper CleanEval's pages
// carry (the benchmark strips it too).
func stripTextTag(b []byte) []byte {
	if !bytes.Contains(b[:min(len(b), 2048)], []byte("<text ")) {
		return b
	}
	return textTag.ReplaceAll(b, nil)
}
