package render

import (
	"bytes"
	"regexp"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// Reasons a page is rendered (Decision.Reason) or a clue Detect found.
const (
	ReasonAlways      = "always"       // fetch.render: always
	ReasonRule        = "rule"         // a fetch.render_rules entry
	ReasonHost        = "host"         // the host's pages all needed it (learned)
	ReasonAppRoot     = "app-root"     // an empty app root (<div id="root"></div>)
	ReasonNoscript    = "noscript"     // a <noscript> asking for JavaScript
	ReasonEmptyNav    = "empty-nav"    // an empty navigation container, with scripts
	ReasonHydration   = "hydration"    // framework hydration data and little text
	ReasonLittleText  = "little-text"  // little visible text for the page's size, with scripts
	ReasonLoadMore    = "load-more"    // a "load more" button, or a script loading more on scroll
	ReasonScriptLinks = "script-links" // a script writes links or content, and the page has few
)

// Clue is what Detect found: the reason a page needs a browser ("" for
// none) and the figures it judged by.
type Clue struct {
	Reason      string
	HTMLBytes   int // the page's size
	TextBytes   int // visible text: the text nodes outside head, script, style, template, noscript that are not blank
	ScriptBytes int // inline script
	Scripts     int // <script> elements (inline or not)
	Links       int // <a href>
}

// Needs reports whether the clue says the page needs a browser.
func (c Clue) Needs() bool { return c.Reason != "" }

var (
	appRootIDs = map[string]bool{"root": true, "app": true, "mount": true, "application": true, "__next": true,
		"__nuxt": true, "___gatsby": true, "react-root": true, "vue-app": true, "svelte": true, "q-app": true, "main-app": true, "spa-root": true}
	noscriptJS     = regexp.MustCompile(`(?i)(enable|activate|turn on|requires?|need)\s+(\S+\s+){0,3}javascript|javascript\s+(is\s+)?(required|disabled|must be enabled)|启用\s*javascript|开启\s*javascript`)
	noscriptSearch = regexp.MustCompile(`(?i)\bsearch|搜索`)
	loadMore       = regexp.MustCompile(`(?i)^\s*((load|show|view|see)\s+more|加载更多|查看更多|显示更多)\s*$`)
	hydrationID    = map[string]bool{"__NEXT_DATA__": true, "__NUXT__": true, "__NUXT_DATA__": true, "__VUE__": true, "ng-state": true}
	// a script that listens for scrolling and fetches: infinite scroll
	scrollFetch = regexp.MustCompile(`(?s)addEventListener\(\s*['"]scroll['"].*(fetch\(|XMLHttpRequest)|IntersectionObserver.*(fetch\(|XMLHttpRequest)`)
	// a script that builds the page's links or content
	scriptDOM = regexp.MustCompile(`createElement\(\s*['"]a['"]\s*\)|\.href\s*=|\.innerHTML\s*=|insertAdjacentHTML|document\.write\(`)
)

// Thresholds of Detect.
const (
	// littleTextRatio: visible text under 1/littleTextRatio of a page of at
	// least littleTextMin bytes, with scripts, is "little text".
	littleTextRatio = 50
	littleTextMin   = 4 << 10
	// a page with less visible text than fewText and fewer links than
	// fewLinks is a candidate for the script clues
	fewText  = 200
	fewLinks = 3
)

// Detect is the cheap check of a page's server HTML: it parses page and
// calls DetectNode. A caller that has parsed the page already (the
// crawler) calls DetectNode on its tree instead.
func Detect(page []byte) Clue {
	root, err := html.Parse(bytes.NewReader(page))
	if err != nil {
		return Clue{HTMLBytes: len(page)}
	}
	return DetectNode(root, len(page))
}

// DetectNode is the cheap check of a page's parsed server HTML (root, of
// size bytes): one walk of the tree, reporting the first clue that the
// page is built by scripts, after Browsertrix-crawler's
// client-side-rendering clues, kept to those that plain pages do not
// show: an empty app root (<div id=root|app|__next…></div>), a <noscript>
// asking for JavaScript (not for a site search), an empty navigation container (<nav>, or an
// element whose id or class says nav, toc, menu, sidebar) on a page with
// scripts, framework hydration data (__NEXT_DATA__, __NUXT__…) with little
// visible text, a "load more" button or a script that fetches more on
// scroll, a page with little text and few links whose scripts write links
// or content, and little visible text for the page's size with scripts.
// Async, defer or module scripts, bundler names and web components alone
// are not clues: documentation sites show them too.
func DetectNode(root *html.Node, size int) Clue {
	w := walker{c: Clue{HTMLBytes: size}}
	w.walk(root)
	c := w.c
	hasScript := c.Scripts > 0
	found := w.found
	switch {
	case found != "":
	case w.navEmpty && hasScript:
		found = ReasonEmptyNav
	case w.hydration && c.TextBytes < fewText*5:
		found = ReasonHydration
	case hasScript && w.scriptMatches(scrollFetch, "scroll", "IntersectionObserver"):
		found = ReasonLoadMore
	case hasScript && c.TextBytes < fewText && c.Links < fewLinks && w.scriptMatches(scriptDOM, ""):
		found = ReasonScriptLinks
	case hasScript && c.HTMLBytes >= littleTextMin && c.TextBytes*littleTextRatio < c.HTMLBytes:
		found = ReasonLittleText
	}
	c.Reason = found
	return c
}

// walker is one walk of DetectNode.
type walker struct {
	c         Clue
	found     string
	navEmpty  bool
	hydration bool
	scripts   []string // inline scripts' text
}

// scriptMatches reports whether an inline script that contains one of
// the substrings (all scripts when "") matches re.
func (w *walker) scriptMatches(re *regexp.Regexp, subs ...string) bool {
	for _, s := range w.scripts {
		for _, sub := range subs {
			if (sub == "" || strings.Contains(s, sub)) && re.MatchString(s) {
				return true
			}
		}
	}
	return false
}

func (w *walker) setFound(r string) {
	if w.found == "" {
		w.found = r
	}
}

// walk visits n and its subtree.
func (w *walker) walk(n *html.Node) {
	switch n.Type {
	case html.TextNode:
		if !blank(n.Data) {
			w.c.TextBytes += len(n.Data)
		}
		return
	case html.ElementNode:
		switch n.DataAtom {
		case atom.Script:
			w.c.Scripts++
			id, typ := attrOf(n, "id"), attrOf(n, "type")
			if hydrationID[id] {
				w.hydration = true
			}
			if typ == "" || strings.Contains(typ, "javascript") || typ == "module" {
				for c := n.FirstChild; c != nil; c = c.NextSibling {
					if c.Type == html.TextNode {
						w.c.ScriptBytes += len(c.Data)
						w.scripts = append(w.scripts, c.Data)
					}
				}
			}
			return
		case atom.Style, atom.Template, atom.Head:
			if n.DataAtom == atom.Head {
				for c := n.FirstChild; c != nil; c = c.NextSibling {
					if c.Type == html.ElementNode && c.DataAtom == atom.Script {
						w.walk(c)
					}
				}
			}
			return
		case atom.Noscript:
			// (JavaScript asked for a site search is not for the content:
			// a search page renders nothing without a query)
			if t := textOf(n); noscriptJS.MatchString(t) && !noscriptSearch.MatchString(t) {
				w.setFound(ReasonNoscript)
			}
			return
		case atom.A:
			if _, ok := attrOK(n, "href"); ok {
				w.c.Links++
			}
		case atom.Button:
			if loadMore.MatchString(textOf(n)) {
				w.setFound(ReasonLoadMore)
			}
		case atom.Div:
			if appRootIDs[attrOf(n, "id")] && empty(n) {
				w.setFound(ReasonAppRoot)
			}
		}
		if !w.navEmpty && isNavContainer(n) && empty(n) {
			w.navEmpty = true
		}
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		w.walk(c)
	}
}

// isNavContainer reports whether n is a <nav>, or a list, div, aside or
// section whose id or class says navigation.
func isNavContainer(n *html.Node) bool {
	switch n.DataAtom {
	case atom.Nav:
		return true
	case atom.Div, atom.Ul, atom.Ol, atom.Aside, atom.Section:
		for _, a := range n.Attr {
			if (a.Key == "id" || a.Key == "class") && a.Namespace == "" && navWords(a.Val) {
				return true
			}
		}
	}
	return false
}

// blank reports whether s is only ASCII white space (it stops at the
// first other byte: text nodes rarely start with much space).
func blank(s string) bool {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case ' ', '\t', '\n', '\r', '\f':
		default:
			return false
		}
	}
	return true
}

