package extracteval

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/url"
	"strings"

	"github.com/PuerkitoBio/goquery"
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"github.com/bloomcrawl/bloomcrawl/contentdedup"
	"github.com/bloomcrawl/bloomcrawl/crawler"
)

// syndication builds the near-duplicate set from pages and runs it through
// the contentdedup cascade (default options: SimHash threshold 3, sketches
// on), once on the baseline text and once on the new one:
//
//   - a syndicated copy of page i is the page of the next page j from
//     another site, with j's article container (the element with the most
//     paragraph text among its child <p>s) holding i's container's
//     children instead, and i's <title> and first <h1> in place of j's:
//     the pair (i, copy) should share a docId;
//   - the same composed page with j itself is a pair of different articles
//     under one template: they should not.
//
// Every pair goes through a fresh Deduper (the original first).
func syndication(ctx context.Context, w io.Writer, name string, pages []page, verbose bool) error {
	type variant struct {
		name string
		text func(b []byte, u *url.URL) (title, text string)
	}
	variants := []variant{
		{"baseline", func(b []byte, u *url.URL) (string, string) {
			d, err := crawler.Extract(b, "text/html", false, u)
			if err != nil {
				return "", ""
			}
			return d.Title, baselineText(b)
		}},
		{"new", func(b []byte, u *url.URL) (string, string) {
			d, err := crawler.Extract(b, "text/html", false, u)
			if err != nil {
				return "", ""
			}
			return d.Title, d.Text
		}},
	}
	type pair struct {
		a, b   []byte
		ua, ub *url.URL
	}
	var synd, diff []pair
	for i, p := range pages {
		var j int
		for k := 1; k < len(pages); k++ {
			j = (i + k) % len(pages)
			if site(pages[j].url) != site(p.url) {
				break
			}
		}
		composed, ok := compose(p.html, pages[j].html, p.body, pages[j].body)
		if !ok {
			continue
		}
		cu := *pages[j].url
		cu.Path = strings.TrimSuffix(cu.Path, "/") + "/syndicated/" + p.key[:min(12, len(p.key))]
		synd = append(synd, pair{p.html, composed, p.url, &cu})
		diff = append(diff, pair{pages[j].html, composed, pages[j].url, &cu})
	}
	fmt.Fprintf(w, "set %s near-duplicates: %d syndicated copies, %d different-article pairs under one template (contentdedup defaults)\n", name, len(synd), len(diff))
	for _, v := range variants {
		merged := func(ps []pair, want bool) (int, error) {
			n := 0
			for _, pr := range ps {
				if err := ctx.Err(); err != nil {
					return 0, err
				}
				d, err := contentdedup.New(contentdedup.Options{NoSimilar: true})
				if err != nil {
					return 0, err
				}
				ta, xa := v.text(pr.a, pr.ua)
				tb, xb := v.text(pr.b, pr.ub)
				va := d.Check(pr.ua.String(), ta, xa)
				vb := d.Check(pr.ub.String(), tb, xb)
				if va.DocID == vb.DocID {
					n++
				}
				if verbose && v.name == "new" && (va.DocID == vb.DocID) != want {
					fmt.Fprintf(w, "    %s merged=%v  %s (%d chars) ~ %s (%d chars): shingle Jaccard %.2f, %s\n", v.name, !want,
						pr.ua, len(xa), pr.ub.Host, len(xb), jaccard(xa, xb), vb.Reason)
				}
				d.Close()
			}
			return n, nil
		}
		ns, err := merged(synd, true)
		if err != nil {
			return err
		}
		nd, err := merged(diff, false)
		if err != nil {
			return err
		}
		fmt.Fprintf(w, "  %-9s syndicated copies merged %d/%d (%.3f)  different articles merged %d/%d\n",
			v.name, ns, len(synd), float64(ns)/float64(max(1, len(synd))), nd, len(diff))
	}
	return nil
}

