package crawler

import (
	"compress/gzip"
	"io"
	"net/url"
	"os"
	"strings"
	"testing"
)

func readTestdata(t *testing.T, name string) []byte {
	t.Helper()
	f, err := os.Open("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var r io.Reader = f
	if strings.HasSuffix(name, ".gz") {
		zr, err := gzip.NewReader(f)
		if err != nil {
			t.Fatal(err)
		}
		r = zr
	}
	b, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// A real news page (scrapinghub/article-extraction-benchmark, MIT): the
// article is kept, the site's header, share bar, related and footer
// are not, and the fields the page states are read.
func TestExtractArticleRealPage(t *testing.T) {
	u, _ := url.Parse("https://www.slashgear.com/2020-audi-e-tron-sportback-revealed-as-electric-4-door-coupe-19600369/")
	d, err := Extract(readTestdata(t, "slashgear.html.gz"), "text/html", false, u)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"Audi has revealed the second production model in its e-tron all-electric range",
		"Power and Performance",
		"expected to go on sale in North American midway through next year.",
	} {
		if !strings.Contains(d.Text, want) {
			t.Errorf("Text lacks %q", want)
		}
	}
	for _, bad := range []string{"Twitter Facebook Youtube", "Chris Davies - Nov 19"} {
		if strings.Contains(d.Text, bad) {
			t.Errorf("Text keeps boilerplate %q", bad)
		}
	}
	want := Meta{Lang: "en-US", Published: "2019-11-20T02:15:49+00:00", Author: "Chris Davies"}
	if d.Meta != want {
		t.Errorf("Meta = %+v, want %+v", d.Meta, want)
	}
	if d.Canonical != u.String() {
		t.Errorf("Canonical = %q", d.Canonical)
	}
	if !strings.Contains(d.Markdown(), "\n## Power and Performance\n\nIn Europe, there’ll be two versions") {
		t.Errorf("Markdown lacks the section heading and its paragraph:\n%s", d.Markdown())
	}
}

func TestExtractArticleChinese(t *testing.T) {
	u, _ := url.Parse("https://news.example.cn/news/2026/bloom.html?from=home")
	d, err := Extract(readTestdata(t, "zh-article.html"), "text/html", false, u)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"布隆过滤器是一种空间效率很高", "如何选择参数", "可接受的误判率 p"} {
		if !strings.Contains(d.Text, want) {
			t.Errorf("Text lacks %q:\n%s", want, d.Text)
		}
	}
	for _, bad := range []string{"分享到微博", "相关新闻", "人工智能助力", "网友评论", "热门排行", "版权所有", "财经"} {
		if strings.Contains(d.Text, bad) {
			t.Errorf("Text keeps boilerplate %q:\n%s", bad, d.Text)
		}
	}
	if want := (Meta{Lang: "zh-CN", Published: "2026-11-20T08:00:00+08:00", Author: "张三"}); d.Meta != want {
		t.Errorf("Meta = %+v, want %+v", d.Meta, want)
	}
	if d.Title != "布隆过滤器在网络爬虫中的应用" {
		t.Errorf("Title = %q", d.Title)
	}
	wantMD := "# 布隆过滤器在网络爬虫中的应用\n\n布隆过滤器是一种"
	if !strings.HasPrefix(d.Markdown(), wantMD) || !strings.Contains(d.Markdown(), "\n## 如何选择参数\n") || !strings.Contains(d.Markdown(), "\n- 预计元素数量 n\n- 可接受的误判率 p\n") {
		t.Errorf("Markdown:\n%s", d.Markdown())
	}
}

