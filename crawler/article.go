package crawler

import (
	"bytes"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// This file chooses and cleans the page's main content: the region an
// author marked as the main one (<main>, [role=main], a single <article>)
// or, when there is none, the block that a readability-style score over
// paragraphs picks (text length, commas, link density, class and id
// hints), with its siblings that score alike. Inside that region it drops
// what isBoilerplate drops and the blocks whose class or id name a widget
// (comments, share, related, cookie, newsletter, ads…) or that are mostly
// links. Both the main text and the Markdown rendering walk what it keeps.

// stat is one element's text, measured once.
type stat struct {
	chars     int // characters of text, whitespace excluded
	linkChars int // of which inside <a>
	commas    int
	score     float64
	psum      float64 // the paragraph scores of the whole subtree
}

// content is the chosen main region of a page and the verdicts about its
// elements.
type content struct {
	roots      []*html.Node // in document order
	stats      map[*html.Node]*stat
	drop       map[*html.Node]bool
	explicit   bool         // the region is one the page marked (<main>, <article>)
	regionLD   float64      // the marked region's link density
	slab       []stat       // backing store of stats
	buf        []byte       // lowerText's
	whole      bool         // the roots are the whole body: only isBoilerplate drops
	rootChars  int          // the text of the roots
	headlines  []*html.Node // <h1>s dropped from the text that Markdown keeps
	declared   bool         // the page says it is an article (og:type, JSON-LD)
	bestBlocks []*html.Node // the best-scoring blocks (best), whatever the region
	widgetPsum float64      // the paragraph score of the widgets best passed over (comments…)
}

// agrees reports whether the region the page marked is the content the
// scores found: it holds the best block, or it lies inside the best
// blocks and has half their text.
func (c *content) agrees(marked *html.Node, best []*html.Node) bool {
	total := 0
	for _, b := range best {
		if isAncestor(marked, b) {
			return true
		}
		total += c.textOf(b)
	}
	for _, b := range best {
		if isAncestor(b, marked) {
			return 2*c.textOf(marked) >= total
		}
	}
	return false
}

// narrow reports whether the best blocks, strictly inside the marked
// region, are its article and the rest of it the site's: captions, teasers,
// bylines, whose paragraphs score under a fifth of the article's.
func (c *content) narrow(marked *html.Node, best []*html.Node) bool {
	var in float64
	for _, b := range best {
		if b == marked || !isAncestor(marked, b) {
			return false
		}
		in += c.stats[b].psum
	}
	return c.stats[marked].psum-in < narrowShare*in
}

const narrowShare = 0.35

const articleBodyMin = 250

// description returns the sibling before the article body ab that the
// page marks as the article's description (schema.org microdata
// itemprop=description: its standfirst, as TYPO3's news pages write it),
// or nil.
func description(ab *html.Node) *html.Node {
	for x := ab.PrevSibling; x != nil; x = x.PrevSibling {
		if x.Type != html.ElementNode {
			continue
		}
		if ip, ok := attr(x, "itemprop"); ok && hasToken(ip, "description") {
			return x
		}
	}
	return nil
}

// repeats reports whether the description d is the opening of the body
// ab cut short ("Good morning! This is the news you need to..."): the
// body says it already.
func repeats(d, ab *html.Node) bool {
	t := strings.TrimRight(collapse(nodeTextCheap(d)), ".… ")
	return strings.HasPrefix(collapse(nodeTextCheap(ab)), t)
}

// articlesIn counts the <article> elements inside n (teaser cards, when a
// <main> holds several).
func articlesIn(sc *scan, n *html.Node) int {
	k := 0
	for _, a := range sc.articles {
		if a != n && isAncestor(n, a) {
			k++
		}
	}
	return k
}

// declaresArticle reports whether the page says it is an article:
// og:type article, or a JSON-LD Article.
func declaresArticle(sc *scan) bool {
	for _, n := range sc.props {
		if p, _ := attr(n, "property"); p == "og:type" {
			if v, _ := attr(n, "content"); strings.EqualFold(strings.TrimSpace(v), "article") {
				return true
			}
		}
	}
	return len(sc.ldjson) > 0 && ldArticle(sc) != nil
}

// dominant reports whether the best blocks hold most of the page's
// paragraph score: an article, not one block among many.
func (c *content) dominant(top *html.Node, best []*html.Node) bool {
	return c.mostProse(top, c.sum(best).psum) && linkDensity(c.stats[top]) < 0.5
}

// sum is the best blocks' stats added up.
func (c *content) sum(best []*html.Node) stat {
	var s stat
	for _, b := range best {
		bs := c.stats[b]
		s.chars += bs.chars
		s.linkChars += bs.linkChars
		s.psum += bs.psum
	}
	return s
}

// mostProse reports whether the paragraph score in holds most of the
// page's (dominantMin at least, dominantShare of all but the widgets
// best passed over).
func (c *content) mostProse(top *html.Node, in float64) bool {
	return in >= dominantMin && in >= dominantShare*(c.stats[top].psum-c.widgetPsum)
}

// leads reports whether the best blocks, on a page whose text is mostly
// links (the menus and headline columns of a news site's template around
// its story), hold most of the page's paragraph score and leadMin
// characters or more, yet not all of it: the side columns have teasers
// of their own. A manual's chapter page puts all its prose in one block
// beside a table of contents that is nearly all links, and its index a
// short introduction before the links that are its content; both keep
// the whole body.
func (c *content) leads(top *html.Node, best []*html.Node) bool {
	bs := c.sum(best)
	in := bs.psum
	all, ld := c.stats[top].psum, linkDensity(c.stats[top])
	if bs.chars < leadMin || in < dominantMin || in >= leadShare*all || ld >= leadLD || besideTOC(best[0]) {
		return false
	}
	// most of the prose; or less, on a page of a news site's template
	// (a quarter of its text or more in links) where the rest is teasers
	// and the best blocks are prose, not the sections of a manual's
	// chapter (whose pages have few links)
	return in >= dominantShare*(all-c.widgetPsum) || ld >= leadTemplateLD && linkDensity(&bs) < 0.5
}

// besideTOC reports whether b has a sibling its class or id names a table
// of contents (DocBook's div.toc, Sphinx's toctree-wrapper): b is a
// manual's title page or introduction, and the contents are the page's.
func besideTOC(b *html.Node) bool {
	if b.Parent == nil {
		return false
	}
	for x := b.Parent.FirstChild; x != nil; x = x.NextSibling {
		if x != b && x.Type == html.ElementNode && namesWords(x, tocWords) {
			return true
		}
	}
	return false
}

var tocWords = set("toc", "toctree")

const (
	leadMin   = 400
	leadShare = 0.97
	leadLD    = 0.8
	// leadTemplateLD is the link density of a page from which a story
	// with a smaller share of its prose still stands for it
	leadTemplateLD = 0.25
	// storyMin is the text of a block on such a page that is a story
	// (not a fragment of one: a manual page's paragraph among its
	// sections)
	storyMin = 600
)

const (
	dominantMin   = 5.0
	dominantShare = 0.5
)

// article reports whether the region is an article's: one the scores
// found, or a marked region on a page that declares itself an article (not
// a docs page's <main>, whose link lists are content).
func (c *content) article() bool { return !c.explicit || c.declared && !c.whole }

// isAncestor reports whether n is a or one of its descendants.
func isAncestor(a, n *html.Node) bool {
	for ; n != nil; n = n.Parent {
		if n == a {
			return true
		}
	}
	return false
}

// chooseContent picks the page's main region (see the file comment).
func chooseContent(sc *scan, fallback []*html.Node) *content {
	c := &content{stats: make(map[*html.Node]*stat, 256), drop: make(map[*html.Node]bool)}
	unwrapPageWrappers(sc)
	top := sc.body
	if top == nil {
		if len(fallback) == 0 {
			return c
		}
		top = fallback[0]
	}
	c.measure(top, false)
	best := c.best(top)
	c.bestBlocks = best
	var marked *html.Node
	switch {
	case len(sc.mains) == 1:
		marked = sc.mains[0]
	case len(sc.articles) > 0:
		// the one <article>, or the one holding most of the articles' text
		// (a story among teaser cards), an <article> its name says is
		// the comments' left out
		var sum int
		var big *html.Node
		for _, a := range sc.articles {
			if hint(a) < 0 {
				continue
			}
			sum += c.textOf(a)
			if big == nil || c.textOf(a) > c.textOf(big) {
				big = a
			}
		}
		if big != nil && 2*c.textOf(big) > sum {
			marked = big
		}
	}
	c.roots = best
	if marked == nil && !c.dominant(top, best) && !declaresArticle(sc) && !postBody(top) && !c.inPost(best, top) && !c.leadsPost(top, best) {
		// no article stands out (a docs page, an index): the whole body,
		// as before, less the template and the widgets; but a page whose
		// <body> says it shows one post, or a short blog post among a
		// blog's side columns, is still the post
		c.roots = nil
		if c.leads(top, best) {
			// a story among the columns of a page of links: its block,
			// pruned as a region the page marked is (the links in it
			// stay)
			c.roots, c.explicit = best, true
		}
	}
	if marked != nil && c.textOf(marked) > 0 && (len(best) == 0 || c.agrees(marked, best)) {
		c.roots, c.explicit = []*html.Node{marked}, true
		c.regionLD = linkDensity(c.stats[marked])
		if (marked.DataAtom == atom.Article || articlesIn(sc, marked) >= 3) && c.narrow(marked, best) {
			c.roots, c.explicit = best, false
		}
	}
	if ab := sc.articleBody; ab != nil && c.textOf(ab) >= articleBodyMin && !c.skip(ab) && !c.partOfBest(ab, best) {
		// the page marks its article's body (schema.org articleBody)
		c.roots, c.explicit, c.regionLD = []*html.Node{ab}, false, 0
		if d := description(ab); d != nil && c.textOf(d) > 0 && !c.skip(d) && !repeats(d, ab) {
			c.roots = []*html.Node{d, ab}
		}
	}
	if len(c.roots) == 0 {
		// no article stands out (a docs page, an index, a page without
		// paragraphs): the whole body less its template, as before
		c.roots, c.explicit, c.regionLD, c.whole = []*html.Node{top}, true, 1, true
	}
	for _, r := range c.roots {
		c.rootChars += c.textOf(r)
	}
	c.declared = declaresArticle(sc)
	for _, r := range c.roots {
		c.prune(r, true)
	}
	return c
}

// inPost reports whether the first best block is, lies inside or wraps
// an element its class or id names a blog post or story (hAtom's hentry,
// WordPress's post-123, TypePad's entry, Blogger's post-body…).
func (c *content) inPost(best []*html.Node, top *html.Node) bool {
	if len(best) == 0 || linkDensity(c.stats[best[0]]) >= 0.5 {
		return false // a post's feed links ("Subscribe to: Post Comments")
	}
	for x := best[0]; x != nil && x != top; x = x.Parent {
		if x.Type == html.ElementNode && hint(x) >= 0 && namesPost(x) {
			return true
		}
	}
	// the best block may stand for the post it wraps (a wrapper the
	// post fills): look down the children that hold most of its text
	for x := best[0]; x != nil; {
		var next *html.Node
		for ch := x.FirstChild; ch != nil; ch = ch.NextSibling {
			if ch.Type == html.ElementNode && c.textOf(ch) > 0 && float64(c.textOf(ch)) >= 0.85*float64(c.textOf(x)) {
				next = ch
				break
			}
		}
		if next != nil && hint(next) >= 0 && namesPost(next) {
			return true
		}
		x = next
	}
	return false
}

// leadsPost reports whether the best blocks are a blog post's on a page
// of link columns: they hold most of its paragraph score, as dominant
// asks, but at most postText of its text (the rest is blogrolls,
// archives, tag clouds: dominant asks for a page of little link text, as
// a docs page's navigation would be), and they hold an element named a
// post.
func (c *content) leadsPost(top *html.Node, best []*html.Node) bool {
	if len(best) == 0 {
		return false
	}
	bs := c.sum(best)
	if !c.mostProse(top, bs.psum) || float64(bs.chars) > postText*float64(c.textOf(top)) {
		return false
	}
	return c.holdsPost(best[0], 0)
}

// postText is the most of the page's text a blog post's best blocks hold
// among its link columns.
const postText = 0.6

// postBody reports whether the <body> b's class says the page shows one
// blog post or story, as og:type article would: WordPress's single-post
// and postid-123, Drupal's node-type-blog (-post, -story, -article,
// -news), a permalink page.
func postBody(b *html.Node) bool {
	v, _ := attr(b, "class")
	for _, f := range strings.Fields(v) {
		f = strings.ToLower(f)
		if f == "single-post" || f == "permalink" || strings.HasPrefix(f, "postid-") {
			return true
		}
		if t, ok := strings.CutPrefix(f, "node-type-"); ok && (strings.Contains(t, "blog") || strings.Contains(t, "post") || strings.Contains(t, "story") || strings.Contains(t, "article") || strings.Contains(t, "news")) {
			return true
		}
	}
	return false
}

// holdsPost reports whether n holds, a few levels down, an element named
// a post (namesPost) with half its text or more.
func (c *content) holdsPost(n *html.Node, depth int) bool {
	for ch := n.FirstChild; ch != nil; ch = ch.NextSibling {
		if ch.Type != html.ElementNode || isInline(ch.DataAtom) || c.textOf(ch) == 0 || hint(ch) < 0 {
			continue
		}
		if namesPost(ch) && 2*c.textOf(ch) >= c.textOf(n) {
			return true
		}
		if depth < 4 && c.holdsPost(ch, depth+1) {
			return true
		}
	}
	return false
}

// postWords name a blog post or a story in class and id names.
var postWords = set("hentry", "post", "posts", "entry", "entries", "story", "blogpost", "article")

// namesPost reports whether n's class or id names a blog post or story.
func namesPost(n *html.Node) bool { return namesCamelWords(n, postWords) }

// partOfBest reports whether the element the page marks as its article's
// body is one paragraph lying inside the best blocks with less than half
// their text: the page marked one paragraph of it (the New York Times of
// 2012 wrote itemprop="articleBody" on the opening <p> only). A marked
// element of several paragraphs is the body, however much the blocks
// around it hold (a syndicated story in another site's template).
func (c *content) partOfBest(ab *html.Node, best []*html.Node) bool {
	if ab.DataAtom != atom.P && c.holdsBlock(ab) {
		return false
	}
	in, total := false, 0
	for _, b := range best {
		if b != ab && isAncestor(b, ab) {
			in = true
		}
		total += c.textOf(b)
	}
	return in && 2*c.textOf(ab) < total
}

// pageHeaderMin is the text a <header> must hold, outside links, to be taken
// for the page's wrapper rather than its header.
const pageHeaderMin = 500

// unwrapPageWrappers turns into a <div> each <header> left open over the
// rest of the page (the parser nests the content in it): it holds
// pageHeaderMin characters of text outside links or more, and at least as
// much as the rest of the body. A site's header stays boilerplate. (A
// <form> that wraps the page, ASP.NET's, needs no such turn: skip keeps
// any form of 500 characters or more.)
func unwrapPageWrappers(sc *scan) {
	if len(sc.wrappers) == 0 || sc.body == nil {
		return
	}
	rest := -1
	for _, f := range sc.wrappers {
		k := 0
		for x := f.FirstChild; x != nil; x = x.NextSibling {
			a, links := textChars(x, false)
			k += a - links // a site header's menu is links, not the page
		}
		if k < pageHeaderMin {
			continue // most headers: a logo, a menu; the body is not read
		}
		if rest < 0 {
			all, links := textChars(sc.body, false) // headers count zero
			rest = all - links
		}
		if k >= rest {
			f.DataAtom, f.Data = atom.Div, "div"
			rest += k
		}
	}
}

func (c *content) textOf(n *html.Node) int {
	if s := c.stats[n]; s != nil {
		return s.chars
	}
	return 0
}

// measure fills stats for n's subtree (boilerplate elements count zero) and
// adds the paragraph scores to the ancestors, readability's way: a
// paragraph's score to its parent, half to its grandparent.
func (c *content) measure(n *html.Node, inLink bool) stat {
	var s stat
	if n.Type == html.ElementNode && isBoilerplate(n) && n.DataAtom != atom.Form {
		return s
	}
	if isLink(n) {
		inLink = true
	}
	blocks := false
	// runs of text and inline elements between the blocks of an element
	// that holds blocks are paragraphs too (readability wraps them in <p>)
	var run stat
	var runs float64
	flush := func() {
		if run.chars >= 25 {
			runs += paraScore(&run)
		}
		run = stat{}
	}
	for ch := n.FirstChild; ch != nil; ch = ch.NextSibling {
		switch ch.Type {
		case html.TextNode:
			k, commas := countChars(ch.Data)
			s.chars += k
			s.commas += commas
			run.chars += k
			run.commas += commas
			if inLink {
				s.linkChars += k
				run.linkChars += k
			}
		case html.ElementNode:
			if holdsBlocks(ch.DataAtom) {
				blocks = true
				flush()
			} else if ch.DataAtom == atom.Br {
				flush()
			}
			cs := c.measure(ch, inLink)
			s.chars += cs.chars
			s.linkChars += cs.linkChars
			s.commas += cs.commas
			s.psum += cs.psum
			if !holdsBlocks(ch.DataAtom) && cs.psum == 0 {
				run.chars += cs.chars
				run.linkChars += cs.linkChars
				run.commas += cs.commas
			}
		}
	}
	if n.Type == html.ElementNode && (isParagraph(n.DataAtom) || n.DataAtom == atom.Div && !blocks) && s.chars >= 25 {
		// (a <div> of text and <br>s is a paragraph, as readability
		// takes it)
		p := paraScore(&s)
		s.psum += p
		if par := n.Parent; par != nil {
			c.stat(par).score += p
			if gp := par.Parent; gp != nil {
				c.stat(gp).score += p / 2
			}
		}
	} else if blocks && n.Type == html.ElementNode && !isParagraph(n.DataAtom) {
		if flush(); runs > 0 {
			s.psum += runs
			c.stat(n).score += runs
			if par := n.Parent; par != nil {
				c.stat(par).score += runs / 2
			}
		}
	}
	if n.Type != html.ElementNode || !isInline(n.DataAtom) || n.DataAtom == atom.Td || n.DataAtom == atom.Th {
		// inline elements are judged with their block: not kept
		st := c.stat(n)
		st.chars, st.linkChars, st.commas, st.psum = s.chars, s.linkChars, s.commas, s.psum
		s.score = st.score
	}
	return s
}

// paraScore is a paragraph's readability score: 1, its commas, up to 3 for
// its length, times one minus its link density.
func paraScore(s *stat) float64 {
	p := 1 + float64(s.commas) + min(float64(s.chars)/100, 3)
	return p * (1 - float64(s.linkChars)/float64(s.chars))
}

func (c *content) stat(n *html.Node) *stat {
	s := c.stats[n]
	if s == nil {
		if len(c.slab) == cap(c.slab) {
			c.slab = make([]stat, 0, 256)
		}
		c.slab = append(c.slab, stat{})
		s = &c.slab[len(c.slab)-1]
		c.stats[n] = s
	}
	return s
}

// best returns the highest-scoring element under top and its siblings
// that score alike (readability's candidate and its sibling rule).
func (c *content) best(top *html.Node) []*html.Node {
	var cand *html.Node
	var bestScore float64
	var visit func(n *html.Node, neg bool)
	whole := c.textOf(top)
	var teasers map[*html.Node]bool // sections after a "You may also like" heading
	visit = func(n *html.Node, neg bool) {
		// (a table cell is looked into: a layout table of the 2000s holds
		// the story in a cell of a cell)
		if n.Type != html.ElementNode || c.skip(n) || teasers[n] {
			return
		}
		if isInline(n.DataAtom) && n.DataAtom != atom.Td && n.DataAtom != atom.Th {
			// an inline element is no candidate, but one that wraps
			// blocks (a CMS's <span> around the page) is looked through
			if wrapsBlocks(n) {
				for ch := n.FirstChild; ch != nil; ch = ch.NextSibling {
					visit(ch, neg)
				}
			}
			return
		}
		h := hint(n)
		// a widget's subtree holds no candidate, unless the "widget" is a
		// wrapper of most of the page ("has-sidebar" layouts); a comment
		// section never does, however long the discussion
		if h < 0 && (2*c.textOf(n) < whole || namesComments(n) || namesConsent(n)) {
			if !neg && c.stats[n] != nil {
				c.widgetPsum += c.stats[n].psum
			}
			neg = true
		}
		if s := c.stats[n]; s != nil && s.score > 0 && !neg {
			sc := s.score * (1 - linkDensity(s)) * (1 + 0.25*float64(h))
			if sc > bestScore && !c.opensWithCut(n) {
				cand, bestScore = n, sc
			}
		}
		for ch := n.FirstChild; ch != nil; ch = ch.NextSibling {
			visit(ch, neg)
		}
	}
	c.widgetPsum = 0
	visit(top, false)
	for range 3 {
		// a candidate that follows a heading such as "Related posts"
		// among its siblings (or its ancestors' siblings) is a teaser:
		// look again without that section
		cut := c.teaserCut(cand, top)
		if cut == nil {
			break
		}
		if teasers == nil {
			teasers = map[*html.Node]bool{}
		}
		for x := cut.NextSibling; x != nil; x = x.NextSibling {
			teasers[x] = true
		}
		cand, bestScore, c.widgetPsum = nil, 0, 0
		visit(top, false)
	}
	if cand == nil {
		return nil
	}
	// a candidate that holds most of its parent's text stands for the parent
	// (or less of it, when the rest is prose too: a manual's next sections,
	// the text around a list; not for a story's block on a news template's
	// page, where the rest is its comments and teasers)
	template := linkDensity(c.stats[top]) >= leadTemplateLD && !isList(cand.DataAtom) && c.textOf(cand) >= storyMin
	for cand.Parent != nil && cand.Parent != top && cand.Parent.Type == html.ElementNode {
		ps := c.stats[cand.Parent]
		cs := c.stats[cand]
		prose := ps != nil && cs != nil && ps.psum >= 1.2*cs.psum && linkDensity(ps) < 0.2 && !template
		if ps == nil || isInline(cand.Parent.DataAtom) && !cell(cand.Parent.DataAtom) ||
			(float64(c.textOf(cand)) < 0.85*float64(ps.chars) && !prose) || hint(cand.Parent) < 0 {
			break // (an inline wrapper best looked through holds no text of its own)
		}
		cand = cand.Parent
	}
	threshold := max(10, bestScore*0.2)
	for {
		par := cand.Parent
		if par == nil {
			return []*html.Node{cand}
		}
		roots := c.siblings(cand, threshold)
		// the block and its like siblings that are nearly all of their
		// parent are the parent's text: the parent is the block, and its
		// own siblings are looked at (a DocBook subsection's list and
		// paragraphs, then the next subsections)
		if par == top || par.Type != html.ElementNode || hint(par) < 0 || len(roots) < 2 || c.textOf(par) == 0 {
			return roots
		}
		k := 0
		for _, r := range roots {
			k += c.textOf(r)
		}
		if float64(k) < coverShare*float64(c.textOf(par)) {
			return roots
		}
		cand = par
	}
}

// coverShare is the share of its parent's text the best block and its
// siblings must hold to stand for the parent.
const coverShare = 0.9

// siblings returns cand and those of its siblings that are the same
// text's: blocks scoring threshold or more, prose paragraphs, blocks of
// cand's kind, the table of contents of the page's sections.
func (c *content) siblings(cand *html.Node, threshold float64) []*html.Node {
	var roots []*html.Node
	for sib := cand.Parent.FirstChild; sib != nil; sib = sib.NextSibling {
		if sib == cand {
			roots = append(roots, sib)
			continue
		}
		if sib.Type != html.ElementNode || c.skip(sib) || hint(sib) < 0 {
			continue
		}
		s := c.stats[sib]
		if s == nil || s.chars == 0 {
			continue
		}
		ld := linkDensity(s)
		// a <div> of text without blocks, or of one <p>, is a paragraph
		// (DocBook's div.para, Asciidoctor's div.paragraph)
		para := isParagraph(sib.DataAtom) || sib.DataAtom == atom.Div && (!c.holdsBlock(sib) || onlyP(sib))
		switch {
		case s.score*(1-ld) >= threshold:
			roots = append(roots, sib)
		case para && s.chars > 80 && ld < 0.25:
			roots = append(roots, sib)
		case para && ld == 0 && strings.Contains(nodeTextCheap(sib), "."):
			roots = append(roots, sib)
		case s.psum > 0 && ld < sameKindLD && sameKind(sib, cand):
			// the next section of a chapter (DocBook's div.section
			// after div.section): the best block's kind, and prose
			roots = append(roots, sib)
		case ld > 0.5 && inPageTOC(sib):
			// the table of contents of the sections kept
			roots = append(roots, sib)
		}
	}
	return roots
}

// isList reports whether a is a list's element.
func isList(a atom.Atom) bool { return a == atom.Ul || a == atom.Ol || a == atom.Dl }

// wrapsBlocks reports whether the inline element n holds a block, itself
// or inside inline elements of its own.
func wrapsBlocks(n *html.Node) bool {
	for x := n.FirstChild; x != nil; x = x.NextSibling {
		if x.Type == html.ElementNode && (holdsBlocks(x.DataAtom) || isInline(x.DataAtom) && wrapsBlocks(x)) {
			return true
		}
	}
	return false
}

// onlyP reports whether n's one element child is a <p>.
func onlyP(n *html.Node) bool {
	var p *html.Node
	for x := n.FirstChild; x != nil; x = x.NextSibling {
		if x.Type == html.ElementNode {
			if p != nil || x.DataAtom != atom.P {
				return false
			}
			p = x
		}
	}
	return p != nil
}

// sameKindLD is the link density under which a sibling of the best
// block's tag and class is the same text's next part.
const sameKindLD = 0.25

// sameKind reports whether a and b are elements of one tag and one
// non-empty class (readability's sibling bonus for the candidate's class).
func sameKind(a, b *html.Node) bool {
	if a.DataAtom != b.DataAtom {
		return false
	}
	ca, _ := attr(a, "class")
	cb, _ := attr(b, "class")
	return ca != "" && ca == cb
}

// teaserCut returns the heading such as "You may also like" that comes
// before n or one of its ancestors (top excluded) among its siblings, or
// nil: what follows it is the site's teaser section.
func (c *content) teaserCut(n, top *html.Node) *html.Node {
	if n == nil {
		return nil
	}
	for x := n; x != nil && x != top; x = x.Parent {
		for sib := x.PrevSibling; sib != nil; sib = sib.PrevSibling {
			if sib.Type == html.ElementNode && c.isCut(sib) {
				return sib
			}
		}
	}
	return nil
}

// opensWithCut reports whether n's first block is a heading such as "You
// may also like": n is the site's teaser section, not the article.
func (c *content) opensWithCut(n *html.Node) bool {
	for ch := n.FirstChild; ch != nil; ch = ch.NextSibling {
		switch ch.Type {
		case html.TextNode:
			if strings.TrimSpace(ch.Data) != "" {
				return false
			}
		case html.ElementNode:
			if c.skip(ch) {
				continue
			}
			return c.isCut(ch)
		}
	}
	return false
}

// prune marks the elements under n left out of the main content.
func (c *content) prune(n *html.Node, root bool) {
	for ch := n.FirstChild; ch != nil; ch = ch.NextSibling {
		if ch.Type != html.ElementNode {
			continue
		}
		if isInline(ch.DataAtom) && ch.DataAtom != atom.Td && ch.DataAtom != atom.Th {
			// inline elements stay with their block (the writers still
			// leave out scripts and the like inside them)
			if hiddenByStyle(ch) || !c.whole && c.inlineMeta(ch) {
				c.drop[ch] = true
			} else if !c.whole && c.holdsBlock(ch) {
				// a <span> or <font> that wraps blocks (the parser
				// keeps a <div> inside one): its blocks are judged
				// as a <div>'s would be
				c.prune(ch, false)
			}
			continue
		}
		if ch.DataAtom == atom.Header && !c.skip(ch) {
			c.pruneHeader(ch)
			continue
		}
		if c.dropped(ch) {
			c.drop[ch] = true
			// a heading named as a widget's title ("widget-title") that
			// opens "More in…" still cuts what follows; a bare "Related"
			// label does not
			if c.whole || hint(ch) >= 0 || c.skip(ch) || hiddenByStyle(ch) || !c.isCut(ch) {
				continue
			}
		}
		if c.isCut(ch) {
			// "Related stories", "More from…": the rest of this block is
			// the site's, not the article's
			rest := 0
			links := 0
			for x := ch; x != nil; x = x.NextSibling {
				if s := c.stats[x]; s != nil {
					rest += s.chars
					links += s.linkChars
				}
			}
			heading := ch.DataAtom == atom.H2 || ch.DataAtom == atom.H3 || ch.DataAtom == atom.H4 || ch.DataAtom == atom.H5 || ch.DataAtom == atom.H6
			if rest < 300 || 4*links >= rest || heading && c.article() {
				// up to the article's next paragraph, if it goes on (a
				// "Read also" box in the middle of a story)
				resume := c.resumes(ch)
				for x := ch; x != resume; x = x.NextSibling {
					if x.Type == html.ElementNode {
						c.drop[x] = true
					}
				}
				if resume == nil {
					return
				}
				ch = resume.PrevSibling
				continue
			}
		}
		switch ch.DataAtom {
		case atom.P, atom.Pre, atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6:
			continue // kept whole
		}
		if s := c.stats[ch]; s != nil && linkDensity(s) > 0.5 && inPageTOC(ch) {
			continue // the page's table of contents, kept whole
		}
		c.prune(ch, false)
	}
}

// pruneHeader marks what an article's own <header> (inside an <article>
// or <main>) leaves out: all but its standfirst, the paragraphs and
// subheadings of 2×headerMin characters or more, or headerMin and ending
// as a sentence does, not mostly links (the headline goes as dropped
// says); its dates, bylines, labels, photos and widget titles go.
// (The header counts in no score, as the page's header does not: measure
// leaves it out.)
func (c *content) pruneHeader(h *html.Node) {
	for x := h.FirstChild; x != nil; x = x.NextSibling {
		if x.Type != html.ElementNode {
			continue
		}
		if x.DataAtom == atom.H1 {
			if c.dropped(x) {
				c.drop[x] = true
			}
			continue
		}
		h, media := hints(x)
		if isInline(x.DataAtom) || isBoilerplate(x) || h < 0 || media || x.DataAtom == atom.Figure || x.DataAtom == atom.Figcaption {
			c.drop[x] = true
			continue
		}
		leaf := false
		switch x.DataAtom {
		case atom.P, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6, atom.Blockquote:
			leaf = true
		default:
			leaf = !c.holdsBlock(x) // a <div> of text: a paragraph
		}
		if !leaf {
			c.pruneHeader(x)
			continue
		}
		k, links := textChars(x, false)
		if k < headerMin || 2*links >= k || k < 2*headerMin && !sentence(bytes.TrimSpace(c.lowerText(x))) {
			c.drop[x] = true
		}
	}
}

const headerMin = 50

// textChars counts the characters of n's text other than whitespace,
// boilerplate left out, and of them those inside links (inLink: n is in
// one).
func textChars(n *html.Node, inLink bool) (k, links int) {
	if n.Type == html.TextNode {
		k, _ = countChars(n.Data)
		if inLink {
			links = k
		}
		return k, links
	}
	if n.Type == html.ElementNode && isBoilerplate(n) {
		return 0, 0
	}
	inLink = inLink || isLink(n)
	for x := n.FirstChild; x != nil; x = x.NextSibling {
		a, b := textChars(x, inLink)
		k += a
		links += b
	}
	return k, links
}

// isLink reports whether n is a link: an <a href>. An <a id>/<a name>
// is an anchor; XHTML pages served as HTML write it <a id="x"/>, which
// the HTML parser leaves open, so that it wraps the rest of the section
// (DocBook's headings), and it is not link text.
func isLink(n *html.Node) bool {
	if n.DataAtom != atom.A {
		return false
	}
	_, ok := attr(n, "href")
	return ok
}

// holdsBlock reports whether n has a child that makes it more than a
// paragraph.
func (c *content) holdsBlock(n *html.Node) bool {
	for x := n.FirstChild; x != nil; x = x.NextSibling {
		if x.Type == html.ElementNode && holdsBlocks(x.DataAtom) {
			return true
		}
	}
	return false
}

// resumes returns the first <p> after the cut heading cut, past a block of
// something else, that is prose again: proseMin characters or more, few of
// them in links, ending as a sentence; nil when there is none.
func (c *content) resumes(cut *html.Node) *html.Node {
	between := false
	for x := cut.NextSibling; x != nil; x = x.NextSibling {
		if x.Type != html.ElementNode {
			continue
		}
		s := c.stats[x]
		if x.DataAtom == atom.P && between && s != nil && s.chars >= proseMin && linkDensity(s) < 0.2 && sentence(bytes.TrimSpace(c.lowerText(x))) {
			return x
		}
		if s != nil && s.chars > 0 {
			between = true
		}
	}
	return nil
}

const proseMin = 100

// inlineMeta reports whether the inline element n (a <span>, <time>…, not
// a link) is a byline, dateline or photo credit of its own.
func (c *content) inlineMeta(n *html.Node) bool {
	switch n.DataAtom {
	case atom.Span, atom.Time, atom.Small, atom.Em, atom.I, atom.B, atom.Strong:
	case atom.A:
	default:
		return false
	}
	k := 0
	for x := n.FirstChild; x != nil; x = x.NextSibling {
		if x.Type == html.TextNode {
			k += len(x.Data)
		} else if x.Type == html.ElementNode && x.FirstChild != nil && x.FirstChild.Type == html.TextNode {
			k += len(x.FirstChild.Data)
		}
	}
	if n.DataAtom == atom.A {
		// a link standing alone that is a widget's label ("Back to top",
		// "Zurück nach oben", "View comments"); a label opens with a word
		// (a docs page's "3.1. Using…" entries do not)
		if k == 0 || k > 60 || !standsAlone(n) || !labelFirst(n) {
			return false
		}
		t := c.lowerText(n)
		return len(t) <= 30 && len(leadWord(t)) > 0 && (boilerLine.Match(t) || boilerLineIntl.Match(t) || viewComments.Match(t))
	}
	if k < 6 || k > 160 {
		return false
	}
	t := c.lowerText(n)
	return len(t) <= 100 && (metaFirst[string(firstWord(t))] && metaLine.Match(t) || creditLine.Match(t)) ||
		len(t) <= 60 && standsAlone(n) && dateLine(t)
}

// adLabels are the words that mark an advertisement or a sponsored
// text, in English, German, French, Spanish, Polish and Dutch.
var adLabels = []string{"advertisement", "advertorial", "sponsored", "anzeige", "werbung", "publicité", "publicidad", "reklama", "advertentie"}

// adLabel reports whether the short lowercased line t opens with an ad
// label set off by punctuation ("- Anzeige -", "*Werbung. Dieser Beitrag
// enthält Werbung für…", "Anzeige, enthält Affiliate Links"): the site's
// disclosure, not the article (a heading "Werbung im Internet" is not
// one).
func adLabel(t []byte) bool {
	t = bytes.TrimLeft(t, "-–*([ ")
	for _, w := range adLabels {
		if bytes.HasPrefix(t, []byte(w)) {
			rest := bytes.TrimLeft(t[len(w):], " ")
			return len(rest) > 0 && strings.IndexByte("-:,.*!)]|", rest[0]) >= 0 || bytes.HasPrefix(rest, []byte("–")) || bytes.HasPrefix(rest, []byte("—"))
		}
	}
	return false
}

// labelFirst reports whether the first word of n's text opens a label
// of boilerLine, boilerLineIntl or viewComments (a cheap test before
// lowerText).
func labelFirst(n *html.Node) bool {
	t := firstText(n)
	var buf [24]byte
	w := buf[:0]
	for i := 0; i < len(t) && len(w) < len(buf); i++ {
		c := t[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c < utf8.RuneSelf && !('a' <= c && c <= 'z') {
			break
		}
		w = append(w, c)
	}
	lw := string(leadWord(w))
	return lw != "" && (boilerLine.first[lw] || boilerLineIntl.first[lw] || viewComments.first[lw])
}

// firstText is the first text under n that is not whitespace, its
// leading whitespace trimmed.
func firstText(n *html.Node) string {
	for x := n.FirstChild; x != nil; x = x.NextSibling {
		switch x.Type {
		case html.TextNode:
			if t := strings.TrimLeftFunc(x.Data, unicode.IsSpace); t != "" {
				return t
			}
		case html.ElementNode:
			if t := firstText(x); t != "" {
				return t
			}
		}
	}
	return ""
}

// viewComments matches a link to a page's comments ("View comments",
// "Vos réactions").
var viewComments = intlPhrases(`^((view|show|read|see) (all )?(\d+ )?comments|(vos|les) r[ée]actions)$`,
	"view", "show", "read", "see", "vos", "les")

// standsAlone reports whether the inline element n is not part of a
// sentence: no text beside it in its parent.
func standsAlone(n *html.Node) bool {
	for x := n.Parent.FirstChild; x != nil; x = x.NextSibling {
		if x.Type == html.TextNode && strings.TrimSpace(x.Data) != "" {
			return false
		}
	}
	return true
}

// isCut reports whether n is a heading (or a short line standing for one)
// that opens a site section: related or recommended stories, newsletters,
// "more from".
func (c *content) isCut(n *html.Node) bool {
	s := c.stats[n]
	if s == nil || s.chars == 0 || s.chars > 40 {
		return false
	}
	switch n.DataAtom {
	case atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6, atom.P, atom.Div:
	default:
		return false
	}
	t := c.lowerText(n)
	return cutPhrase.Match(t) || cutPhraseIntl.Match(t)
}

// lowerText is n's text, whitespace collapsed and ASCII lowercased, in a
// buffer reused by the next call.
func (c *content) lowerText(n *html.Node) []byte {
	c.buf = c.buf[:0]
	space := false
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.TextNode {
			for i := 0; i < len(n.Data); i++ {
				b := n.Data[i]
				if b < utf8.RuneSelf && asciiSpace[b] {
					space = len(c.buf) > 0
					continue
				}
				if space {
					c.buf = append(c.buf, ' ')
					space = false
				}
				if 'A' <= b && b <= 'Z' {
					b += 'a' - 'A'
				}
				c.buf = append(c.buf, b)
			}
			return
		}
		if n.Type == html.ElementNode && isBoilerplate(n) {
			return
		}
		for ch := n.FirstChild; ch != nil; ch = ch.NextSibling {
			walk(ch)
		}
	}
	walk(n)
	return c.buf
}

var cutPhrase = regexp.MustCompile(`^(related( stories| articles| posts| content| coverage| news| reading)?|more (from|stories|news|on|in|to explore)\b.*|you (may|might) (also )?(like|enjoy).*|recommended( for you| stories| reading)?|trending( now| stories| news)?|most (popular|read|viewed|shared).*|(our )?latest (stories|news|headlines|videos)|sponsored( content| stories| resources| links)?|newsletters?|top stories|editor'?s picks|what to read next|read next|also read|popular (now|stories|posts|articles)|(recent|related|popular) posts|around the web|from around the web|further reading on .*)[:.…]*$`)

// cutPhraseIntl is cutPhrase in the languages the web writes most after
// English: German, French, Spanish, Italian, Portuguese, Polish, Dutch
// (lowerText lowers ASCII only). Tried only when the text's first word
// opens one of its phrases: one regexp of them all is too big for Go's
// fast matcher, and most blocks start with other words.
var cutPhraseIntl = intlPhrases(`^(mehr (zum thema|zu diesem thema|aus|von|zu|artikel|nachrichten|news)\b.*|[äÄ]hnliche (beitr[äÄ]ge|artikel|themen|posts|nachrichten).*|verwandte (beitr[äÄ]ge|artikel|themen).*`+
	`|weitere (artikel|beitr[äÄ]ge|nachrichten|news|meldungen|themen|pressemitteilungen|informationen|links|tipps|videos|rezepte)\b.*|mehr (themen|kolumnen|interessantes|videos|rezepte)\b.*|empfehlungen (aus der|der) redaktion|unsere empfehlungen|lust auf mehr\??|lesen sie auch\b.*|(das|dieses) thema k[öÖ]nnte (sie|dich) auch interessieren.*|noch mehr (infos|artikel|beitr[äÄ]ge|themen)\b.*|weiterf[üÜ]hrende (links?|artikel|informationen)|zum weiterlesen|auch interessant.*`+
	`|das k[öÖ]nnte (sie|dich) auch interessieren.*|meist(gelesen|kommentiert|diskutiert|-gelesen|-kommentiert|-diskutiert).*|beliebte (beitr[äÄ]ge|artikel)`+
	`|articles? (correspondants?|similaires|li[ée]s|associ[ée]s|connexes)|sur le m[êÊ]me (sujet|th[èe]me)|vous (aimerez|pourriez aimer).*|les plus (lus|partag[ée]s|comment[ée]s)`+
	`|noticias relacionadas|lo [úÚu]ltimo|m[áa]s noticias|te recomendamos|热门推荐|相关推荐|相关阅读|相关文章|推荐阅读|延伸阅读|art[íi]culos relacionados|(tambi[ée]n )?te (puede|podr[íi]a) (interesar|gustar).*|lo m[áa]s (le[íi]do|visto)|video recomendado`+
	`|articoli correlati|potrebbe (anche )?(interessarti|piacerti).*|voc[êÊ] (tamb[ée]m )?(pode|poder[áa]) gostar.*|not[íi]cias relacionadas|polecamy|gerelateerde artikelen`+
	`|schon gelesen\??|neueste (artikel|beitr[äÄ]ge|nachrichten|meldungen)|(über|[üÜ]ber) (den autor|die autorin)|[àÀa] propos de l'auteur|sobre (el|o) autor|sull'autore|o autorze)[:.…]*$`,
	"mehr", "ähnliche", "Ähnliche", "verwandte", "weitere", "weiterführende", "weiterfÜhrende", "zum", "auch", "das",
	"meist", "meistgelesen", "meistkommentiert", "meistdiskutiert", "beliebte", "article", "articles", "sur", "vous", "les",
	"noticias", "artículos", "articulos", "también", "tambien", "te", "lo", "video", "articoli", "potrebbe", "você", "vocÊ",
	"notícias", "polecamy", "gerelateerde", "schon", "neueste", "über", "Über", "à", "À", "a", "sobre", "sull", "o",
	"empfehlungen", "unsere", "lust", "lesen", "dieses", "noch", "más", "mas", "热门推荐", "相关推荐", "相关阅读", "相关文章", "推荐阅读", "延伸阅读")

// phrases is a regexp tried only on texts whose first word is one of first.
// When first holds "" (phrases that may open with something other than a
// letter), bare says which of those texts to try: without it the
// regexp would run on every short block that opens with a digit or a
// sign (a docs page's numbered entries).
type phrases struct {
	re    *regexp.Regexp
	first map[string]bool
	bare  func(t []byte) bool
}

func intlPhrases(expr string, first ...string) phrases {
	return phrases{re: regexp.MustCompile(expr), first: set(first...)}
}

// orBare returns p with bare set.
func (p phrases) orBare(bare func(t []byte) bool) phrases {
	p.bare = bare
	return p
}

func (p phrases) Match(t []byte) bool {
	w := leadWord(t)
	if !p.first[string(w)] || len(w) == 0 && (p.bare == nil || !p.bare(t)) {
		return false
	}
	return p.re.Match(t)
}

// leadWord is t's leading run of letters (a word of lowerText's, accents
// included).
func leadWord(t []byte) []byte {
	for i := 0; i < len(t); {
		if c := t[i]; c < utf8.RuneSelf {
			if !('a' <= c && c <= 'z') {
				return t[:i]
			}
			i++
			continue
		}
		r, n := utf8.DecodeRune(t[i:])
		if !unicode.IsLetter(r) {
			return t[:i]
		}
		i += n
	}
	return t
}

// metaLine matches a short block that is a byline, a dateline, a photo
// credit, a count or a bare URL.
var metaLine = regexp.MustCompile(`^((updated|published|posted|first published|last updated|last modified)\b.*\d.*|by [^.]{2,40}|(photo|image|picture|credit|photograph|source)s?( by)? ?:.*)$`)

// creditLine matches a photo credit in German, French, Spanish,
// Portuguese, Italian, Polish and Dutch ("Foto: …", "Bildquelle: …",
// "Crédits photos : …", "Fuente: …", "Źródło: …"), or a line that is a
// picture agency's name ("AFP / Marco Bertorello", "iStock.com", "©
// dpa"); tried only on a text whose first word opens one.
var creditLine = intlPhrases(`^(©\s*)?((foto|fotos|bild|bilder|bildquelle|fotoquelle|quelle|cr[ée]dits?( photos?)?|fuente|fonte|fot|[źŹ]r[óÓ]d[łŁ]o|zdj[ęĘ]cie)\s?:.*`+
	`|(afp|dpa|reuters|ap|epa|ansa|keystone|imago|getty images|istock(photo)?|shutterstock|picture alliance)(\.com)?( ?[/|,].{0,40})?)$`,
	"foto", "fotos", "bild", "bilder", "bildquelle", "fotoquelle", "quelle", "crédit", "crédits", "credit", "credits", "fuente", "fonte", "fot",
	"źródło", "Źródło", "zdjęcie", "zdjĘcie", "", "afp", "dpa", "reuters", "ap", "epa", "ansa", "keystone", "imago", "getty", "istock",
	"istockphoto", "shutterstock", "picture").orBare(func(t []byte) bool { return bytes.HasPrefix(t, []byte("©")) })

// pitch matches a site's call to action, in a paragraph of pitchMax
// characters or fewer: to subscribe, sign up, follow the site, download
// its app, support or join it (English, German, Spanish, French, Polish).
// Each phrase is a regular expression of its own that opens with a
// literal, which the matcher looks for first ("[gefä]llt dir unser",
// "[sí]guenos en"): one unanchored expression
// of them all cost a third of the extractor's time on news pages.
var pitch = regexps(`subscribe (now|today|to our)`, `please subscribe`, `already a subscriber`, `first-time subscribers`,
	`sign up (for|to) (our|the)`, `follow (us|the \w+) on (twitter|x|facebook|instagram|tiktok|youtube|linkedin|telegram|whatsapp)\b`,
	`download (the|our) [^.]{0,30}apps?\b`, `consider support(ing)? (us|our work|our journalism)\b`,
	`please support (us|our work|our journalism)\b`, `support (us|independent journalism)\b`, `become a (member|subscriber|patron)`,
	`keep up with me on`, `want to be informed`, `if you (enjoyed|liked) (reading )?this`,
	`jetzt abonnieren`, `newsletter abonnieren`, `abonnieren sie`, `unterst[üÜ]tzen sie`, `folgen sie uns`, `llt (dir|ihnen) unser`,
	`sie lesen gern`, `suscr[íi]bete`, `hazte miembro`, `guenos en`, `canal de (youtube|telegram|whatsapp)`,
	`abonnez-vous`, `suivez-nous`, `soutenez-nous`, `do subskrypcji`)

const pitchMax = 300

// isPitch reports whether the lowercased paragraph t is a call to action.
func isPitch(t []byte) bool {
	for _, re := range pitch {
		if re.Match(t) {
			return true
		}
	}
	return false
}

func regexps(exprs ...string) []*regexp.Regexp {
	res := make([]*regexp.Regexp, len(exprs))
	for i, e := range exprs {
		res[i] = regexp.MustCompile(e)
	}
	return res
}

// pointerLine matches the start of a short block that points to other
// pages: "Related: …", "Read more: …", "Tags: …".
var pointerLine = regexp.MustCompile(`^(related|read more|see more|see also|read also|also read|also on|more|tags?|topics|filed under|recommended|watch|listen|more on this|don't miss|further reading)\b\s*[:|-]?`)

// pointerLineIntl is "read also" in German, French, Italian, Portuguese,
// Polish and Dutch: a pointer to one other page, often in the middle of
// an article (so the label goes, not what follows it).
var pointerLineIntl = intlPhrases(`^(`+otherPointers+`)\b\s*[:|-]?`, otherPointerFirst...)

const otherPointers = `lesen sie (auch|mehr)|[àÀa] lire (aussi|[ée]galement)|leggi anche|leia tamb[ée]m|veja tamb[ée]m|zobacz (tak[żŻ]e|r[óÓ]wnie[żŻ]|te[żŻ])|czytaj (tak[żŻ]e|r[óÓ]wnie[żŻ]|te[żŻ])|lees ook`

var otherPointerFirst = []string{"lesen", "à", "À", "a", "leggi", "leia", "veja", "zobacz", "czytaj", "lees"}

// sentence reports whether t ends as a sentence does.
func sentence(t []byte) bool {
	t = bytes.TrimRight(t, " \"'”’)")
	return len(t) > 0 && (t[len(t)-1] == '.' || t[len(t)-1] == '!' || t[len(t)-1] == '?')
}

// dateLine reports whether the short lowercased text t is a date or time
// with at most a name beside it ("November 20, 2019 - 11:28 AMT",
// "2019-11-20 17:27:46 Marcus De Guzman").
func dateLine(t []byte) bool {
	digits, letters := 0, 0
	for _, c := range t {
		if '0' <= c && c <= '9' {
			digits++
		}
	}
	if digits < 4 {
		return false
	}
	digits = 0
	year := false
	for i := 0; i < len(t); {
		c := t[i]
		switch {
		case '0' <= c && c <= '9':
			j := i
			for j < len(t) && '0' <= t[j] && t[j] <= '9' {
				j++
			}
			if j-i == 4 && (t[i] == '1' && t[i+1] == '9' || t[i] == '2' && t[i+1] == '0') {
				year = true
			}
			if j+1 < len(t) && t[j] == ':' && '0' <= t[j+1] && t[j+1] <= '9' {
				year = true // a time of day
			}
			digits += j - i
			i = j
		case 'a' <= c && c <= 'z':
			j := i
			for j < len(t) && 'a' <= t[j] && t[j] <= 'z' {
				j++
			}
			if !dateWords[string(t[i:j])] {
				if letters += j - i; letters > 24 {
					return false
				}
			}
			i = j
		default:
			i++
		}
	}
	return year && digits >= 4 && letters <= 24
}

var dateWords = set("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "sept", "oct", "nov", "dec",
	"january", "february", "march", "april", "june", "july", "august", "september", "october", "november", "december",
	"mon", "tue", "wed", "thu", "fri", "sat", "sun", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday",
	"am", "pm", "utc", "gmt", "est", "edt", "cst", "cdt", "pst", "pdt", "bst", "cet", "et", "pt", "at", "on", "updated", "published",
	"posted", "st", "nd", "rd", "th", "of", "by", "ago", "hours", "minutes", "hour", "last", "modified",
	"uhr", "am", "um", "aktualisiert", "stand", "januar", "februar", "mai", "juni", "juli", "oktober", "dezember")

// metaFirst are the words metaLine's lines start with.
var metaFirst = set("updated", "published", "posted", "first", "last", "by", "photo", "photos", "image", "images",
	"picture", "pictures", "credit", "credits", "photograph", "photographs", "source", "sources")

// firstWord is t's leading run of ASCII letters.
func firstWord(t []byte) []byte {
	i := 0
	for i < len(t) && 'a' <= t[i] && t[i] <= 'z' {
		i++
	}
	return t[:i]
}

// countLine matches a block that is only a count or a bare URL (left out
// of regions the page did not mark: a docs table has numbers).
var countLine = regexp.MustCompile(`^([\d\s.,:/|+()-]*(shares?|comments?|views?|likes?)?|https?://\S+)$`)

// boilerLine matches the whole text of a short block that is a widget's
// label, not the article's.
var boilerLine = phrases{regexp.MustCompile(`^(advertisement|advert|ad|sponsored|share( this( article| story| post)?)?( on)?|share on .*|tags?|topics|filed under|related( topics)?|read more|continue reading|close|caption|play now|video|photo|image|back to top|previous( post| article)?|next( post| article)?|previous next|follow us|print|email|comments?|\d+ comments?|leave a (comment|reply)|no comments( yet)?|comments are closed|share this page|post comment.*|sign up|subscribe( now)?|skip (ad|advertisement)|loading…?|loading\.\.\.|facebook|twitter|pinterest|linkedin|reddit|whatsapp|flipboard|mix|instagram|youtube|telegram|tumblr|messenger|e-?mail|sms|copy link|sharing is caring|all sharing options|share via .*|share on .*|share this on .*|tweet|pin( it)?)[:.!]*$`), set("advertisement", "advert", "ad", "sponsored", "share", "tags", "tag", "topics", "filed", "no",
	"related", "read", "continue", "close", "caption", "play", "video", "photo", "image", "back", "previous", "next", "follow", "print",
	"email", "e", "comments", "comment", "", "leave", "post", "sign", "subscribe", "skip", "loading", "facebook", "twitter", "pinterest",
	"linkedin", "reddit", "whatsapp", "flipboard", "mix", "instagram", "youtube", "telegram", "tumblr", "messenger", "sms", "copy",
	"sharing", "all", "tweet", "pin"), func(t []byte) bool { return len(t) > 0 && '0' <= t[0] && t[0] <= '9' }} // (or with "\d+ comments")

// boilerLineIntl is boilerLine in German, French, Spanish, Italian,
// Polish and Dutch (tried as cutPhraseIntl is).
var boilerLineIntl = intlPhrases(`^(werbung|anzeige|teilen|drucken|kommentare?|(diesen artikel|diese seite|artikel|seite|beitrag|news) teilen|(bisher |noch )?keine kommentare|kommentare (sind )?geschlossen|kommentare? schreiben|kommentieren|hinterlasse (einen kommentar|eine antwort)|zur[üÜ]ck zu[rm]? .{1,25}|schlagw[öo]rter?|zur[üÜ]ck( zur [üÜ]bersicht| nach oben| zum anfang)?|nach oben|(abonniere|abonnieren sie) (unseren|den) newsletter|newsletter (abonnieren|bestellen)|zum newsletter anmelden|(n[äÄ]chster|vorheriger) (artikel|beitrag)|(war|ist) (der|dieser) (artikel|beitrag) (n[üÜ]tzlich|hilfreich)\??`+
	`|`+otherPointers+`|partager|imprimer|publicit[ée]|compartir|imprimir|publicidad|condividi|stampa|pubblicit[àa]|udost[ęĘ]pnij|drukuj|reklama|delen)[:.!]*$`,
	append([]string{"werbung", "anzeige", "teilen", "drucken", "kommentar", "kommentare", "schlagwort", "schlagworte", "schlagwörter", "schlagworter",
		"zurück", "zurÜck", "nach", "abonniere", "diesen", "diese", "artikel", "seite", "beitrag", "news", "bisher", "noch", "keine", "kommentieren", "hinterlasse", "abonnieren", "newsletter", "zum", "partager", "imprimer", "publicité", "publicite", "compartir",
		"nächster", "nÄchster", "vorheriger", "war", "ist", "imprimir", "publicidad", "condividi", "stampa", "pubblicità", "pubblicita", "udostępnij", "udostĘpnij", "drukuj", "reklama", "delen"}, otherPointerFirst...)...)

// skip reports whether the element n is boilerplate: isBoilerplate, except
// a <form> with a page's worth of text (ASP.NET pages wrap the whole body in
// one).
func (c *content) skip(n *html.Node) bool {
	if n.DataAtom == atom.Header && inArticle(n) {
		return false // an article's own header: pruneHeader keeps its standfirst
	}
	return isBoilerplate(n) && (n.DataAtom != atom.Form || c.textOf(n) < 500)
}

// inArticle reports whether n lies inside an <article> or a <main>.
func inArticle(n *html.Node) bool {
	for p := n.Parent; p != nil; p = p.Parent {
		if p.Type == html.ElementNode && (p.DataAtom == atom.Article || p.DataAtom == atom.Main) {
			return true
		}
	}
	return false
}

// dropped reports whether the element n inside the main region is left out.
func (c *content) dropped(n *html.Node) bool {
	if c.skip(n) || hiddenByStyle(n) {
		return true
	}
	if c.whole {
		return c.wholeDropped(n)
	}
	if hiddenClass(n) {
		// the copy a page keeps for another reader (a subscriber's
		// preview beside the story): not displayed
		return true
	}
	if n.DataAtom == atom.H1 && c.article() {
		// the headline: the page's title, not its text (Markdown keeps it)
		c.headlines = append(c.headlines, n)
		return true
	}
	h, med := hints(n)
	if med && (c.stats[n] == nil || 2*c.stats[n].chars < c.rootChars) {
		// a gallery or caption inside the article; not the gallery that
		// is the article (a slideshow story)
		return true
	}
	if s := c.stats[n]; s != nil && s.chars > 0 && s.chars <= 200 && !isInline(n.DataAtom) {
		var t []byte
		if s.chars <= 100 {
			t = c.lowerText(n)
			if s.chars <= 30 && (boilerLine.Match(t) || boilerLineIntl.Match(t)) || metaFirst[string(firstWord(t))] && metaLine.Match(t) || creditLine.Match(t) || c.article() && countLine.Match(t) || s.chars <= 60 && dateLine(t) || s.chars <= 60 && adLabel(t) {
				return true
			}
		}
		if c.article() && linkDensity(s) >= 0.5 && !inPageTOC(n) {
			// "Related: <a>…</a>", "Tags: <a>…</a>": a pointer to other pages
			if t == nil {
				t = c.lowerText(n)
			}
			if n.DataAtom != atom.Li && !sentence(t) || pointerLine.Match(t) || pointerLineIntl.Match(t) {
				return true
			}
		}
	}
	if n.DataAtom == atom.P && c.article() {
		if s := c.stats[n]; s != nil && s.chars > 0 && s.chars <= pitchMax && isPitch(c.lowerText(n)) {
			// "Subscribe now to our e-edition", "Follow us on Twitter",
			// "Unterstützen Sie…": the site's call to action
			return true
		}
	}
	switch n.DataAtom {
	case atom.Span, atom.A, atom.B, atom.I, atom.Em, atom.Strong, atom.Code, atom.Sup, atom.Sub, atom.Small,
		atom.Mark, atom.Abbr, atom.Q, atom.Cite, atom.Kbd, atom.Var, atom.Samp, atom.Time, atom.U, atom.S:
		return false // inline: its block decides (code highlighting names spans "comment")
	case atom.P, atom.Pre, atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6,
		atom.Td, atom.Th, atom.Tr, atom.Tbody, atom.Thead, atom.Dd, atom.Dt, atom.Blockquote, atom.Main, atom.Article:
		if h >= 0 {
			return false
		}
		// a paragraph named like a widget ("share-this") drops when short
		if s := c.stats[n]; s != nil && s.chars > 200 {
			return false
		}
		return true
	case atom.Img, atom.Picture, atom.Video, atom.Audio, atom.Canvas, atom.Input, atom.Textarea, atom.Label:
		return false
	case atom.Figure, atom.Figcaption:
		// a photo and its caption: the labelled article bodies leave
		// them out (the whole-body case keeps them)
		return true
	case atom.Address:
		// the contact of the article's author or of the page
		return c.article()
	}
	s := c.stats[n]
	if h < 0 {
		// a widget inside the region, not a wrapper of most of it; a
		// comment section however long
		return s == nil || 2*s.chars < c.rootChars || namesComments(n) || namesConsent(n)
	}
	if s == nil || s.chars == 0 {
		return false
	}
	ld := linkDensity(s)
	if !c.article() {
		// a region the page marked keeps its link lists (a docs page's
		// table of contents is content)
		return false
	}
	switch n.DataAtom {
	case atom.Ul, atom.Ol, atom.Dl, atom.Div, atom.Section, atom.Table, atom.Figure:
		if h == 0 && (ld > 0.5 && s.score < 3 && !c.holdsBest(n) || ld > 0.33 && s.chars < 200 && s.score == 0) && !inPageTOC(n) {
			return true
		}
	}
	return false
}

// inPageTOC reports whether n's links (two or more) all lead into one
// document, each to a section of it ("#intro", "page.html#intro"): the
// table of contents of the page's own sections, which is its content,
// not a list of other pages.
func inPageTOC(n *html.Node) bool {
	doc, k := "", 0
	ok := true
	var walk func(*html.Node)
	walk = func(x *html.Node) {
		if !ok {
			return
		}
		if x.Type == html.ElementNode && x.DataAtom == atom.A {
			if href, has := attr(x, "href"); has {
				d, frag, hasFrag := strings.Cut(strings.TrimSpace(href), "#")
				if !hasFrag || frag == "" || k > 0 && d != doc {
					ok = false
					return
				}
				doc = d
				k++
			}
		}
		for ch := x.FirstChild; ch != nil; ch = ch.NextSibling {
			walk(ch)
		}
	}
	walk(n)
	return ok && k >= 2
}

// wholeDropped reports whether the element n of a page where no block
// stands out (the whole body is kept) is left out: a block its class or id
// names as a widget of wholeNegWords (comments, share, newsletter,
// related…) that does not hold most of the page, and a comment section
// whatever its size.
func (c *content) wholeDropped(n *html.Node) bool {
	if isInline(n.DataAtom) || hint(n) >= 0 {
		return false
	}
	if namesComments(n) || namesConsent(n) {
		return true // a comment section or consent dialog, whatever its size
	}
	if !namesWords(n, wholeNegWords) {
		return false
	}
	s := c.stats[n]
	return s == nil || 2*s.chars < c.rootChars
}

// wholeNegWords are the widget words of negWords that do not name a docs
// page's content: not menu, nav, footer, toolbar… (a chapter page's
// content can be its menu of sections; a manual's footer varies per page).
var wholeNegWords = set(append([]string{"comment", "comments", "commentlist", "disqus", "respond", "replies", "related", "relatedposts", "recommended",
	"recommendations", "recirc", "outbrain", "taboola", "share", "sharing", "sharebar", "social", "socials", "cookie", "cookies",
	"consent", "gdpr", "dsgvo", "cmplz", "onetrust", "cookiebot", "didomi", "usercentrics", "borlabs", "iubenda", "cookieyes", "newsletter", "subscribe", "subscription", "signup", "promo", "promotion", "sponsor", "sponsored",
	"ad", "ads", "advert", "advertisement", "adslot", "adunit", "banner", "breadcrumb", "breadcrumbs",
	"popup", "modal", "trending", "popular", "widget", "teaser", "teasers", "login", "rating", "ratings", "sociable", "postmetadata"}, commentWordsIntl...)...)

// namesWords reports whether n's class or id holds one of words.
func namesWords(n *html.Node, words map[string]bool) bool {
	for _, a := range n.Attr {
		if a.Key != "class" && a.Key != "id" {
			continue
		}
		for _, w := range strings.FieldsFunc(strings.ToLower(a.Val), func(r rune) bool { return !('a' <= r && r <= 'z' || '0' <= r && r <= '9') }) {
			if words[w] {
				return true
			}
		}
	}
	return false
}

// holdsBest reports whether n holds one of the best-scoring blocks: a
// link-heavy wrapper around the article is not a link list.
func (c *content) holdsBest(n *html.Node) bool {
	for _, b := range c.bestBlocks {
		if isAncestor(n, b) {
			return true
		}
	}
	return false
}

func isInline(a atom.Atom) bool {
	switch a {
	case atom.Span, atom.A, atom.B, atom.I, atom.Em, atom.Strong, atom.Code, atom.Sup, atom.Sub, atom.Small,
		atom.Mark, atom.Abbr, atom.Q, atom.Cite, atom.Kbd, atom.Var, atom.Samp, atom.Time, atom.U, atom.S, atom.Td, atom.Th:
		return true
	}
	return false
}

func linkDensity(s *stat) float64 {
	if s.chars == 0 {
		return 0
	}
	return float64(s.linkChars) / float64(s.chars)
}

// holdsBlocks reports whether an element of kind a makes its parent more
// than a paragraph.
func holdsBlocks(a atom.Atom) bool {
	switch a {
	case atom.P, atom.Div, atom.Pre, atom.Blockquote, atom.Ul, atom.Ol, atom.Dl, atom.Table, atom.Section, atom.Article,
		atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6, atom.Form, atom.Figure, atom.Header, atom.Footer, atom.Nav, atom.Aside, atom.Main:
		return true
	}
	return false
}

func isParagraph(a atom.Atom) bool {
	switch a {
	case atom.P, atom.Pre, atom.Td, atom.Blockquote, atom.Li, atom.Dd:
		return true
	}
	return false
}

// hint is +1 when n's class or id names content ("article-body",
// "entry-content"), -1 when it names a widget or template part and not
// content, 0 otherwise.
func hint(n *html.Node) int {
	h, _ := hints(n)
	return h
}

// hints is hint(n), and whether n's class or id names a photo caption, a
// gallery or a slideshow (left out of the main text).
func hints(n *html.Node) (h int, media bool) {
	neg, pos := false, false
	var buf [40]byte
	for _, a := range n.Attr {
		if a.Key != "class" && a.Key != "id" && a.Key != "itemprop" && a.Key != "role" {
			continue
		}
		if a.Key == "id" && (n.DataAtom == atom.Section || heading(n.DataAtom) && !strings.Contains(strings.ToLower(a.Val), "comment") || strings.Count(a.Val, "-") >= 3) {
			continue // documentation tools name sections and headings after their text (a comment section's title is named for it)
		}
		v := a.Val
		// a name's words ("article-copyright", "post-author"): a widget
		// word in it names the part, the content word the block it
		// belongs to, so the name is the widget's
		nameNeg, namePos := false, false
		split := int8(0) // whether this name's capitals start words: unknown, yes (1), no (-1)
		for i := 0; i <= len(v); i++ {
			k, camel := 0, false
			for ; i < len(v); i++ {
				c := v[i]
				if 'A' <= c && c <= 'Z' {
					if k > 0 && 'a' <= v[i-1] && v[i-1] <= 'z' {
						if split == 0 {
							split = camelSplits(v, i)
						}
						if split > 0 {
							camel = true // "commentArea", "postBody": two words
							break
						}
					}
					c += 'a' - 'A'
				}
				if !('a' <= c && c <= 'z' || '0' <= c && c <= '9') {
					break
				}
				if k < len(buf) {
					buf[k] = c
				}
				k++
			}
			if k > 0 && k <= len(buf) {
				kind := hintKinds[string(buf[:k])]
				switch {
				case kind == 0:
					// a word of none of the sets (most words): one look-up
					if k >= 6 && (string(buf[:6]) == "cookie" || k >= 7 && string(buf[:7]) == "consent") {
						nameNeg = true // "cookiebanner", "consentbox"
					}
				case string(buf[:k]) == "hidden" && responsiveSuffix(v[i:]):
					// Bootstrap's hidden-xs, hidden-sm…: shown on other screens
				case modifier(v[:i-k], string(buf[:k])):
					// "has-ads", "with-sidebar": what a block holds, not what it is
				case a.Key == "class" && string(buf[:k]) == "sidebar" && wholeName(v, i-k, i):
					// the class "sidebar" alone is also DocBook's boxed
					// note in the text; as an id or in a longer name
					// ("sidebar-left", "l-grid__sidebar") it is the
					// page's side column
				case kind&negWord != 0:
					nameNeg = true
				case kind&posWord != 0:
					namePos = true
				case kind&mediaWord != 0:
					media = true
				}
			}
			if i == len(v) || v[i] < utf8.RuneSelf && asciiSpace[v[i]] {
				if nameNeg {
					neg = true
				} else if namePos {
					pos = true
				}
				nameNeg, namePos, split = false, false, 0
			}
			if camel {
				i-- // the capital begins the next word
			}
		}
	}
	media = media && !pos
	switch {
	case neg && !pos:
		return -1, media
	case pos && !neg:
		return 1, media
	}
	return 0, media
}

var negWords = set(append([]string{"comment", "comments", "commentlist", "disqus", "respond", "replies", "related", "relatedposts", "recommended",
	"recommendations", "recirc", "outbrain", "taboola", "share", "sharing", "sharebar", "social", "socials", "cookie", "cookies",
	"consent", "gdpr", "dsgvo", "cmplz", "onetrust", "cookiebot", "didomi", "usercentrics", "borlabs", "iubenda", "cookieyes", "newsletter", "subscribe", "subscription", "signup", "promo", "promotion", "sponsor", "sponsored",
	"ad", "ads", "advert", "advertisement", "adslot", "adunit", "banner", "footer", "masthead", "breadcrumb",
	"breadcrumbs", "menu", "navbar", "nav", "navigation", "sidebar", "popup", "modal", "paywall", "tags", "tag", "trending", "popular",
	"widget", "toolbar", "byline", "author", "credit", "credits", "hidden", "skip", "teaser", "teasers",
	"readmore", "pagination", "pager", "timestamp", "meta", "complementary",
	"contentinfo", "search", "login", "bio", "biography", "authorbox", "authorinfo", "disclaimer", "disclosure", "copyright",
	"rating", "ratings", "sociable", "postmetadata", "button", "buttons", "btn"}, commentWordsIntl...)...)

// wholeName reports whether v[i:j] is a whole whitespace-separated name
// of the attribute value v.
func wholeName(v string, i, j int) bool {
	return (i == 0 || v[i-1] < utf8.RuneSelf && asciiSpace[v[i-1]]) && (j == len(v) || v[j] < utf8.RuneSelf && asciiSpace[v[j]])
}

// responsiveSuffix reports whether rest, what follows a class word, is a
// screen-size suffix ("-xs", "-sm-down", "-print").
func responsiveSuffix(rest string) bool {
	if len(rest) < 3 || rest[0] != '-' {
		return false
	}
	rest = strings.ToLower(rest[1:])
	if strings.HasPrefix(rest, "print") {
		return true
	}
	switch rest[:2] {
	case "xs", "sm", "md", "lg", "xl":
		return len(rest) == 2 || !('a' <= rest[2] && rest[2] <= 'z')
	}
	return false
}

// modifier reports whether the class word w, after before, says what a
// block holds or how it is laid out, not what it is: "has-", "with-",
// or Elementor's
// "elementor-widget" (every block of its pages is one).
func modifier(before, w string) bool {
	before = strings.ToLower(before)
	for _, p := range []string{"has-", "has_", "with-"} {
		if strings.HasSuffix(before, p) {
			return true
		}
	}
	return w == "widget" && strings.HasSuffix(before, "elementor-")
}

// namesComments reports whether n's class or id names a comment section.
func namesComments(n *html.Node) bool {
	return nameHas(n, func(w string) bool { return commentWords[w] })
}

// namesConsent reports whether n's class or id names a cookie or consent
// dialog ("cmplz-cookiebanner", "BorlabsCookieBox", "sp-dsgvo-popup"): like
// a comment section, it is never the article, however much text its
// privacy notice holds.
func namesConsent(n *html.Node) bool { return nameHas(n, consentWord) }

// consentWord reports whether the lower-case word w names a consent
// dialog: cookie…, consent…, or a consent manager's name.
func consentWord(w string) bool {
	return strings.HasPrefix(w, "cookie") || strings.HasPrefix(w, "consent") || consentNames[w]
}

var consentNames = set("gdpr", "dsgvo", "cmplz", "onetrust", "cookiebot", "didomi", "usercentrics", "borlabs", "iubenda", "cookieyes")

// namesCamelWords reports whether a word of n's class or id is one of
// words (see nameHas).
func namesCamelWords(n *html.Node, words map[string]bool) bool {
	return nameHas(n, func(w string) bool { return words[w] })
}

// nameHas reports whether a word of n's class or id satisfies f: words
// are runs of letters, lower-cased, a capital after a small letter
// starting the next ("postComments").
func nameHas(n *html.Node, f func(string) bool) bool {
	for _, a := range n.Attr {
		if a.Key != "class" && a.Key != "id" {
			continue
		}
		v := a.Val
		for i := 0; i < len(v); {
			for i < len(v) && !isASCIILetter(v[i]) {
				i++
			}
			j := i
			for j < len(v) && isASCIILetter(v[j]) && !(j > i && 'A' <= v[j] && v[j] <= 'Z' && 'a' <= v[j-1] && v[j-1] <= 'z') {
				j++
			}
			if j > i && f(strings.ToLower(v[i:j])) {
				return true
			}
			i = j
		}
	}
	return false
}

// commentWordsIntl name a comment section in German, French, Spanish,
// Italian, Portuguese, Polish and Dutch ("kommentare", "commentaires",
// "comentarios", "komentarze", "reacties").
var commentWordsIntl = []string{"kommentar", "kommentare", "commentaire", "commentaires", "comentario", "comentarios",
	"commento", "commenti", "komentarz", "komentarze", "reacties"}

// camelSplits says whether the class or id name around v[i] is camel-cased
// words to read apart (1: "commentArea", "relatedPosts") or one long
// generated name (-1: "WcmsPageWideBannerPlaceHolder",
// "ctl00_m_ctrlMainContentPlaceHolder", whose words say nothing of the
// block): at most maxCamel capitals after small letters.
func camelSplits(v string, i int) int8 {
	start, end := i, i
	for start > 0 && !(v[start-1] < utf8.RuneSelf && asciiSpace[v[start-1]]) {
		start--
	}
	for end < len(v) && !(v[end] < utf8.RuneSelf && asciiSpace[v[end]]) {
		end++
	}
	n := 0
	for j := start + 1; j < end; j++ {
		if 'A' <= v[j] && v[j] <= 'Z' && 'a' <= v[j-1] && v[j-1] <= 'z' {
			n++
		}
	}
	if n > maxCamel {
		return -1
	}
	return 1
}

const maxCamel = 2

func isASCIILetter(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }

var commentWords = set(append([]string{"comment", "comments", "commentlist", "disqus", "respond", "replies", "discussion"}, commentWordsIntl...)...)

var mediaWords = set("caption", "captions", "figcaption", "gallery", "slideshow", "carousel", "slider", "lightbox",
	"legend", "imagedescription", "bildunterschrift", "bilduntertitel", "bildtext")

var posWords = set("article", "articlebody", "content", "body", "main", "post", "entry", "story", "text", "prose", "blog", "hentry")

// hintKinds says of each word of negWords, posWords and mediaWords which
// of them hold it.
var hintKinds = func() map[string]uint8 {
	m := map[string]uint8{}
	for kind, words := range map[uint8]map[string]bool{negWord: negWords, posWord: posWords, mediaWord: mediaWords} {
		for w := range words {
			m[w] |= kind
		}
	}
	return m
}()

const (
	negWord uint8 = 1 << iota
	posWord
	mediaWord
)

func set(ws ...string) map[string]bool {
	m := make(map[string]bool, len(ws))
	for _, w := range ws {
		m[w] = true
	}
	return m
}

// hiddenByStyle reports an inline display:none or visibility:hidden.
func hiddenByStyle(n *html.Node) bool {
	st, ok := attr(n, "style")
	if !ok {
		return false
	}
	st = strings.ReplaceAll(strings.ToLower(st), " ", "")
	return strings.Contains(st, "display:none") || strings.Contains(st, "visibility:hidden")
}

// hiddenClass reports whether n's class is "hidden", the CSS frameworks'
// display:none (Bootstrap, HTML5 Boilerplate); not "hidden-xs" and the
// like, shown on other screens.
func hiddenClass(n *html.Node) bool {
	v, _ := attr(n, "class")
	return hasToken(v, "hidden")
}

// countChars counts s's characters other than whitespace, and its commas.
func countChars(s string) (k, commas int) {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if !asciiSpace[c] {
				k++
				if c == ',' {
					commas++
				}
			}
			i++
			continue
		}
		_, size := utf8.DecodeRuneInString(s[i:])
		k++
		i += size
	}
	return k, commas
}

// nodeTextCheap is n's descendant text, concatenated.
func nodeTextCheap(n *html.Node) string {
	var b strings.Builder
	var f func(*html.Node)
	f = func(n *html.Node) {
		if n.Type == html.TextNode {
			b.WriteString(n.Data)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			f(c)
		}
	}
	f(n)
	return b.String()
}

// cell reports whether a is a table cell (<td>, <th>).
func cell(a atom.Atom) bool { return a == atom.Td || a == atom.Th }

// heading reports whether a is <h1>…<h6>.
func heading(a atom.Atom) bool {
	switch a {
	case atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6:
		return true
	}
	return false
}