// compose returns host's page with its article container's children
// replaced by those of article's container, and article's <title>. A
// page's container is the smallest element holding 90% of its labelled
// body's shingles (abody, hbody), else (no label, or no such element) the
// element whose child <p>s hold the most text: an article split over
// several blocks is carried whole.
func compose(article, host []byte, abody, hbody string) ([]byte, bool) {
	ad, err := html.Parse(bytes.NewReader(article))
	if err != nil {
		return nil, false
	}
	hd, err := html.Parse(bytes.NewReader(host))
	if err != nil {
		return nil, false
	}
	ac, hc := labelledContainer(ad, abody), labelledContainer(hd, hbody)
	if ac == nil || hc == nil {
		return nil, false
	}
	for c := hc.FirstChild; c != nil; {
		next := c.NextSibling
		hc.RemoveChild(c)
		c = next
	}
	for c := ac.FirstChild; c != nil; {
		next := c.NextSibling
		ac.RemoveChild(c)
		hc.AppendChild(c)
		c = next
	}
	// the article's <title> and headline replace the host's
	for _, a := range []atom.Atom{atom.Title, atom.H1} {
		at, ht := first(ad, a), first(hd, a)
		if at == nil || ht == nil {
			continue
		}
		for c := ht.FirstChild; c != nil; {
			next := c.NextSibling
			ht.RemoveChild(c)
			c = next
		}
		for c := at.FirstChild; c != nil; {
			next := c.NextSibling
			at.RemoveChild(c)
			ht.AppendChild(c)
			c = next
		}
	}
	var b bytes.Buffer
	if err := html.Render(&b, hd); err != nil {
		return nil, false
	}
	return b.Bytes(), true
}

// container is the element whose child <p>s hold the most text.
func container(root *html.Node) *html.Node {
	var best *html.Node
	bestN := 0
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode {
			sum := 0
			for c := n.FirstChild; c != nil; c = c.NextSibling {
				if c.Type == html.ElementNode && c.DataAtom == atom.P {
					sum += len(strings.TrimSpace(goquery.NewDocumentFromNode(c).Text()))
				}
			}
			if sum > bestN {
				best, bestN = n, sum
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(root)
	return best
}

func first(n *html.Node, a atom.Atom) *html.Node {
	if n.Type == html.ElementNode && n.DataAtom == a {
		return n
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if f := first(c, a); f != nil {
			return f
		}
	}
	return nil
}

// jaccard is the Jaccard similarity of a's and b's 4-token shingle sets.
func jaccard(a, b string) float64 {
	sa, sb := shingles(a), shingles(b)
	in := 0
	for k := range sa {
		if sb[k] > 0 {
			in++
		}
	}
	if u := len(sa) + len(sb) - in; u > 0 {
		return float64(in) / float64(u)
	}
	return 1
}

// labelledContainer is the smallest element under root whose text holds
// 90% of body's 4-token shingles, else container(root).
func labelledContainer(root *html.Node, body string) *html.Node {
	want := shingles(body)
	if len(want) == 0 {
		return container(root)
	}
	need := len(body) * 8 / 10 // a container's text is at least about this long
	var best *html.Node
	bestLen := 0
	var walk func(n *html.Node) int // returns the text length under n
	walk = func(n *html.Node) int {
		k := 0
		if n.Type == html.TextNode {
			return len(n.Data)
		}
		if n.Type == html.ElementNode && (n.DataAtom == atom.Script || n.DataAtom == atom.Style) {
			return 0
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			k += walk(c)
		}
		if n.Type == html.ElementNode && k >= need && (best == nil || k < bestLen) {
			got := shingles(spacedText(n))
			in := 0
			for sh := range want {
				if got[sh] > 0 {
					in++
				}
			}
			if 10*in >= 9*len(want) {
				best, bestLen = n, k
			}
		}
		return k
	}
	walk(root)
	if best == nil {
		return container(root)
	}
	return best
}

// spacedText is n's text, text nodes apart, without scripts and styles.
func spacedText(n *html.Node) string {
	var b strings.Builder
	var f func(*html.Node)
	f = func(n *html.Node) {
		if n.Type == html.TextNode {
			b.WriteString(n.Data)
			b.WriteByte(' ')
		}
		if n.Type == html.ElementNode && (n.DataAtom == atom.Script || n.DataAtom == atom.Style) {
			return
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			f(c)
		}
	}
	f(n)
	return b.String()
}
