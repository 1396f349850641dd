package crawler

import (
	"math/rand/v2"
	"net/url"
	"slices"
	"strings"
	"testing"

	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/simplifiedchinese"
	"golang.org/x/text/encoding/traditionalchinese"
)

const articleHTML = `<!doctype html><html><head><title>  Debian   FAQ </title>
<style>body{color:red}</style><script>var x = "script text";</script></head>
<body>
<header><a href="/">Home</a> site banner</header>
<nav><a href="/nav1">Nav one</a><a href="/nav2">Nav two</a></nav>
<main><h1>What is Debian?</h1><p>Debian is a <b>free</b> operating system.</p>
<p>It has <a href="pkgs.html#top">packages</a> and <a href="#local">a fragment</a>.</p>
<table><tr><td>a</td><td>b</td></tr></table></main>
<aside>Related links</aside>
<footer>Copyright footer <a href="mailto:x@example.com">mail</a></footer>
<a href="/x" rel="nofollow">nofollow</a>
</body></html>`

func TestExtractMainTextTitleLinks(t *testing.T) {
	base, _ := url.Parse("http://example.com/doc/faq.html")
	d, err := Extract([]byte(articleHTML), "text/html", false, base)
	if err != nil {
		t.Fatal(err)
	}
	if d.Title != "Debian FAQ" {
		t.Errorf("Title = %q", d.Title)
	}
	wantText := "What is Debian?\nDebian is a free operating system.\nIt has packages and a fragment.\na b"
	if d.Text != wantText {
		t.Errorf("Text =\n%q\nwant\n%q", d.Text, wantText)
	}
	for _, bad := range []string{"banner", "Nav one", "footer", "script text", "Related", "color:red"} {
		if strings.Contains(d.Text, bad) {
			t.Errorf("Text contains boilerplate %q", bad)
		}
	}
	wantLinks := "[/ /nav1 /nav2 pkgs.html#top mailto:x@example.com]"
	if got := strings.Join(strings.Fields(strings.Trim(strings.Join(d.Links, " "), " ")), " "); "["+got+"]" != wantLinks {
		t.Errorf("Links = %v, want %v", d.Links, wantLinks)
	}
	if d.Base.String() != base.String() || d.Charset != "utf-8" {
		t.Errorf("Base %s Charset %s", d.Base, d.Charset)
	}
}

func TestExtractBaseHrefAndBodyFallback(t *testing.T) {
	page, _ := url.Parse("http://example.com/a/b.html")
	d, err := Extract([]byte(`<html><head><base href="/root/"></head><body><div>One</div><div>Two <span>three</span></div></body></html>`), "text/html; charset=utf-8", false, page)
	if err != nil {
		t.Fatal(err)
	}
	if d.Base.String() != "http://example.com/root/" {
		t.Errorf("Base = %s", d.Base)
	}
	if d.Text != "One\nTwo three" {
		t.Errorf("Text = %q", d.Text)
	}
	if d.Title != "" {
		t.Errorf("Title = %q, want empty (no title, no h1)", d.Title)
	}
}

