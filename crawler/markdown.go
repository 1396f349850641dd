package crawler

import (
	"errors"
	"net/url"
	"strconv"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"github.com/bloomcrawl/bloomcrawl/storage"
)

// PageMarkdown renders a stored page's main content as Markdown from its
// stored HTML (Markdown), its links resolved against its final URL (or
// its URL); a page stored without HTML has none, an error. It is the
// renderer of storage.ExportOptions.Render and Page.FillMarkdown (a crawl
// stores the HTML and Markdown is rendered on read).
func PageMarkdown(p *storage.Page) (string, error) {
	if len(p.HTML) == 0 {
		return "", errors.New("no HTML stored")
	}
	u := p.FinalURL
	if u == "" {
		u = p.URL
	}
	pu, err := url.Parse(u)
	if err != nil {
		return "", err
	}
	return Markdown(p.HTML, pu)
}

// markdown renders the main content c keeps as Markdown: headings (#),
// paragraphs, lists (nested by two spaces), fenced code blocks, tables
// (GitHub pipe tables), block quotes, emphasis, inline code and links
// resolved against base. Images become ![alt](src) when they have an alt.
func markdown(c *content, base *url.URL) string {
	if c == nil {
		return ""
	}
	for _, h := range c.headlines {
		delete(c.drop, h) // the text leaves the headline to the title; Markdown keeps it
	}
	m := mdWriter{c: c, drop: c.drop, base: base}
	for _, r := range c.roots {
		m.block(r)
	}
	out := strings.TrimSpace(m.b.String())
	if out == "" {
		return ""
	}
	return out + "\n"
}

type mdWriter struct {
	c      *content
	drop   map[*html.Node]bool
	base   *url.URL
	b      strings.Builder
	prefix string // written at the start of every line (quotes, list indent)
	line   strings.Builder
}

// flush ends the current paragraph.
func (m *mdWriter) flush() {
	t := strings.TrimSpace(collapseInline(m.line.String()))
	m.line.Reset()
	if t == "" {
		return
	}
	m.para(t)
}

func (m *mdWriter) para(t string) {
	for i, l := range strings.Split(t, "\n") {
		_ = i
		m.b.WriteString(m.prefix)
		m.b.WriteString(l)
		m.b.WriteByte('\n')
	}
	m.b.WriteString(strings.TrimRight(m.prefix, " "))
	m.b.WriteByte('\n')
}

func (m *mdWriter) skip(n *html.Node) bool {
	return n.Type == html.ElementNode && (m.c.skip(n) || m.drop[n])
}

// block renders n and its children as block content.
func (m *mdWriter) block(n *html.Node) {
	if n.Type == html.TextNode {
		m.line.WriteString(n.Data)
		return
	}
	if n.Type != html.ElementNode || m.skip(n) {
		return
	}
	switch n.DataAtom {
	case atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6:
		m.flush()
		level := int(n.Data[1] - '0')
		if t := strings.TrimSpace(collapseInline(m.inline(n))); t != "" {
			m.para(strings.Repeat("#", level) + " " + t)
		}
	case atom.P, atom.Figcaption, atom.Caption, atom.Summary, atom.Dt:
		m.flush()
		m.line.WriteString(m.inline(n))
		m.flush()
	case atom.Pre:
		m.flush()
		code := strings.Trim(nodeTextCheap(n), "\n")
		if strings.TrimSpace(code) == "" {
			return
		}
		fence := "```"
		for strings.Contains(code, fence) {
			fence += "`"
		}
		m.para(fence + codeLang(n) + "\n" + code + "\n" + fence)
	case atom.Ul, atom.Ol:
		m.flush()
		m.list(n)
	case atom.Table:
		m.flush()
		m.table(n)
	case atom.Blockquote:
		m.flush()
		old := m.prefix
		m.prefix += "> "
		m.children(n)
		m.flush()
		m.prefix = old
		if out := m.b.String(); strings.HasSuffix(out, "\n"+strings.TrimRight(old+"> ", " ")+"\n") {
			m.b.Reset()
			m.b.WriteString(strings.TrimSuffix(out, strings.TrimRight(old+"> ", " ")+"\n"))
			m.b.WriteString(strings.TrimRight(old, " ") + "\n")
		}
	case atom.Hr:
		m.flush()
		m.para("---")
	case atom.Br:
		m.line.WriteString("  \n")
	case atom.Div, atom.Section, atom.Article, atom.Main, atom.Body, atom.Figure, atom.Details, atom.Dl, atom.Dd, atom.Li, atom.Header, atom.Footer, atom.Address, atom.Center:
		m.flush()
		m.children(n)
		m.flush()
	default:
		var b strings.Builder
		m.inlineOne(&b, n)
		m.line.WriteString(b.String())
	}
}

