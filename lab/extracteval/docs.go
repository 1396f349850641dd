package extracteval

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"io/fs"
	"math"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/PuerkitoBio/goquery"
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// A shingle on at least repeatedShare of the pages of a directory, and on
// repeatedMin pages or more, is the site's template (menus, tables of
// contents, headers, footers): the reference for pages without a marked
// region leaves it out.
const (
	repeatedShare = 0.2
	repeatedMin   = 3
)

// docRecall measures, for every corpus directory under dir (or dir itself
// when it holds .html files directly and no subdirectories), the
// main-text recall of the crawler's extractor on the pages that mark a
// region: the shingle recall of the new text against the text of the
// page's one <main>/[role=main] (else its one <article>), with the
// elements the crawler always drops (script, style, nav, header, footer,
// aside, forms, hidden) left out of that reference. Pages without such a
// region are reported apart: the recall of the previous extractor's text
// (the body without those elements) less the text the site repeats (the
// shingles on a fifth of the pages of the page's directory, 3 or more: its
// menus, tables of contents, headers and footers), and of that text whole
// (a lower bound: it counts the template the new text drops). The list of
// worst pages uses the first for them.
func docRecall(ctx context.Context, w io.Writer, dir string, maxN, worst int) error {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return fmt.Errorf("extracteval: docs: %w", err)
	}
	var corpora []string
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), ".") {
			continue
		}
		if fi, err := os.Stat(filepath.Join(dir, e.Name())); err == nil && fi.IsDir() {
			corpora = append(corpora, filepath.Join(dir, e.Name()))
		}
	}
	if len(corpora) == 0 {
		corpora = []string{dir}
	}
	type low struct {
		path string
		r    float64
	}
	for _, root := range corpora {
		var files []string
		filepath.WalkDir(root+"/", func(p string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() && (strings.HasSuffix(p, ".html") || strings.HasSuffix(p, ".htm")) {
				files = append(files, p)
			}
			return nil
		})
		sort.Strings(files)
		if len(files) > maxN {
			// an even sample
			step := float64(len(files)) / float64(maxN)
			var s []string
			for i := 0; i < maxN; i++ {
				s = append(s, files[int(float64(i)*step)])
			}
			files = s
		}
		var sum, sumOld, sumRep float64
		n, withRegion, repPages := 0, 0, 0
		var lows []low
		// the previous extractor's text of every page, and in how many
		// pages of each directory (a manual, a language) each shingle
		// occurs: the text a site repeats is its template
		type docPage struct {
			path, region string
			html         []byte
			old          map[string]int
		}
		var dps []docPage
		df := map[string]map[string]int{}
		dirPages := map[string]int{}
		for _, p := range files {
			if err := ctx.Err(); err != nil {
				return err
			}
			b, err := os.ReadFile(p)
			if err != nil {
				continue
			}
			dp := docPage{path: p, html: b, region: regionText(b)}
			if strings.TrimSpace(dp.region) == "" {
				dp.old = shingles(baselineText(b))
			}
			dir := filepath.Dir(p)
			dirPages[dir]++
			if df[dir] == nil {
				df[dir] = map[string]int{}
			}
			seen := dp.old
			if seen == nil {
				seen = shingles(baselineText(b))
			}
			for k := range seen {
				df[dir][k]++
			}
			dps = append(dps, dp)
		}
		for _, dp := range dps {
			n++
			u := &url.URL{Scheme: "http", Host: "127.0.0.1", Path: "/" + filepath.ToSlash(dp.path)}
			got := newText(page{url: u, html: dp.html})
			if dp.old != nil {
				// no marked region: recall against the previous extractor's
				// text (the body without its template elements), and against
				// that text less the shingles repeated on the directory's
				// pages (its menus, tables of contents, headers and footers)
				dir := filepath.Dir(dp.path)
				r, rr := recallLessRepeated(dp.old, shingles(got), df[dir], repeatedAt(dirPages[dir]))
				sumOld += r
				sumRep += rr
				repPages++
				lows = append(lows, low{dp.path, rr})
				continue
			}
			withRegion++
			s := match(dp.region, got)
			r := s.recall()
			sum += r
			lows = append(lows, low{dp.path, r})
		}
		mean := 0.0
		if withRegion > 0 {
			mean = sum / float64(withRegion)
		}
		meanOld, meanRep := 0.0, 0.0
		if repPages > 0 {
			meanOld = sumOld / float64(repPages)
			meanRep = sumRep / float64(repPages)
		}
		fmt.Fprintf(w, "docs %s: %d pages; %d with a marked region: mean main-text recall %.4f; %d without: mean recall of the previous extractor's text less the site's repeated text %.4f (of its whole text %.4f)\n",
			filepath.Base(root), n, withRegion, mean, n-withRegion, meanRep, meanOld)
		sort.Slice(lows, func(i, j int) bool { return lows[i].r < lows[j].r })
		for i := 0; i < worst && i < len(lows) && lows[i].r < 0.98; i++ {
			fmt.Fprintf(w, "    recall %.3f  %s\n", lows[i].r, lows[i].path)
		}
	}
	return nil
}

