package extracteval

import (
	"strings"

	"github.com/PuerkitoBio/goquery"
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// baselineText is the crawler's main text before issue 34 (commit 7af057c):
// the one <main>/[role=main], else the one <article>, else <body>, without
// script, style, nav, header, footer, aside, forms and hidden elements.
func baselineText(page []byte) string {
	doc, err := goquery.NewDocumentFromReader(strings.NewReader(string(page)))
	if err != nil {
		return ""
	}
	var mains, articles []*html.Node
	var body *html.Node
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode {
			switch n.DataAtom {
			case atom.Article:
				articles = append(articles, n)
			case atom.Body:
				if body == nil {
					body = n
				}
			}
			if role := attrOf(n, "role"); n.DataAtom == atom.Main || role == "main" {
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
	roots := mains
	if len(roots) != 1 {
		switch {
		case len(articles) == 1:
			roots = articles
		case body != nil:
			roots = []*html.Node{body}
		default:
			roots = doc.Nodes
		}
	}
	var b strings.Builder
	var text func(n *html.Node)
	text = func(n *html.Node) {
		switch n.Type {
		case html.TextNode:
			b.WriteString(n.Data)
			return
		case html.ElementNode:
			if baselineBoilerplate(n) {
				return
			}
		case html.DocumentNode:
		default:
			return
		}
		b.WriteByte(' ')
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			text(c)
		}
		b.WriteByte('\n')
	}
	for _, r := range roots {
		text(r)
	}
	return strings.Join(strings.Fields(b.String()), " ")
}

func attrOf(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}

func baselineBoilerplate(n *html.Node) bool {
	switch n.DataAtom {
	case atom.Script, atom.Style, atom.Noscript, atom.Template, atom.Svg, atom.Iframe, atom.Object,
		atom.Nav, atom.Header, atom.Footer, atom.Aside, atom.Form, atom.Button, atom.Select:
		return true
	}
	for _, a := range n.Attr {
		switch a.Key {
		case "hidden":
			return true
		case "aria-hidden":
			if a.Val == "true" {
				return true
			}
		case "role":
			switch a.Val {
			case "navigation", "banner", "contentinfo", "search":
				return true
			}
		}
	}
	return false
}