func encode(t *testing.T, enc encoding.Encoding, s string) []byte {
	t.Helper()
	b, err := enc.NewEncoder().Bytes([]byte(s))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestExtractCharsets(t *testing.T) {
	const zh = "网络爬虫的去重：布隆过滤器与相似文本检测。中文页面常用这种编码，解码错误会破坏指纹。"
	page := func(meta string) string {
		return "<html><head>" + meta + "<title>中文标题</title></head><body><p>" + zh + "</p></body></html>"
	}
	u, _ := url.Parse("http://example.com/")
	cases := []struct {
		name        string
		body        []byte
		contentType string
		alreadyUTF8 bool
		wantCharset string
	}{
		{"utf-8 undeclared", []byte(page("")), "text/html", false, "utf-8"},
		{"gbk in header", encode(t, simplifiedchinese.GBK, page("")), "text/html; charset=gbk", false, "gbk"},
		{"gbk decoded by colly", []byte(page(`<meta charset="gbk">`)), "text/html; charset=gbk", true, "utf-8"},
		{"gb18030 in meta", encode(t, simplifiedchinese.GB18030, page(`<meta http-equiv="Content-Type" content="text/html; charset=gb18030">`)), "text/html", false, "gb18030"},
		{"gb2312 meta read as gbk", encode(t, simplifiedchinese.GBK, page(`<meta charset="gb2312">`)), "text/html", false, "gbk"},
		{"big5 in meta", encode(t, traditionalchinese.Big5, strings.NewReplacer(zh, "網路爬蟲的去重：布隆過濾器與相似文本檢測。", "中文标题", "中文標題").Replace(page(`<meta charset="big5">`))), "text/html", false, "big5"},
		{"gb18030 undeclared", encode(t, simplifiedchinese.GB18030, page("")), "text/html", false, "gb18030"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			d, err := Extract(tc.body, tc.contentType, tc.alreadyUTF8, u)
			if err != nil {
				t.Fatal(err)
			}
			if d.Charset != tc.wantCharset {
				t.Errorf("Charset = %q, want %q", d.Charset, tc.wantCharset)
			}
			if d.Title != "中文标题" && d.Title != "中文標題" {
				t.Errorf("Title = %q", d.Title)
			}
			if !strings.Contains(d.Text, "布隆") {
				t.Errorf("Text = %q: not decoded", d.Text)
			}
		})
	}
}

func TestExtractMalformedHTML(t *testing.T) {
	u, _ := url.Parse("http://example.com/")
	d, err := Extract([]byte("<html><body><p>unclosed <div><a href='/a'>link<p>more</body"), "text/html", false, u)
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Links) != 1 || !strings.Contains(d.Text, "more") {
		t.Errorf("Links %v Text %q", d.Links, d.Text)
	}
}

func TestPageTitle(t *testing.T) {
	cases := []struct{ title, h1, want string }{
		{"Debian FAQ", "Debian FAQ", "Debian FAQ"},
		{"What is Debian? | Sample Partner", "What is Debian?", "What is Debian?"},
		{"Sample News — What is Debian?", "What is Debian?", "What is Debian?"},
		{"什么是 Debian？ | 合作伙伴", "什么是 Debian？", "什么是 Debian？"},
		{"Debian FAQ and more", "Debian FAQ", "Debian FAQ and more"}, // no separator: keep
		{"", "Heading", "Heading"},
		{"Title", "", "Title"},
		{"Intro", "Something else", "Intro"},
	}
	for _, c := range cases {
		if got := pageTitle(c.title, c.h1); got != c.want {
			t.Errorf("pageTitle(%q, %q) = %q, want %q", c.title, c.h1, got, c.want)
		}
	}
}

// TestExtractRegions: the main text comes from the one <main>/[role=main],
// else the one <article>, else <body>; the title falls back to the first <h1>.
func TestExtractRegions(t *testing.T) {
	page, _ := url.Parse("http://example.com/p")
	for _, c := range []struct{ name, html, title, text string }{
		{"role main", `<body><div>skip</div><div role="main">kept <a href="a">link</a></div></body>`, "", "kept link"},
		{"one article", `<body><div>skip</div><article><h1>Head</h1><p>body</p></article></body>`, "Head", "Head\nbody"},
		{"two articles", `<title>T</title><body><article>one</article><article>two</article></body>`, "T", "one\ntwo"},
		{"two mains", `<body><main>a</main><div role=main>b</div><p>c</p></body>`, "", "a\nb\nc"},
	} {
		d, err := Extract([]byte(c.html), "text/html; charset=utf-8", false, page)
		if err != nil {
			t.Fatal(err)
		}
		if d.Title != c.title || d.Text != c.text {
			t.Errorf("%s: title %q text %q, want %q %q", c.name, d.Title, d.Text, c.title, c.text)
		}
	}
}

// TestTextWriterCollapses: one text() call on a fresh writer gives the
// words of s joined by single spaces, for any mix of ASCII and Unicode
// spaces and letters.
func TestTextWriterCollapses(t *testing.T) {
	alphabet := []rune("ab \t\n\r\v\fé中\u00a0\u2003\u3000x.")
	rng := rand.New(rand.NewPCG(3, 4))
	for i := 0; i < 5000; i++ {
		rs := make([]rune, rng.IntN(20))
		for j := range rs {
			rs[j] = alphabet[rng.IntN(len(alphabet))]
		}
		s := string(rs)
		var w textWriter
		w.text(s)
		if want := strings.Join(strings.Fields(s), " "); w.String() != want {
			t.Fatalf("text(%q) = %q, want %q", s, w.String(), want)
		}
	}
	var w textWriter
	w.text("a\xffb")
	if w.String() != "a\uFFFDb" {
		t.Fatalf("invalid byte: %q", w.String())
	}
}