func TestMarkdownRendering(t *testing.T) {
	const page = `<html><head><title>Doc</title></head><body><nav><a href="/">Home</a></nav><main>
<h1>Install</h1>
<p>Run <code>make</code> as <b>root</b>, see <a href="ref.html">the reference</a>.</p>
<pre class="language-sh">make install
make check</pre>
<ol><li>First</li><li>Second <em>step</em></li></ol>
<table><tr><th>Option</th><th>Default</th></tr><tr><td>-n</td><td>5</td></tr></table>
<blockquote><p>Quoted text.</p></blockquote>
</main><footer>Footer</footer></body></html>`
	u, _ := url.Parse("https://docs.example/guide/install.html")
	d, err := Extract([]byte(page), "text/html", false, u)
	if err != nil {
		t.Fatal(err)
	}
	want := "# Install\n\n" +
		"Run `make` as **root** , see [the reference](https://docs.example/guide/ref.html) .\n\n" +
		"```sh\nmake install\nmake check\n```\n\n" +
		"1. First\n2. Second _step_\n\n" +
		"| Option | Default |\n| --- | --- |\n| -n | 5 |\n\n" +
		"> Quoted text.\n"
	if d.Markdown() != want {
		t.Errorf("Markdown =\n%s\nwant\n%s", d.Markdown(), want)
	}
}

// para is a paragraph of prose of about n sentences, each naming i.
func para(tag string, i, n int) string {
	var b strings.Builder
	b.WriteString("<p>")
	for k := 0; k < n; k++ {
		b.WriteString(tag + " sentence " + string(rune('a'+k%26)) + " of paragraph " + string(rune('A'+i%26)) + ", with commas, words and more words to read. ")
	}
	b.WriteString("</p>")
	return b.String()
}

// A comment section longer than the article is still not the article.
func TestExtractCommentsNeverWin(t *testing.T) {
	var b strings.Builder
	b.WriteString(`<html><body><main><div class="entry">`)
	for i := 0; i < 3; i++ {
		b.WriteString(para("Story", i, 3))
	}
	b.WriteString(`</div><div id="comments" class="comments-area"><ol class="comment-list">`)
	for i := 0; i < 12; i++ {
		b.WriteString(`<li><article class="c">` + para("Reader", i, 3) + `</article></li>`)
	}
	b.WriteString(`</ol></div></main></body></html>`)
	u, _ := url.Parse("https://blog.example/post")
	d, err := Extract([]byte(b.String()), "text/html", false, u)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(d.Text, "Story sentence a of paragraph A") {
		t.Errorf("Text lacks the article: %.200q", d.Text)
	}
	if strings.Contains(d.Text, "Reader sentence") {
		t.Errorf("Text keeps the comments: %.200q", d.Text)
	}
}

// A block hidden on small screens only (hidden-xs) is shown elsewhere and
// kept, a section that "has-ads" is no ad; a slideshow that is the whole story is kept; a German "Mehr zum
// Thema" section after the article is not.
func TestExtractResponsiveSlideshowAndGermanCut(t *testing.T) {
	page := `<html><head><meta property="og:type" content="article"></head><body>
<div class="wrap"><div class="story">` + para("Intro", 0, 2) + `
<div class="hidden-xs">` + para("Wide", 1, 3) + `</div>
<section class="o-section has-ads">` + para("Ads", 4, 3) + `</section>
<div class="gallery-wrapper">` + para("Slide", 2, 6) + para("Slide", 3, 6) + `</div>
<h3>Mehr zum Thema</h3><ul><li><a href="/a">Ein anderer Artikel über etwas</a></li><li><a href="/b">Noch ein Artikel</a></li></ul>
</div></div></body></html>`
	u, _ := url.Parse("https://news.example/story")
	d, err := Extract([]byte(page), "text/html", false, u)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Intro sentence a", "Wide sentence a", "Ads sentence a", "Slide sentence a of paragraph C"} {
		if !strings.Contains(d.Text, want) {
			t.Errorf("Text lacks %q: %q", want, d.Text)
		}
	}
	for _, bad := range []string{"Mehr zum Thema", "Noch ein Artikel"} {
		if strings.Contains(d.Text, bad) {
			t.Errorf("Text keeps %q: %q", bad, d.Text)
		}
	}
}