func (m *mdWriter) children(n *html.Node) {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		m.block(c)
	}
}

func codeLang(pre *html.Node) string {
	for _, n := range []*html.Node{pre, pre.FirstChild} {
		if n == nil || n.Type != html.ElementNode {
			continue
		}
		cls, _ := attr(n, "class")
		for _, f := range strings.Fields(cls) {
			if l, ok := strings.CutPrefix(f, "language-"); ok {
				return l
			}
			if l, ok := strings.CutPrefix(f, "lang-"); ok {
				return l
			}
		}
	}
	return ""
}

func (m *mdWriter) list(n *html.Node) {
	i := 1
	if s, ok := attr(n, "start"); ok {
		if v, err := strconv.Atoi(s); err == nil {
			i = v
		}
	}
	for li := n.FirstChild; li != nil; li = li.NextSibling {
		if li.Type != html.ElementNode || li.DataAtom != atom.Li || m.skip(li) {
			continue
		}
		marker := "- "
		if n.DataAtom == atom.Ol {
			marker = strconv.Itoa(i) + ". "
			i++
		}
		sub := mdWriter{c: m.c, drop: m.drop, base: m.base}
		sub.children(li)
		sub.flush()
		body := strings.TrimSpace(sub.b.String())
		if body == "" {
			continue
		}
		// compact: a list item's paragraphs without blank lines between
		lines := strings.Split(body, "\n")
		var out []string
		for _, l := range lines {
			if strings.TrimSpace(l) != "" || inFence(out) {
				out = append(out, l)
			}
		}
		pad := strings.Repeat(" ", len(marker))
		for k, l := range out {
			if k == 0 {
				m.b.WriteString(m.prefix + marker + l + "\n")
			} else {
				m.b.WriteString(m.prefix + pad + l + "\n")
			}
		}
	}
	m.b.WriteString(strings.TrimRight(m.prefix, " ") + "\n")
}

func inFence(lines []string) bool {
	open := false
	for _, l := range lines {
		if strings.HasPrefix(strings.TrimSpace(l), "```") {
			open = !open
		}
	}
	return open
}

func (m *mdWriter) table(t *html.Node) {
	var rows [][]string
	header := false
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if c.Type != html.ElementNode || m.skip(c) {
				continue
			}
			switch c.DataAtom {
			case atom.Tr:
				var row []string
				for cell := c.FirstChild; cell != nil; cell = cell.NextSibling {
					if cell.Type == html.ElementNode && (cell.DataAtom == atom.Td || cell.DataAtom == atom.Th) && !m.skip(cell) {
						if cell.DataAtom == atom.Th && len(rows) == 0 {
							header = true
						}
						v := strings.TrimSpace(collapseInline(m.inline(cell)))
						row = append(row, strings.ReplaceAll(strings.ReplaceAll(v, "\n", " "), "|", `\|`))
					}
				}
				if len(row) > 0 {
					rows = append(rows, row)
				}
			case atom.Table:
				// a nested table is flattened into its cell's row order
			default:
				walk(c)
			}
		}
	}
	walk(t)
	if len(rows) == 0 {
		return
	}
	cols := 0
	for _, r := range rows {
		cols = max(cols, len(r))
	}
	var b strings.Builder
	writeRow := func(r []string) {
		b.WriteString("|")
		for i := 0; i < cols; i++ {
			v := ""
			if i < len(r) {
				v = r[i]
			}
			b.WriteString(" " + v + " |")
		}
		b.WriteString("\n")
	}
	if !header {
		writeRow(make([]string, cols))
	} else {
		writeRow(rows[0])
		rows = rows[1:]
	}
	b.WriteString("|" + strings.Repeat(" --- |", cols) + "\n")
	for _, r := range rows {
		writeRow(r)
	}
	m.para(strings.TrimRight(b.String(), "\n"))
}