// TestExtractSVGLink: an SVG <a xlink:href> is a link, as it was with
// goquery's a[href] selector.
func TestExtractSVGLink(t *testing.T) {
	page, _ := url.Parse("http://example.com/p")
	d, err := Extract([]byte(`<body><svg><a xlink:href="/from-svg"><text>x</text></a></svg><a href="/plain">y</a></body>`), "text/html; charset=utf-8", false, page)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(d.Links, []string{"/from-svg", "/plain"}) {
		t.Fatalf("links %q", d.Links)
	}
}

// TestExtractConventions: rel=canonical, robots meta tags and nofollow
// links are extracted as written; ParseDirectives reads meta contents and
// X-Robots-Tag values (agent-prefixed ones only for our agent).
func TestExtractConventions(t *testing.T) {
	page := `<html><head><title>t</title>
<link rel="stylesheet" href="/s.css"><link rel="Canonical" href=" /article ">
<link rel="canonical" href="/second">
<meta name="ROBOTS" content="NoIndex, follow"><meta name="bloomcrawl" content="nofollow">
<meta name="description" content="not a directive"><meta name="googlebot" content="none">
</head><body><a href="/a">a</a><a rel="nofollow" href="/b">b</a><a rel="external UGC" href="/c">c</a>
<a rel="sponsored" href="/d">d</a><a rel="noopener" href="/e">e</a></body></html>`
	base, _ := url.Parse("http://example.com/article?ref=x")
	d, err := Extract([]byte(page), "text/html", false, base)
	if err != nil {
		t.Fatal(err)
	}
	if d.Canonical != "/article" {
		t.Errorf("Canonical = %q, want the first one, trimmed", d.Canonical)
	}
	if !slices.Equal(d.Links, []string{"/a", "/e"}) || !slices.Equal(d.NofollowLinks, []string{"/b", "/c", "/d"}) {
		t.Errorf("Links %v, NofollowLinks %v", d.Links, d.NofollowLinks)
	}
	want := []RobotsMeta{{"robots", "NoIndex, follow"}, {"bloomcrawl", "nofollow"}, {"googlebot", "none"}}
	if !slices.Equal(d.RobotsMeta, want) {
		t.Errorf("RobotsMeta = %v, want %v", d.RobotsMeta, want)
	}
	for _, c := range []struct {
		v    string
		want Directives
	}{
		{"noindex", Directives{NoIndex: true}},
		{"NOFOLLOW", Directives{NoFollow: true}},
		{"none", Directives{true, true}},
		{"index, follow, noarchive", Directives{}},
		{"bloomcrawl: noindex", Directives{NoIndex: true}},
		{"otherbot: noindex, nofollow", Directives{}},
		{"unavailable_after: 25 Jun 2030 15:00:00 PST", Directives{}},
	} {
		var got Directives
		got.ParseDirectives(c.v, "bloomcrawl")
		if got != c.want {
			t.Errorf("ParseDirectives(%q) = %+v, want %+v", c.v, got, c.want)
		}
	}
}

func TestLinkHeaderCanonical(t *testing.T) {
	for _, c := range []struct {
		in   []string
		want string
	}{
		{nil, ""},
		{[]string{`<https://e.com/a>; rel="canonical"`}, "https://e.com/a"},
		{[]string{`<https://e.com/s.css>; rel=preload; as=style, </b?x=1,2>; rel=canonical`}, "/b?x=1,2"},
		{[]string{`<https://e.com/n>; rel="next"`, `<https://e.com/c>; REL="alternate canonical"`}, "https://e.com/c"},
		{[]string{`<https://e.com/n>; rel="next"`}, ""},
	} {
		if got := LinkHeaderCanonical(c.in); got != c.want {
			t.Errorf("LinkHeaderCanonical(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
