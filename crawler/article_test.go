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