// inline renders n's content as inline Markdown.
func (m *mdWriter) inline(n *html.Node) string {
	var b strings.Builder
	m.inlineTo(&b, n)
	return b.String()
}

func (m *mdWriter) inlineTo(b *strings.Builder, n *html.Node) {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		m.inlineOne(b, c)
	}
}

// inlineOne renders the node c as inline Markdown.
func (m *mdWriter) inlineOne(b *strings.Builder, c *html.Node) {
	{
		switch c.Type {
		case html.TextNode:
			b.WriteString(escapeMD(c.Data))
			return
		case html.ElementNode:
		default:
			return
		}
		if m.skip(c) {
			return
		}
		switch c.DataAtom {
		case atom.A:
			t := strings.TrimSpace(collapseInline(m.inline(c)))
			href, _ := attr(c, "href")
			href = strings.TrimSpace(href)
			if t == "" {
				return
			}
			if href == "" || strings.HasPrefix(href, "#") || strings.HasPrefix(strings.ToLower(href), "javascript:") {
				b.WriteString(t)
				return
			}
			if m.base != nil {
				if u, err := m.base.Parse(href); err == nil {
					href = u.String()
				}
			}
			b.WriteString(" [" + t + "](" + strings.ReplaceAll(href, " ", "%20") + ") ")
		case atom.Strong, atom.B:
			if t := strings.TrimSpace(collapseInline(m.inline(c))); t != "" {
				b.WriteString(" **" + t + "** ")
			}
		case atom.Em, atom.I:
			if t := strings.TrimSpace(collapseInline(m.inline(c))); t != "" {
				b.WriteString(" _" + t + "_ ")
			}
		case atom.Code, atom.Kbd, atom.Samp, atom.Tt:
			if t := collapse(nodeTextCheap(c)); t != "" {
				tick := "`"
				if strings.Contains(t, "`") {
					tick = "``"
				}
				b.WriteString(tick + t + tick)
			}
		case atom.Br:
			b.WriteString("  \n")
		case atom.Img:
			alt, _ := attr(c, "alt")
			src, _ := attr(c, "src")
			if alt = collapse(alt); alt != "" && src != "" {
				if m.base != nil {
					if u, err := m.base.Parse(strings.TrimSpace(src)); err == nil {
						src = u.String()
					}
				}
				b.WriteString("![" + escapeMD(alt) + "](" + src + ")")
			}
		default:
			if isBlock(c.DataAtom) {
				b.WriteString(" ")
				m.inlineTo(b, c)
				b.WriteString(" ")
			} else {
				m.inlineTo(b, c)
			}
		}
	}
}

// collapseInline folds whitespace runs to one space, keeping the "  \n" of
// hard line breaks.
func collapseInline(s string) string {
	if !strings.Contains(s, "  \n") {
		return collapse(s)
	}
	parts := strings.Split(s, "  \n")
	for i, p := range parts {
		parts[i] = collapse(p)
	}
	return strings.Join(parts, "  \n")
}

var mdEscaper = strings.NewReplacer(`\`, `\\`, "*", `\*`, "_", `\_`, "`", "\\`", "[", `\[`, "]", `\]`, "<", "&lt;")

func escapeMD(s string) string {
	if !strings.ContainsAny(s, "\\*_`[]<") {
		return s
	}
	return mdEscaper.Replace(s)
}