// navWords reports whether v (an id or class list) has a word (split at
// spaces, '-' and '_') that names navigation.
func navWords(v string) bool {
	for len(v) > 0 {
		i := strings.IndexAny(v, " -_\t\n")
		w := v
		if i >= 0 {
			w, v = v[:i], v[i+1:]
		} else {
			v = ""
		}
		if len(w) >= 3 && len(w) <= 10 && navWord[strings.ToLower(w)] {
			return true
		}
	}
	return false
}

var navWord = map[string]bool{"nav": true, "navigation": true, "toc": true, "menu": true, "sidebar": true, "links": true, "chapters": true}

// empty reports whether n has no element children (scripts aside) and
// no text but white space.
func empty(n *html.Node) bool {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		switch c.Type {
		case html.ElementNode:
			if c.DataAtom != atom.Script {
				return false
			}
		case html.TextNode:
			if !blank(c.Data) {
				return false
			}
		}
	}
	return true
}

// textOf returns the text under n (up to 4 KiB).
func textOf(n *html.Node) string {
	var b strings.Builder
	var f func(*html.Node)
	f = func(n *html.Node) {
		for c := n.FirstChild; c != nil && b.Len() < 4096; c = c.NextSibling {
			if c.Type == html.TextNode {
				b.WriteString(c.Data)
			}
			f(c)
		}
	}
	f(n)
	return b.String()
}

func attrOf(n *html.Node, key string) string {
	v, _ := attrOK(n, key)
	return v
}

func attrOK(n *html.Node, key string) (string, bool) {
	for _, a := range n.Attr {
		if a.Namespace == "" && a.Key == key {
			return a.Val, true
		}
	}
	return "", false
}
