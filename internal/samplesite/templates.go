package samplesite

import "html/template"

// labels are the template strings of one language.
type labels struct {
	Lang, Site, Tagline, Home, Intros, Events, Print, Related, Footer, OtherLang string
	Partner, PartnerFooter, Dateline, PrintHeader, PrintBack                     string
}

var langLabels = map[string]labels{
	"en": {
		Lang: "en", Site: "Sample News", Tagline: "A small news site for testing bloomcrawl",
		Home: "Home", Intros: "Introductions", Events: "Events", Print: "Print this article",
		Related: "Related articles", OtherLang: "中文",
		Footer:  "Sample News is a test site for bloomcrawl. Article texts are sections of the Debian FAQ, © Software in the Public Interest, used under its permission notice.",
		Partner: "Planet Free Software Daily", PartnerFooter: "Planet Free Software Daily republishes articles from other sites with their permission.",
		Dateline:    "Originally published by Sample News on 3 March 2026. Republished with permission.",
		PrintHeader: "Sample News (printer-friendly version)", PrintBack: "Back to the article",
	},
	"zh": {
		Lang: "zh-CN", Site: "样例新闻", Tagline: "一个用于测试 bloomcrawl 的小型新闻网站",
		Home: "首页", Intros: "简介", Events: "活动", Print: "打印本文",
		Related: "相关文章", OtherLang: "English",
		Footer:  "样例新闻是 bloomcrawl 的测试网站。文章内容取自 Debian FAQ，版权归 Software in the Public Interest 所有，依其许可声明使用。",
		Partner: "自由软件日报", PartnerFooter: "自由软件日报经许可转载其他网站的文章。",
		Dateline:    "本文最初由样例新闻于 2026 年 3 月 3 日发表，经许可转载。",
		PrintHeader: "样例新闻（打印版）", PrintBack: "返回原文",
	},
}

// link is one <a> of a template.
type link struct {
	Href, Text, Note string
}

// articleData fills the "article", "print" and "syndicated" templates.
type articleData struct {
	L           labels
	MetaCharset string // "" = no <meta> charset declaration
	Title       string
	Paras       []string
	PrintHref   string // "" = no print link
	Related     []link
	Canonical   string // print view: the article's path
}

// homeData fills the "home" template.
type homeData struct {
	L        labels
	Sections []section
}

type section struct {
	Heading string
	Links   []link
}

// listingData fills the "listing" template.
type listingData struct {
	L       labels
	Title   string
	Intro   string
	Entries []link
}

// calendarData fills the "calendar" template.
type calendarData struct {
	L          labels
	Month      string // "March 2026"
	Prev, Next string // "" = none
}

var templates = template.Must(template.New("").Parse(`
{{define "head"}}<!DOCTYPE html>
<html lang="{{.L.Lang}}">
<head>
{{if eq .MetaCharset "utf-8"}}<meta charset="utf-8">{{else if .MetaCharset}}<meta http-equiv="Content-Type" content="text/html; charset={{.MetaCharset}}">{{end}}
{{- end}}

{{define "nav"}}<header>
<p class="site">{{.L.Site}} · {{.L.Tagline}}</p>
<nav><a href="/index.html">{{.L.Home}}</a> | <a href="/intro/">{{.L.Intros}}</a> | <a href="/calendar?month=1">{{.L.Events}}</a></nav>
</header>{{end}}

{{define "footer"}}<footer>
<p>{{.L.Footer}} <a href="https://www.debian.org/doc/manuals/debian-faq/">Debian FAQ</a></p>
</footer>{{end}}

{{define "article"}}{{template "head" .}}
<title>{{.Title}}</title>
</head>
<body>
{{template "nav" .}}
<main>
<article>
<h1>{{.Title}}</h1>
{{range .Paras}}<p>{{.}}</p>
{{end}}</article>
{{if .PrintHref}}<nav class="tools"><a href="{{.PrintHref}}">{{.L.Print}}</a></nav>{{end}}
</main>
{{if .Related}}<nav class="related">
<h2>{{.L.Related}}</h2>
<ul>
{{range .Related}}<li><a href="{{.Href}}">{{.Text}}</a></li>
{{end}}</ul>
</nav>{{end}}
{{template "footer" .}}
</body>
</html>
{{end}}

{{define "print"}}{{template "head" .}}
<title>{{.Title}}</title>
<style>body { font-family: serif; max-width: 40em; }</style>
</head>
<body class="print">
<header><p class="print-header">{{.L.PrintHeader}}</p></header>
<h1>{{.Title}}</h1>
{{range .Paras}}<p>{{.}}</p>
{{end}}<footer><p><a href="{{.Canonical}}">{{.L.PrintBack}}</a></p></footer>
</body>
</html>
{{end}}

{{define "syndicated"}}{{template "head" .}}
<title>{{.Title}} | {{.L.Partner}}</title>
</head>
<body class="partner">
<header>
<div class="masthead">{{.L.Partner}}</div>
<nav><a href="/index.html">{{.L.Home}}</a></nav>
</header>
<main>
<article>
<h1>{{.Title}}</h1>
<p class="dateline">{{.L.Dateline}}</p>
{{range .Paras}}<p>{{.}}</p>
{{end}}</article>
</main>
<footer><p>{{.L.PartnerFooter}}</p></footer>
</body>
</html>
{{end}}

{{define "home"}}<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Sample News</title>
</head>
<body>
{{template "nav" .}}
<main>
<h1>Sample News</h1>
<p><img src="/images/logo.png" alt="Sample News logo"> Articles in English and Chinese, with their copies elsewhere on the web.</p>
{{range .Sections}}<section>
<h2>{{.Heading}}</h2>
<ul>
{{range .Links}}<li><a href="{{.Href}}">{{.Text}}</a>{{if .Note}} {{.Note}}{{end}}</li>
{{end}}</ul>
</section>
{{end}}</main>
{{template "footer" .}}
</body>
</html>
{{end}}

{{define "listing"}}<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>{{.Title}}</title>
</head>
<body>
{{template "nav" .}}
<main>
<h1>{{.Title}}</h1>
<p>{{.Intro}}</p>
<ol>
{{range .Entries}}<li><a href="{{.Href}}">{{.Text}}</a>: {{.Note}}</li>
{{end}}</ol>
</main>
{{template "footer" .}}
</body>
</html>
{{end}}

{{define "calendar"}}<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Events: {{.Month}}</title>
</head>
<body>
{{template "nav" .}}
<main>
<h1>Events calendar</h1>
<p>No events are scheduled for {{.Month}}.</p>
<nav class="pager">{{if .Prev}}<a href="{{.Prev}}">Previous month</a> {{end}}<a href="{{.Next}}">Next month</a></nav>
</main>
{{template "footer" .}}
</body>
</html>
{{end}}
`))