// Teasers after a "You may also like" heading that hold more text than
// the short article are not the article.
func TestExtractTeasersAfterCutHeading(t *testing.T) {
	var b strings.Builder
	b.WriteString(`<html><head><meta property="og:type" content="article"></head><body><div id="primary">`)
	b.WriteString(`<article class="box">` + para("Story", 0, 4) + `</article>`)
	b.WriteString(`<article class="box"><h3>Você pode gostar...</h3>`)
	for i := 1; i < 7; i++ {
		b.WriteString(`<article class="box">` + para("Teaser", i, 3) + `</article>`)
	}
	b.WriteString(`</article></div></body></html>`)
	u, _ := url.Parse("https://blog.example/post")
	d, err := Extract([]byte(b.String()), "text/html", false, u)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(d.Text, "Story sentence d of paragraph A") {
		t.Errorf("Text lacks the article: %.300q", d.Text)
	}
	if strings.Contains(d.Text, "Teaser sentence") {
		t.Errorf("Text keeps the teasers: %.300q", d.Text)
	}
}

// A "More in…" heading named as a widget's title cuts the teasers after
// it; a bare "Related" label in the middle of the article only drops
// itself and its link list.
func TestExtractWidgetTitleCut(t *testing.T) {
	page := `<html><head><meta property="og:type" content="article"></head><body><div class="story">` +
		para("Story", 0, 3) + `<h2 class="cat-head">Related</h2><ul><li><a href="/x">Another story about a thing</a></li><li><a href="/y">And one more story here</a></li></ul>` +
		para("Later", 1, 3) + `<h2 class="widget-title">More in Sports</h2>`
	for i := 2; i < 6; i++ {
		page += `<div class="card">` + para("Teaser", i, 2) + `<a href="/t">Read More</a></div>`
	}
	page += `</div></body></html>`
	u, _ := url.Parse("https://news.example/story")
	d, err := Extract([]byte(page), "text/html", false, u)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Story sentence a", "Later sentence c"} {
		if !strings.Contains(d.Text, want) {
			t.Errorf("Text lacks %q: %q", want, d.Text)
		}
	}
	for _, bad := range []string{"Teaser sentence", "More in Sports", "Another story"} {
		if strings.Contains(d.Text, bad) {
			t.Errorf("Text keeps %q: %q", bad, d.Text)
		}
	}
}

// Every label and heading the phrase lists name is found through their
// first-word gates.
func TestPhraseGates(t *testing.T) {
	for _, tc := range []struct {
		p     interface{ Match([]byte) bool }
		texts []string
	}{
		{boilerLine, []string{"advertisement", "share this article", "12 comments", "e-mail", "loading…", "tags:", "read more", "pin it"}},
		{boilerLineIntl, []string{"werbung", "zurÜck zur Übersicht", "schlagwörter:", "à lire aussi", "leggi anche", "zobacz także", "publicité", "udostępnij", "nächster artikel", "war der artikel nützlich?"}},
		{cutPhraseIntl, []string{"mehr zum thema", "Ähnliche artikel", "ähnliche beiträge", "das könnte dich auch interessieren:", "meistgelesen",
			"articles similaires", "vous aimerez aussi", "noticias relacionadas", "también te puede interesar", "você pode gostar...", "gerelateerde artikelen",
			"schon gelesen?", "Über den autor", "à propos de l'auteur", "sobre el autor"}},
		{pointerLineIntl, []string{"lesen sie auch: x", "à lire aussi : y", "czytaj także: z"}},
	} {
		for _, s := range tc.texts {
			if !tc.p.Match([]byte(s)) {
				t.Errorf("%q does not match", s)
			}
		}
	}
	for _, s := range []string{"the python tutorial", "4.2. for statements", "mehrere artikel", "advertising standards"} {
		if boilerLine.Match([]byte(s)) || boilerLineIntl.Match([]byte(s)) || cutPhraseIntl.Match([]byte(s)) || cutPhrase.Match([]byte(s)) {
			t.Errorf("%q matches", s)
		}
	}
}

