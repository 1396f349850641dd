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
	TextBytes   int // visible text (outside script, style, template, noscript)
	ScriptBytes int // inline script
	Scripts     int // <script> elements (inline or not)
	Links       int // <a href>
}

// Needs reports whether the clue says the page needs a browser.
func (c Clue) Needs() bool { return c.Reason != "" }

var (
	appRootIDs = map[string]bool{"root": true, "app": true, "mount": true, "application": true, "__next": true,
		"__nuxt": true, "___gatsby": true, "react-root": true, "vue-app": true, "svelte": true, "q-app": true, "main-app": true, "spa-root": true}
	navName     = regexp.MustCompile(`(?i)(^|[-_ ])(nav|navigation|toc|menu|sidebar|links|chapters)([-_ ]|$)`)
	noscriptJS  = regexp.MustCompile(`(?i)(enable|activate|turn on|requires?|need)\s+(\S+\s+){0,3}javascript|javascript\s+(is\s+)?(required|disabled|must be enabled)|启用\s*javascript|开启\s*javascript`)
	loadMore    = regexp.MustCompile(`(?i)^\s*((load|show|view|see)\s+more|加载更多|查看更多|显示更多)\s*$`)
	hydrationID = map[string]bool{"__NEXT_DATA__": true, "__NUXT__": true, "__NUXT_DATA__": true, "__VUE__": true, "ng-state": true}
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

// Detect is the cheap check of a page's server HTML (one pass of the
// HTML tokenizer, no DOM): it reports the first clue that the page is
// built by scripts, after Browsertrix-crawler's client-side-rendering
// clues, kept to those that plain pages do not show: an empty app root
// (<div id=root|app|__next…></div>), a <noscript> asking for JavaScript, an
// empty navigation container (<nav>, or an element whose id or class
// says nav, toc, menu, sidebar) on a page with scripts, framework
// hydration data (__NEXT_DATA__, __NUXT__…) with little visible text, a
// "load more" button or a script that fetches more on scroll, a page
// with little text and few links whose scripts write links or content,
// and little visible text for the page's size with scripts. Async, defer
// or module scripts, bundler names and web components alone are not
// clues: documentation sites show them too.
func Detect(page []byte) Clue {
	c := Clue{HTMLBytes: len(page)}
	z := html.NewTokenizer(bytes.NewReader(page))
	var (
		skip       int // depth inside script/style/template/noscript/head-only elements
		inNoscript bool
		noscript   strings.Builder
		inScript   bool
		script     strings.Builder
		empties    []emptyCand // open candidates for an empty container
		found      string
		hydration  bool
		buttonText strings.Builder
		inButton   bool
		navEmpty   bool
	)
	setFound := func(r string) {
		if found == "" {
			found = r
		}
	}
	for {
		tt := z.Next()
		if tt == html.ErrorToken {
			break
		}
		switch tt {
		case html.StartTagToken, html.SelfClosingTagToken:
			name, hasAttr := z.TagName()
			a := atom.Lookup(name)
			var id, class, typ string
			var href bool
			for hasAttr {
				var k, v []byte
				k, v, hasAttr = z.TagAttr()
				switch string(k) {
				case "id":
					id = string(v)
				case "class":
					class = string(v)
				case "type":
					typ = string(v)
				case "href":
					href = true
				}
			}
			// any element opened inside a candidate makes it non-empty
			for i := range empties {
				empties[i].filled = true
			}
			switch a {
			case atom.Script:
				c.Scripts++
				if hydrationID[id] {
					hydration = true
				}
				if tt == html.StartTagToken && (typ == "" || strings.Contains(typ, "javascript") || typ == "module") {
					inScript = true
				}
				if tt == html.StartTagToken {
					skip++
				}
				continue
			case atom.Style, atom.Template:
				if tt == html.StartTagToken {
					skip++
				}
				continue
			case atom.Noscript:
				if tt == html.StartTagToken {
					inNoscript = true
					skip++
				}
				continue
			case atom.A:
				if href {
					c.Links++
				}
			case atom.Button:
				inButton = true
				buttonText.Reset()
			}
			if tt == html.StartTagToken {
				isRoot := a == atom.Div && appRootIDs[id]
				isNav := a == atom.Nav || (a == atom.Div || a == atom.Ul || a == atom.Ol || a == atom.Aside || a == atom.Section) && (navName.MatchString(id) || navName.MatchString(class))
				if isRoot || isNav {
					empties = append(empties, emptyCand{tag: string(name), root: isRoot})
				}
			}
		case html.EndTagToken:
			name, _ := z.TagName()
			a := atom.Lookup(name)
			switch a {
			case atom.Script:
				if inScript {
					inScript = false
				}
				skip = max(0, skip-1)
				continue
			case atom.Style, atom.Template:
				skip = max(0, skip-1)
				continue
			case atom.Noscript:
				inNoscript = false
				skip = max(0, skip-1)
				if noscriptJS.MatchString(noscript.String()) {
					setFound(ReasonNoscript)
				}
				noscript.Reset()
				continue
			case atom.Button:
				if inButton && loadMore.MatchString(buttonText.String()) {
					setFound(ReasonLoadMore)
				}
				inButton = false
			}
			if n := len(empties); n > 0 && empties[n-1].tag == string(name) {
				e := empties[n-1]
				empties = empties[:n-1]
				if !e.filled {
					if e.root {
						setFound(ReasonAppRoot)
					} else {
						navEmpty = true
					}
				}
			}
		case html.TextToken:
			t := z.Text()
			switch {
			case inScript:
				c.ScriptBytes += len(t)
				if script.Len() < 256<<10 {
					script.Write(t)
				}
			case inNoscript:
				noscript.Write(t)
			case skip == 0:
				if n := len(bytes.TrimSpace(t)); n > 0 {
					c.TextBytes += n
					for i := range empties {
						empties[i].filled = true
					}
					if inButton {
						buttonText.Write(t)
					}
				}
			}
		}
	}
	hasScript := c.Scripts > 0
	switch {
	case found != "":
	case navEmpty && hasScript:
		found = ReasonEmptyNav
	case hydration && c.TextBytes < fewText*5:
		found = ReasonHydration
	case hasScript && scrollFetch.MatchString(script.String()):
		found = ReasonLoadMore
	case hasScript && c.TextBytes < fewText && c.Links < fewLinks && scriptDOM.MatchString(script.String()):
		found = ReasonScriptLinks
	case hasScript && c.HTMLBytes >= littleTextMin && c.TextBytes*littleTextRatio < c.HTMLBytes:
		found = ReasonLittleText
	}
	c.Reason = found
	return c
}

// emptyCand is an element that is a clue when it closes empty.
type emptyCand struct {
	tag    string
	root   bool // an app root (else a navigation container)
	filled bool
}