// repeatedAt is the number of a directory's n pages a shingle must be on
// to be the site's template.
func repeatedAt(n int) int {
	return max(repeatedMin, int(math.Ceil(repeatedShare*float64(n))))
}

// recallLessRepeated returns the shingle recall of got against ref, and
// against ref less the shingles df (pages per shingle) has on at least
// min pages (1 when nothing is left to find).
func recallLessRepeated(ref, got, df map[string]int, min int) (whole, less float64) {
	var tp, all, rtp, rall int
	for k, c := range ref {
		m := c
		if got[k] < m {
			m = got[k]
		}
		tp += m
		all += c
		if df[k] < min {
			rtp += m
			rall += c
		}
	}
	whole, less = 1, 1
	if all > 0 {
		whole = float64(tp) / float64(all)
	}
	if rall > 0 {
		less = float64(rtp) / float64(rall)
	}
	return whole, less
}

// regionText is the text of the page's one <main>/[role=main], else its one
// <article>, without the elements the crawler always drops; "" when there
// is none.
func regionText(b []byte) string {
	doc, err := goquery.NewDocumentFromReader(bytes.NewReader(b))
	if err != nil {
		return ""
	}
	var mains, articles []*html.Node
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode {
			if n.DataAtom == atom.Article {
				articles = append(articles, n)
			}
			if n.DataAtom == atom.Main || attrOf(n, "role") == "main" {
				mains = append(mains, n)
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	for _, n := range doc.Nodes {
		walk(n)
	}
	var root *html.Node
	switch {
	case len(mains) == 1:
		root = mains[0]
	case len(articles) == 1:
		root = articles[0]
	default:
		return ""
	}
	var sb strings.Builder
	var text func(n *html.Node)
	text = func(n *html.Node) {
		if n.Type == html.TextNode {
			sb.WriteString(n.Data)
			return
		}
		if n.Type == html.ElementNode && baselineBoilerplate(n) {
			return
		}
		sb.WriteByte(' ')
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			text(c)
		}
		sb.WriteByte(' ')
	}
	text(root)
	return sb.String()
}

// showDoc prints a documentation page's new text, the reference its
// recall is measured against (as docRecall measures it: the marked
// region, else the previous extractor's text less the shingles repeated on
// a fifth of the pages of its directory) and the reference text the new
// text misses, as runs of words.
func showDoc(w io.Writer, path string) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("extracteval: -show: %w", err)
	}
	u := &url.URL{Scheme: "http", Host: "127.0.0.1", Path: "/" + filepath.ToSlash(path)}
	got := newText(page{url: u, html: b})
	ref := regionText(b)
	var repeated map[string]bool // shingles left out of the reference
	if strings.TrimSpace(ref) != "" {
		fmt.Fprintf(w, "%s\nmarked region: main-text recall %.3f\n", path, match(ref, got).recall())
	} else {
		ref = baselineText(b)
		df, pages, err := dirShingles(filepath.Dir(path))
		if err != nil {
			return err
		}
		at := repeatedAt(pages)
		whole, less := recallLessRepeated(shingles(ref), shingles(got), df, at)
		fmt.Fprintf(w, "%s\nno marked region: recall of the previous extractor's text less the site's repeated text %.3f (of its whole text %.3f; %d pages in the directory, repeated = on %d or more)\n",
			path, less, whole, pages, at)
		repeated = map[string]bool{}
		for k, n := range df {
			if n >= at {
				repeated[k] = true
			}
		}
	}
	fmt.Fprintf(w, "--- new text\n%s\n--- reference text the new text misses\n", got)
	for _, run := range missedRuns(ref, shingles(got), repeated) {
		fmt.Fprintf(w, "%s\n", run)
	}
	return nil
}

// dirShingles counts, for the .html pages of dir, on how many pages each
// shingle of the previous extractor's text occurs.
func dirShingles(dir string) (map[string]int, int, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, 0, fmt.Errorf("extracteval: -show: %w", err)
	}
	df := map[string]int{}
	n := 0
	for _, e := range ents {
		if e.IsDir() || !(strings.HasSuffix(e.Name(), ".html") || strings.HasSuffix(e.Name(), ".htm")) {
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			continue
		}
		n++
		for k := range shingles(baselineText(b)) {
			df[k]++
		}
	}
	return df, n, nil
}

// missedRuns returns the runs of ref's tokens covered by a shingle that
// got lacks (more times in ref than in got) and that is not in skip.
func missedRuns(ref string, got map[string]int, skip map[string]bool) []string {
	t := tokens(ref)
	const n = 4
	missed := make([]bool, len(t))
	used := map[string]int{}
	for i := 0; i+n <= len(t); i++ {
		key := ""
		for k := i; k < i+n; k++ {
			key += t[k] + "\x00"
		}
		used[key]++
		if skip[key] || used[key] <= got[key] {
			continue
		}
		for k := i; k < i+n; k++ {
			missed[k] = true
		}
	}
	var runs []string
	for i := 0; i < len(t); {
		if !missed[i] {
			i++
			continue
		}
		j := i
		for j < len(t) && missed[j] {
			j++
		}
		runs = append(runs, strings.Join(t[i:j], " "))
		i = j
	}
	return runs
}