// On a page where no block stands out (the whole body is kept), blocks
// named as comments or a newsletter box and a link list after "Related
// posts" are still left out; a menu of sections (a docs chapter page's
// content) is kept.
func TestExtractWholeBodyWidgets(t *testing.T) {
	page := `<html><body>
<div class="a"><div>` + para("First", 0, 3) + `</div></div>
<div class="b"><div>` + para("Second", 1, 3) + `</div></div>
<div class="c"><div>` + para("Third", 2, 3) + `</div></div>
<table class="menu"><tr><td><a href="/s1">1.1 Section one</a></td></tr><tr><td><a href="/s2">1.2 Section two</a></td></tr></table>
<div id="comments"><p>Leave a comment, readers, and say what you think of it.</p></div>
<div class="newsletter-box"><p>Get our weekly letter in your inbox, every Friday morning.</p></div>
<div class="d"><h3>Related posts</h3><ul><li><a href="/x">Another story about something</a></li><li><a href="/y">Yet another story here</a></li></ul></div>
</body></html>`
	u, _ := url.Parse("https://site.example/page")
	d, err := Extract([]byte(page), "text/html", false, u)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"First sentence a", "Second sentence a", "Third sentence a", "1.1 Section one"} {
		if !strings.Contains(d.Text, want) {
			t.Errorf("Text lacks %q: %q", want, d.Text)
		}
	}
	for _, bad := range []string{"Leave a comment", "weekly letter", "Related posts", "Another story"} {
		if strings.Contains(d.Text, bad) {
			t.Errorf("Text keeps %q: %q", bad, d.Text)
		}
	}
}

// An article's own <header> keeps its standfirst; its date, byline and
// photo go, and the page's header stays out.
func TestExtractArticleHeaderStandfirst(t *testing.T) {
	page := `<html><body><header><p>Site name, the news of the town, and a motto for the readers.</p></header>
<article><header><h1>Headline</h1><div class="meta"><time datetime="2024-01-02">2 January 2024</time> <span>Jane Doe</span></div>
<p class="lead">The council voted on Tuesday to close the old bridge, ending a decade of debate.</p>
<figure><img src="/b.jpg"><figcaption>The old bridge over the river, seen from the north bank at dusk.</figcaption></figure></header>
<div class="body">` + para("Story", 0, 3) + para("Story", 1, 3) + `</div></article></body></html>`
	u, _ := url.Parse("https://news.example/bridge")
	d, err := Extract([]byte(page), "text/html", false, u)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"The council voted on Tuesday", "Story sentence a of paragraph B"} {
		if !strings.Contains(d.Text, want) {
			t.Errorf("Text lacks %q: %q", want, d.Text)
		}
	}
	for _, bad := range []string{"Site name", "2 January", "Jane Doe", "old bridge over the river"} {
		if strings.Contains(d.Text, bad) {
			t.Errorf("Text keeps %q: %q", bad, d.Text)
		}
	}
}

// A "Related posts" box in the middle of a story drops itself, not the
// story's paragraphs after it.
func TestExtractCutResumes(t *testing.T) {
	page := `<html><head><meta property="og:type" content="article"></head><body><div class="story">` +
		para("Before", 0, 3) + para("Before", 1, 3) + `
<h3>Related posts</h3><ul><li><a href="/a">Another story about a thing</a></li><li><a href="/b">Yet another story</a></li></ul>
<p>After the box the story goes on, with more of what happened that day and who said what about it to the reporters, until the end.</p>` +
		para("After", 2, 3) + `</div></body></html>`
	u, _ := url.Parse("https://news.example/story")
	d, err := Extract([]byte(page), "text/html", false, u)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Before sentence a of paragraph B", "After the box the story goes on", "After sentence a of paragraph C"} {
		if !strings.Contains(d.Text, want) {
			t.Errorf("Text lacks %q: %q", want, d.Text)
		}
	}
	for _, bad := range []string{"Related posts", "Another story"} {
		if strings.Contains(d.Text, bad) {
			t.Errorf("Text keeps %q: %q", bad, d.Text)
		}
	}
}
