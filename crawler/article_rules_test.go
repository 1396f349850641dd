package crawler

import (
	"net/url"
	"strconv"
	"strings"
	"testing"
)

// extractPage extracts page as served from rawURL and checks that its
// text holds every want and none of bad.
func extractPage(t *testing.T, rawURL, page string, want, bad []string) *Document {
	t.Helper()
	u, _ := url.Parse(rawURL)
	d, err := Extract([]byte(page), "text/html", false, u)
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range want {
		if !strings.Contains(d.Text, w) {
			t.Errorf("Text lacks %q:\n%s", w, d.Text)
		}
	}
	for _, b := range bad {
		if strings.Contains(d.Text, b) {
			t.Errorf("Text keeps %q:\n%s", b, d.Text)
		}
	}
	return d
}

// A class name that joins a content word and a widget word names the
// widget part of the content block ("article-copyright" from spiegel.de,
// "post-author"): it is left out, while "article-body" is kept.
func TestExtractCompoundClassNames(t *testing.T) {
	page := `<html><head><meta property="og:type" content="article"></head><body><div class="article-section">
<div class="article-body">` + para("Story", 0, 3) + para("Story", 1, 3) + `</div>
<div class="article-copyright">
                <p>
                    <strong>DER SPIEGEL&nbsp;52/2018</strong><br/>
                    Alle Rechte vorbehalten<br/>
                    Vervielfältigung nur mit Genehmigung
                </p>
            </div>
<section class="post-author clearfix"><p>Jane Doe writes about money and markets for the site, and has done so since 2015.</p></section>
</div></body></html>`
	extractPage(t, "https://news.example/story", page,
		[]string{"Story sentence a of paragraph A", "Story sentence c of paragraph B"},
		[]string{"Vervielfältigung", "Alle Rechte vorbehalten", "Jane Doe writes"})
}

// A heading's id is an anchor named after its text (Asciidoctor writes
// <h3 id="main-window-toolbar">, KiCad's manuals): it says nothing of
// what the heading is, and the heading is kept.
func TestExtractHeadingIDsAreAnchors(t *testing.T) {
	page := `<html><body><div id="header"><h1>Page Layout Editor</h1></div><div id="content">
<div class="sect2"><h3 id="main-screen">7.1. Main Screen</h3>` + para("Screen", 0, 3) + `</div>
<div class="sect2"><h3 id="main-window-toolbar">7.2. Main Window Toolbar</h3>` + para("Toolbar", 1, 3) + `</div>
<div class="sect2"><h3 id="status-bar">7.3. Status Bar</h3>` + para("Status", 2, 3) + `</div>
</div></body></html>`
	extractPage(t, "https://docs.example/pl_editor.html", page,
		[]string{"7.2. Main Window Toolbar", "Toolbar sentence a", "7.3. Status Bar"}, nil)
}

// A side column (id "sidebar", a WordPress theme's text widgets) is not
// the article however much prose it holds; DocBook's boxed note in the
// text, class "sidebar" alone, is kept.
func TestExtractSidebar(t *testing.T) {
	page := `<html><head><meta property="og:type" content="article"></head><body><div id="wrapper">
<div class="content"><div id="post-27529" class="post-27529 post type-post status-publish">` + para("Story", 0, 1) + para("Story", 1, 1) + `
<div class="sidebar"><p class="title"><strong>CULTURE The name</strong></p>` + para("Boxed", 2, 1) + `</div></div></div>
<div id="sidebar"><div id="text-3" class="widget block widget_text sidebar-box"><h3>Haftungsbeschränkung für externe Links</h3>
<div class="textwidget"><p>Widget: Links, Seiten, Inhalte, Betreiber, Haftung, Verantwortung, Prüfung, Zeitpunkt, Verlinkung, Rechtsverstöße, Kenntnis, Entfernung.</p></div></div></div>
</div></body></html>`
	extractPage(t, "https://blog.example/post", page,
		[]string{"Story sentence a of paragraph A", "Story sentence a of paragraph B", "Boxed sentence a"},
		[]string{"Haftungsbeschränkung", "Widget:"})
}

// A comment section named in the page's language ("kommentare",
// petri-heil.ch; "commentaires", "comentarios") is left out as one named
// "comments" is.
func TestExtractCommentsNamedInOtherLanguages(t *testing.T) {
	page := `<html><head><meta property="og:type" content="article"></head><body><main>
<section class="article">` + para("Story", 0, 3) + para("Story", 1, 3) + `</section>
<section class="kommentare" id="kommentare"><div ><h2>0 Kommentare</h2><hr><p>Keine Kommentare
(Kommentare erscheinen erst nach unserer Freigabe)</p><hr></div></section>
<div id="commentaires"><p>Jean, le 3 mars : merci pour cet article, très utile pour la pêche.</p></div>
</main></body></html>`
	extractPage(t, "https://fish.example/hechte", page,
		[]string{"Story sentence a of paragraph A", "Story sentence c of paragraph B"},
		[]string{"Kommentare", "merci pour cet article"})
}

// The article's description just before its marked body (schema.org
// itemprop=description, TYPO3's news pages: its standfirst) is kept with
// the body, unless it only repeats the body's opening cut short.
func TestExtractDescriptionBeforeArticleBody(t *testing.T) {
	page := `<html><body><div class="news news-single"><div class="article" itemscope itemtype="http://schema.org/Article">
<div class="header"><h3 itemprop="headline">Klimasystem</h3></div>
<div class="teaser-text" itemprop="description"><p>Die frühen 1970er Jahre werden oft mit der Entstehung der modernen Umweltbewegung in Verbindung gebracht.</p></div>
<div class="news-text-wrap" itemprop="articleBody">` + para("Body", 0, 3) + para("Body", 1, 3) + `</div>
</div></div></body></html>`
	extractPage(t, "https://www.mpimet.de/kommunikation/aktuelles/news", page,
		[]string{"Die frühen 1970er Jahre", "Body sentence c of paragraph B"}, nil)
	dup := `<html><body><div itemscope itemtype="http://schema.org/Article">
<p itemprop="description">Good morning! This is the tech news you need to...</p>
<div itemprop="articleBody"><p>Good morning! This is the tech news you need to know this Tuesday.</p>` + para("Body", 0, 4) + `</div>
</div></body></html>`
	d := extractPage(t, "https://news.example/10-things", dup, []string{"Body sentence a"}, []string{"need to..."})
	if strings.Count(d.Text, "Good morning!") != 1 {
		t.Errorf("Text repeats the opening:\n%s", d.Text)
	}
}

// A date standing alone, not inside a sentence (tagesanzeiger.ch's
// <time>Aktualisiert: …</time>, sueddeutsche.de's "05:28 Uhr"), is left
// out; a date inside a sentence is kept.
func TestExtractStandaloneDates(t *testing.T) {
	page := `<html><head><meta property="og:type" content="article"></head><body><main><article class="article-container">
<h1>Umweltzerstörung</h1><time class="FullDateTime_root__35h8M full-date-time" dateTime="2020-04-03T10:35:41.085Z">Publiziert: 03.04.2020, 12:35</time>
<div class="content-head"><span><time class="last-updated-date-time">Aktualisiert: 11.04.2020</time> <time class="timeformat">05:28 Uhr</time></span></div>
<div class="article-body">` + para("Story", 0, 3) + `<p>Die Versammlung am <time datetime="2020-03-01">1. März 2020</time> beschloss das Verbot, nach langer Debatte.</p>` + para("Story", 1, 3) + `</div>
</article></main></body></html>`
	extractPage(t, "https://www.tagesanzeiger.ch/umweltzerstoerung", page,
		[]string{"Story sentence a of paragraph A", "Die Versammlung am 1. März 2020 beschloss"},
		[]string{"Publiziert", "03.04.2020", "Aktualisiert", "05:28"})
}

// Rating boxes, "sociable" share bars, buttons and WordPress's
// postmetadata line are widgets, not the article.
func TestExtractRatingButtonsPostmetadata(t *testing.T) {
	page := `<html><head><meta property="og:type" content="article"></head><body><div id="content"><div class="entry">` +
		para("Story", 0, 3) + para("Story", 1, 3) + `
<div class="rating-container"><span>Bewerten Sie dieses Produkt</span></div>
<div class="sociable"><div class="sociable_tagline"><strong>Be Sociable, Share!</strong></div></div>
<div class="wpzoom-recipe-card-buttons"><a class="wpzoom-recipe-snippet-button" href="#print">Print Recipe</a></div>
<div class="postmetadata">Erstellt am Dienstag 6. Mai 2014 von Anna</div>
</div></div></body></html>`
	extractPage(t, "https://blog.example/post", page,
		[]string{"Story sentence a of paragraph A", "Story sentence c of paragraph B"},
		[]string{"Bewerten", "Sociable", "Print Recipe", "Erstellt am"})
}

// Photo credits in other languages and picture agencies' names are left
// out; a sentence naming an agency is kept.
func TestExtractCreditLines(t *testing.T) {
	for _, s := range []string{"foto: www.k-einbruch.de", "quelle: deutscher jagdverband (djv)", "crédits photos : bestimage", "Źródło: eurostat",
		"afp / marco bertorello", "istock.com", "© dpa", "fuente: efe"} {
		if !creditLine.Match([]byte(s)) {
			t.Errorf("%q is not a credit line", s)
		}
	}
	for _, s := range []string{"ap reported on tuesday that the talks had failed.", "quellen und literatur", "fotografie ist eine kunst"} {
		if creditLine.Match([]byte(s)) {
			t.Errorf("%q is a credit line", s)
		}
	}
	page := `<html><head><meta property="og:type" content="article"></head><body><div class="article-content">` +
		para("Story", 0, 3) + `<p><em>Quelle: Deutscher Jagdverband (DJV)</em></p><p class="imagedescription">AFP / MARCO BERTORELLO</p>` +
		`<p>Reuters und AFP berichteten am Dienstag, die Gespräche seien gescheitert.</p>` + para("Story", 1, 3) + `</div></body></html>`
	extractPage(t, "https://news.example/story", page,
		[]string{"Story sentence a of paragraph B", "Reuters und AFP berichteten"},
		[]string{"Quelle:", "BERTORELLO"})
}

// The section headings added for German, Spanish and Chinese sites open
// a cut through their first-word gate; a content heading does not.
func TestCutPhrasesMore(t *testing.T) {
	for _, s := range []string{"weitere informationen:", "weitere pressemitteilungen dieses verbands", "mehr themen:", "mehr kolumnen",
		"mehr interessantes", "empfehlungen aus der redaktion", "lust auf mehr?", "lo Último", "lo ultimo", "más noticias", "热门推荐", "相关阅读"} {
		if !cutPhraseIntl.Match([]byte(s)) {
			t.Errorf("%q does not match", s)
		}
	}
	for _, s := range []string{"weitere schritte", "mehr als ein jahr", "lo que pasó", "热门话题的讨论"} {
		if cutPhraseIntl.Match([]byte(s)) {
			t.Errorf("%q matches", s)
		}
	}
	page := `<html><head><meta property="og:type" content="article"></head><body><div class="story">` + para("Story", 0, 3) + para("Story", 1, 3) +
		`<h2>Empfehlungen aus der Redaktion</h2><ul><li><a href="/a">Mit dem Rad über die Alpen</a></li><li><a href="/b">Zehn Touren im Harz</a></li></ul></div></body></html>`
	extractPage(t, "https://bike.example/story", page, []string{"Story sentence c of paragraph B"}, []string{"Empfehlungen", "Alpen"})
}

// A short paragraph that is the site's call to action (subscribe,
// follow us, support us, join) is left out; a sentence about support or
// following instructions is not a pitch.
func TestExtractPitch(t *testing.T) {
	page := `<html><head><meta property="og:type" content="article"></head><body><div class="entry-content">` +
		para("Story", 0, 3) + `<p>“In the areas of the business that do not directly support our core business goals, we have to make some necessary job eliminations,” Claure said.</p>
<p>And follow the instructions on the screen, then press the number of the option.</p>` + para("Story", 1, 3) + `
<p><strong>Subscribe now to our eNATION edition for the full story.</strong></p>
<p>Follow The Gleaner on Twitter and Instagram @JamaicaGleaner and on Facebook @GleanerJamaica.</p>
<p><strong>HAZTE MIEMBRO Y DISFRUTA DE BENEFICIOS EXCLUSIVOS</strong> Hacemos periodismo desde hace 106 años.</p>
</div></body></html>`
	extractPage(t, "https://news.example/story", page,
		[]string{"support our core business goals", "follow the instructions on the screen", "Story sentence c of paragraph B"},
		[]string{"eNATION", "Follow The Gleaner", "HAZTE MIEMBRO"})
}

// A heading whose id names comments is the comment section's title
// (thenervousbreakdown.com's <h3 id="comments">), not an anchor.
func TestExtractCommentsHeadingID(t *testing.T) {
	page := `<html><head><meta property="og:type" content="article"></head><body><div class="eight columns">` +
		para("Story", 0, 3) + para("Story", 1, 3) + `<h3 id="comments">4 responses to “The Loneliest Woman in the World”</h3></div></body></html>`
	extractPage(t, "https://blog.example/loneliest", page, []string{"Story sentence c of paragraph B"}, []string{"responses to"})
}

// Photo captions named "legend" (vogelwarte.ch's div.legend) or in
// German (Bildunterschrift, Bilduntertitel) are left out as "caption" is.
func TestExtractCaptionWords(t *testing.T) {
	page := `<html><head><meta property="og:type" content="article"></head><body><div id="content">` + para("Story", 0, 3) +
		`<div class="rightImageHighslide"><img src="/k.jpg"><div class="legend"><div class="content">Kastanienselven beispielsweise bieten dem Hirschkäfer Lebensraum.</div></div></div>` +
		para("Story", 1, 3) + `<h5 class="bilduntertitel">Rund um Wurzeln lagert sich Eisen ab.</h5>` + para("Story", 2, 3) + `</div></body></html>`
	extractPage(t, "https://www.vogelwarte.ch/aktionsplan", page,
		[]string{"Story sentence a of paragraph B", "Story sentence c of paragraph C"}, []string{"Kastanienselven", "Rund um Wurzeln"})
}

// "Subscribe to the … mailing list" in a manual is an instruction, not
// the site's pitch (Debian Edu's manual).
func TestExtractPitchNotInstructions(t *testing.T) {
	page := `<html><head><meta property="og:type" content="article"></head><body><div class="section">` + para("Manual", 0, 3) +
		`<p>Another way to stay informed about security updates is to subscribe to the debian-security-announce mailing list.</p>` +
		para("Manual", 1, 3) + `</div></body></html>`
	extractPage(t, "https://wiki.example/manual", page, []string{"subscribe to the debian-security-announce"}, nil)
}

// German "read also" headings ("Lesen Sie auch die folgenden Beiträge:",
// "Das Thema könnte dich auch interessieren:", "Noch mehr Infos für
// dich") open a cut.
func TestCutPhrasesGermanPointers(t *testing.T) {
	for _, s := range []string{"lesen sie auch die folgenden beiträge:", "das thema könnte dich auch interessieren:", "noch mehr infos für dich"} {
		if !cutPhraseIntl.Match([]byte(s)) {
			t.Errorf("%q does not match", s)
		}
	}
	if cutPhraseIntl.Match([]byte("noch mehr regen am montag")) {
		t.Errorf("a plain sentence matches")
	}
}

// An <address> in an article is its author's or the page's contact
// (diakonie.de's press contact), not the article's text.
func TestExtractAddress(t *testing.T) {
	page := `<html><head><meta property="og:type" content="article"></head><body><div class="story">` + para("Story", 0, 3) + para("Story", 1, 3) +
		`<address class="address"><p class="name">Kathrin Klinkusch</p><p>Pressesprecherin, Caroline-Michaelis-Straße 1, 10115 Berlin</p></address></div></body></html>`
	extractPage(t, "https://www.diakonie.de/lebensgefuehl", page, []string{"Story sentence c of paragraph B"}, []string{"Klinkusch", "10115 Berlin"})
}

// A link standing alone that is a widget's label ("Zurück nach oben",
// dtb-tennis.de; "View comments") is left out; the same words inside a
// sentence are kept.
func TestExtractLabelLinks(t *testing.T) {
	page := `<html><head><meta property="og:type" content="article"></head><body><div class="chcontent span8">` + para("Story", 0, 3) + para("Story", 1, 3) +
		`<p>Wer mehr will, klickt <a href="#top">zurück nach oben</a> und liest von vorn.</p>` +
		`<a class="scroll-top" href="#top"><span>Zurück nach oben</span></a><div><small><a href="#c">View Comments</a></small></div></div></body></html>`
	d := extractPage(t, "https://www.dtb-tennis.de/nominiert", page, []string{"klickt zurück nach oben und liest"}, []string{"View Comments"})
	if strings.Contains(d.Text, "Zurück nach oben") {
		t.Errorf("Text keeps the label link:\n%s", d.Text)
	}
}

// A short line that opens with an ad label set off by punctuation is the
// site's disclosure ("- Anzeige-", "*Werbung. Dieser Beitrag enthält
// Werbung für…"); a heading about advertising is not.
func TestExtractAdLabels(t *testing.T) {
	for _, s := range []string{"- anzeige-", "*werbung. dieser beitrag enthält werbung für mymarini.", "anzeige, enthält affiliate links", "sponsored – by acme", "advertisement:"} {
		if !adLabel([]byte(s)) {
			t.Errorf("%q is not an ad label", s)
		}
	}
	for _, s := range []string{"werbung im internet", "anzeigen und formulare", "sponsored content rules changed in 2020"} {
		if adLabel([]byte(s)) {
			t.Errorf("%q is an ad label", s)
		}
	}
	page := `<html><head><meta property="og:type" content="article"></head><body><div class="entry-content"><p><em>*Werbung. Dieser Beitrag enthält Werbung für MYMARINI.</em></p>` +
		para("Story", 0, 3) + `<h2>Werbung im Internet</h2>` + para("Story", 1, 3) + `<div class="sqrpara"><center>- Anzeige-</center></div></div></body></html>`
	extractPage(t, "https://blog.example/post", page, []string{"Werbung im Internet", "Story sentence c of paragraph B"}, []string{"Dieser Beitrag enthält", "- Anzeige-"})
}

// A camel-cased class name is words too: "commentArea" names a comments
// block as "comment-area" does, and of a page's <article>s the one the
// comments fill is not the story (dragnet's nbcnews pages: the comments'
// <article> holds more text than the story's). A long generated name
// (ASP.NET's "WcmsPageWideBannerPlaceHolder") is not read as words: its
// "Banner" does not make the page's wrapper a widget.
func TestExtractCamelCaseNamesAndCommentArticles(t *testing.T) {
	var comments strings.Builder
	for i := range 12 {
		comments.WriteString(`<div class="commentBody">` + para("Comment", i, 12) + `</div>`)
	}
	page := `<html><body><div class="PageWideBannerPlaceHolder"><div class="chromeViewport">
<article class="textPost"><div class="postBody">` + para("Story", 0, 3) + para("Story", 1, 3) + para("Story", 2, 3) + `</div></article>
<article class="commentArea"><div class="postComments">` + comments.String() + `</div></article>
</div></div></body></html>`
	extractPage(t, "https://news.example/story", page,
		[]string{"Story sentence a of paragraph A", "Story sentence c of paragraph C"},
		[]string{"Comment sentence"})
}

// A <form> that wraps the page (ASP.NET's one form around the body) is
// the page's container, not a widget (skip keeps a form of 500 characters
// or more); a search form stays left out.
func TestExtractPageWrappingForm(t *testing.T) {
	page := `<html><body><div id="top"><form action="/search"><input name="q"> Search the site for news</form></div>
<form name="Form1" method="post" action="303989.aspx" id="Form1"><input type="hidden" name="__VIEWSTATE" value="x">
<div id="contentArea"><h1>Oil prices</h1>` + para("Story", 0, 3) + para("Story", 1, 3) + para("Story", 2, 3) + `</div></form></body></html>`
	extractPage(t, "https://news.example/303989.aspx", page,
		[]string{"Story sentence a of paragraph A", "Story sentence c of paragraph C"},
		[]string{"Search the site"})
}

// A <title> never closed swallows the page (to a browser the page is all
// title; L3S-GN1 has such pages): the text is read as if the tag were not
// there.
func TestExtractUnclosedTitle(t *testing.T) {
	page := `<html><head><title>Bush to Saudis: More Oil Please</titlevalue="true" -->
</head><body><div id="nav"><a href="/">Home</a></div><div id="story">` + para("Story", 0, 3) + para("Story", 1, 3) + para("Story", 2, 3) + para("Story", 3, 3) + para("Story", 4, 3) + `</div></body></html>`
	d := extractPage(t, "https://news.example/oil", page,
		[]string{"Story sentence a of paragraph A", "Story sentence c of paragraph E"},
		[]string{"<div"})
	if !strings.Contains(string(d.HTML), "<title>") {
		t.Errorf("the stored HTML lost its <title> tag")
	}
}

// A long generated class name (ASP.NET's "WcmsPageWideBannerPlaceHolder")
// is not read as camel-cased words: its "Banner" does not make the block
// holding the story a widget (simmentalzeitung.ch in trafilatura's set).
func TestExtractLongGeneratedNames(t *testing.T) {
	var links strings.Builder
	for i := range 60 {
		links.WriteString(`<li><a href="/s/` + strconv.Itoa(i) + `">Section number ` + strconv.Itoa(i) + ` of the site with its own long name</a></li>`)
	}
	page := `<html><head><meta property="og:type" content="article"></head><body><div class="siteMap"><ul>` + links.String() + `</ul></div>
<div id="notice"><p>We use small files on this site, and by using it you agree to that, as the notice says.</p></div>
<div class="WcmsPageWideBannerPlaceHolder"><div class="StoryShowBox">` + para("Story", 0, 3) + para("Story", 1, 3) + para("Story", 2, 3) + `</div></div></body></html>`
	extractPage(t, "https://news.example/story", page,
		[]string{"Story sentence a of paragraph A", "Story sentence c of paragraph C"}, nil)
}

// A cookie or consent dialog is never the article, however long its
// privacy notice: words that begin with "cookie" or "consent"
// ("cmplz-cookiebanner") and consent managers' names ("sp-dsgvo") name it
// (hildesheimer-presse.de and meininger.de in trafilatura's set).
func TestExtractConsentDialogs(t *testing.T) {
	notice := para("Privacy", 0, 6) + para("Privacy", 1, 6) + para("Privacy", 2, 6) + para("Privacy", 3, 6)
	for _, dialog := range []string{
		`<div id="cmplz-cookiebanner-container"><div class="cmplz-cookiebanner banner-1 optin">` + notice + `</div></div>`,
		`<div class="sp-dsgvo sp-dsgvo-popup-overlay"><div id="sp-dsgvo-privacy-content" class="sp-dsgvo-privacy-content">` + notice + `</div></div>`,
		`<div id="site-cookienotice">` + notice + `</div>`,
		`<div id="CybotCookiebotDialog">` + notice + `</div>`,
	} {
		page := `<html><head><meta property="og:type" content="article"></head><body>` + dialog + `
<div class="site"><div class="entry">` + para("Story", 0, 3) + para("Story", 1, 3) + `</div></div></body></html>`
		extractPage(t, "https://news.example/story", page,
			[]string{"Story sentence a of paragraph A", "Story sentence c of paragraph B"},
			[]string{"Privacy sentence"})
	}
}

// A <header> left open takes in the rest of the page (the parser nests
// the content in it): holding most of the page's text, it is read as a
// wrapper, not the page's header (reisen-mit-dem-internet.de in
// trafilatura's set); a page's real header stays out.
func TestExtractHeaderWrappingPage(t *testing.T) {
	page := `<html><body><div id="page"><header id="branding"><div class="row"><a href="/">Travel Site</a> Your guide to the coast</div>
<div id="wrap"><h1>Emden</h1>` + para("Story", 0, 3) + para("Story", 1, 3) + para("Story", 2, 3) + `</div>
<footer id="colophon">Imprint and privacy</footer></div></body></html>`
	extractPage(t, "https://travel.example/emden", page,
		[]string{"Story sentence a of paragraph A", "Story sentence c of paragraph C"}, nil)
	page2 := `<html><body><header><a href="/">Travel Site</a> Your guide to the coast and the islands of the north</header>
<div id="wrap"><h1>Emden</h1>` + para("Story", 0, 3) + para("Story", 1, 3) + para("Story", 2, 3) + `</div></body></html>`
	extractPage(t, "https://travel.example/emden", page2,
		[]string{"Story sentence a of paragraph A"}, []string{"Your guide to the coast"})
}

// A short blog post (a photo and two lines) scores too little to stand
// out among the blog's side columns, and the page says nothing of being
// an article; the best block lies inside an element its class or id names
// a post (hAtom's hentry, WordPress's post-123), so it is the content and
// the columns (an "About me" text, a blogroll, an archive) go. A page
// without that markup (a manual's) keeps its whole body.
func TestExtractShortBlogPost(t *testing.T) {
	layout := func(post, entry string) string {
		var b strings.Builder
		b.WriteString(`<html><body><div id="wrap"><div id="content"><div ` + post + `><h2 class="entry-title">Autumn walk</h2>
<div class="` + entry + `"><p><img src="leaves.jpg"></p><p>We walked along the river today, and the leaves were red, gold and brown.</p></div></div></div>
<div id="side"><div class="about"><h3>About me</h3><p>Jane lives by the river and writes here about her walks and her garden.</p></div><ul class="blogroll">`)
		for i := range 12 {
			b.WriteString(`<li><a href="/friend` + string(rune('a'+i)) + `">Friend blog ` + string(rune('a'+i)) + `</a></li>`)
		}
		b.WriteString(`</ul><ul class="archive"><li><a href="/2012/11">November 2012</a></li><li><a href="/2012/10">October 2012</a></li></ul></div></div></body></html>`)
		return b.String()
	}
	extractPage(t, "https://blog.example/2012/11/autumn-walk", layout(`id="post-52" class="post-52 post type-post hentry"`, "entry-content"),
		[]string{"We walked along the river today"},
		[]string{"Jane lives by the river", "Friend blog", "November 2012"})
	extractPage(t, "https://docs.example/walks.html", layout(`class="section"`, "para"),
		[]string{"We walked along the river today", "Jane lives by the river"}, nil)
}

// A page whose <body> class says it shows one post (WordPress's
// "single-post postid-7", Drupal's "node-type-blog") is the post's, as one
// that declares og:type article is, even when the page is mostly link
// columns (blogroll, archive) and no block stands out by the scores. A
// page of the same shape whose body says nothing (a manual beside its
// index) keeps its whole body.
func TestExtractPostAmongLinkColumns(t *testing.T) {
	layout := func(body string) string {
		var b strings.Builder
		b.WriteString(`<html><body` + body + `><div id="wrap"><div id="main"><h2>Thirsty Thursday</h2><div class="inner">` +
			para("Story", 0, 3) + para("Story", 1, 3) + para("Story", 2, 3) + `</div></div><div id="side"><p>Jane lives by the river and writes here.</p><ul>`)
		for i := range 400 { // the page is links (link density over leads's 0.8)
			b.WriteString(`<li><a href="/f` + string(rune('a'+i%26)) + `">Friend blog number ` + string(rune('a'+i%26)) + `</a></li>`)
		}
		b.WriteString(`</ul></div></div></body></html>`)
		return b.String()
	}
	for _, body := range []string{` class="single single-post postid-7"`, ` class="not-front page-node node-type-blog two-sidebars"`} {
		extractPage(t, "https://blog.example/2012/08/thirsty", layout(body),
			[]string{"Story sentence a of paragraph A", "Story sentence c of paragraph C"},
			[]string{"Jane lives by the river", "Friend blog number"})
	}
	// without a post-named element or a one-post <body>, a story on a page
	// of links is taken by leads (TestExtractStoryAmongLinkColumns)
}

// A page that marks only its article's opening paragraph as the
// articleBody (itemprop on the first <p>, the New York Times of 2012)
// keeps the paragraphs that follow it: the mark lies inside the best
// block with less than half its text.
func TestExtractArticleBodyOnOneParagraph(t *testing.T) {
	p0 := strings.Replace(para("Story", 0, 5), "<p>", `<p itemprop="articleBody">`, 1)
	page := `<html><head><meta property="og:type" content="article"></head><body><div id="article"><h1>Charges seen as chill</h1>
<div class="articleBody">` + p0 + para("Story", 1, 3) + para("Story", 2, 3) + para("Story", 3, 3) + `</div></div>
<div id="footer"><a href="/">Home</a></div></body></html>`
	extractPage(t, "https://news.example/2012/07/24/charges.html", page,
		[]string{"Story sentence a of paragraph A", "Story sentence c of paragraph D"}, nil)
}

// Blocks inside an inline element (a <span class="component-wrapper">
// around the comment section, a <font> around a post's divs; the parser
// keeps a <div> inside a <span>) are judged as blocks: the comments go.
func TestExtractBlocksInsideInline(t *testing.T) {
	page := `<html><head><meta property="og:type" content="article"></head><body><div id="wrapper"><div id="box"><div id="content">` +
		para("Story", 0, 3) + para("Story", 1, 3) + para("Story", 2, 3) + `</div>
<span class="component-wrapper"><div class="discussion content-comment-list"><div id="discussion-comments">` +
		para("Reader", 0, 3) + para("Reader", 1, 3) + para("Reader", 2, 3) + para("Reader", 3, 3) + `</div></div></span></div></div></body></html>`
	extractPage(t, "https://news.example/2012/nov/01/sandy", page,
		[]string{"Story sentence a of paragraph A", "Story sentence c of paragraph C"},
		[]string{"Reader sentence"})
}

// A blog post on a page that is mostly link columns, its body saying
// nothing: the best block (the post's header and its entry) holds nearly
// all of the page's prose but not most of its text, and an element in it
// is named an entry, so it is the content.
func TestExtractEntryAmongLinkColumns(t *testing.T) {
	layout := func(entry string) string {
		var b strings.Builder
		b.WriteString(`<html><body><div id="wrap"><div id="main"><div class="head"><h2>Thirsty Thursday</h2>` + para("Standfirst", 0, 2) + `</div><div class="` + entry + `">` +
			para("Story", 0, 2) + para("Story", 1, 2) + para("Story", 2, 2) + `</div></div><div id="side"><p>Jane lives by the river and writes here.</p><ul>`)
		for i := range 400 { // the page is links (link density over leads's 0.8)
			b.WriteString(`<li><a href="/f` + string(rune('a'+i%26)) + `">Friend blog number ` + string(rune('a'+i%26)) + `</a></li>`)
		}
		b.WriteString(`</ul></div></div></body></html>`)
		return b.String()
	}
	extractPage(t, "https://blog.example/2012/08/thirsty", layout("entry"),
		[]string{"Standfirst sentence a", "Story sentence a of paragraph A", "Story sentence b of paragraph C"},
		[]string{"Jane lives by the river", "Friend blog number"})
}

// A block whose class is "hidden" (the CSS frameworks' display:none) is
// not shown: a story page that keeps a hidden copy of its opening for
// another kind of reader beside the shown one (the Wall Street Journal's
// preview) has it once. "hidden-xs" is shown on other screens and kept.
func TestExtractHiddenClass(t *testing.T) {
	story := `<h3 class="byline">BY AARON BACK</h3>` + para("Story", 0, 3) + para("Story", 1, 3)
	page := `<html><head><meta property="og:type" content="article"></head><body><div class="col"><article>
<div class="article story hidden">` + story + `</div>
<div class="article story">` + story + `<p class="hidden-xs">Shown on larger screens, with commas, words and more words to read here.</p></div>
</article></div></body></html>`
	d := extractPage(t, "https://news.example/article/SB1000.html", page,
		[]string{"Story sentence a of paragraph A", "Shown on larger screens"}, nil)
	if k := strings.Count(d.Text, "Story sentence a of paragraph A"); k != 1 {
		t.Errorf("the story's text is there %d times, want 1:\n%s", k, d.Text)
	}
}

// linkColumn is a column of n headline links, as the news sites of the
// 2000s framed their stories with.
func linkColumn(name string, n int) string {
	var b strings.Builder
	b.WriteString(`<div><ul>`)
	for i := 0; i < n; i++ {
		b.WriteString(`<li><a href="/` + name + `/` + string(rune('a'+i%26)) + `.html">` + name + ` headline number ` + string(rune('a'+i%26)) + ` of the section</a></li>`)
	}
	b.WriteString(`</ul></div>`)
	return b.String()
}

// A story on a page that is mostly links (menus and headline columns
// around it, no og:type, no <article>), whose best block holds most of the
// page's prose but not all (a teaser in the side column), is the page's
// text: the columns go, the links inside the story's block stay.
func TestExtractStoryAmongLinkColumns(t *testing.T) {
	page := `<html><body><div id="top">` + linkColumn("Nav", 12) + `</div>
<div id="left">` + linkColumn("Sports", 12) + `</div>
<div id="center"><div id="c1"><h2>Council votes on the budget</h2>` + para("Story", 0, 3) + para("Story", 1, 3) + para("Story", 2, 3) + para("Story", 3, 3) + `
<p>See also: <a href="/budget.html">the budget</a></p></div></div>
<div id="right">` + linkColumn("Business", 12) + `<div><p>Teaser of another story, with commas, and a line of text to read on. <a href="/x.html">More</a></p></div></div>
<div id="bottom">` + linkColumn("Foot", 8) + `</div></body></html>`
	extractPage(t, "https://news.example/2008/budget.html", page,
		[]string{"Story sentence a of paragraph A", "Story sentence c of paragraph C", "See also: the budget"},
		[]string{"Sports headline", "Business headline", "Teaser of another story", "Nav headline", "Foot headline"})
}

// A discussion longer than the story (a comment section, named so) does
// not make the story one block among many: the comments are the site's,
// and the story's share of the page's prose is reckoned without them, so
// the side column around it goes.
func TestExtractStoryShareWithoutComments(t *testing.T) {
	var comments strings.Builder
	for i := 0; i < 6; i++ {
		comments.WriteString(`<div class="comment">` + para("Reader", i, 3) + `</div>`)
	}
	page := `<html><body><div id="top">` + linkColumn("Nav", 6) + `</div>
<div id="s1">` + para("Story", 0, 3) + para("Story", 1, 3) + `</div>
<div id="comments">` + comments.String() + `</div>
<div id="right">` + linkColumn("Business", 8) + `<div><p>Teaser of another story, with commas, and a line of text to read on. <a href="/x.html">More</a></p></div></div>
</body></html>`
	extractPage(t, "https://news.example/2008/council.html", page,
		[]string{"Story sentence a of paragraph A", "Story sentence c of paragraph B"},
		[]string{"Reader sentence", "Teaser of another story", "Nav headline"})
}

// On a page of a news site's template (a quarter of its text or more in
// links), a story whose block holds less than half the page's prose is
// still its text when the rest is teasers: short paragraphs, each beside
// its link, in the columns around it.
func TestExtractStoryAmongTeasers(t *testing.T) {
	var teasers strings.Builder
	for i := 0; i < 16; i++ {
		teasers.WriteString(`<div class="item"><a href="/t` + string(rune('a'+i)) + `.html">Teaser headline ` + string(rune('a'+i)) + `</a>` + para("Teaser", i, 1) + `</div>`)
	}
	page := `<html><body><div id="top">` + linkColumn("Nav", 25) + `</div>
<div id="center"><h2>Council votes</h2><div id="s1">` + para("Story", 0, 3) + para("Story", 1, 3) + para("Story", 2, 3) + para("Story", 3, 3) + para("Story", 4, 3) + `</div><p class="date">10 May 2008</p></div>
<div id="right"><div class="box">` + teasers.String() + `</div></div>
<div id="bottom">` + linkColumn("Foot", 10) + `</div></body></html>`
	extractPage(t, "https://news.example/2008/vote.html", page,
		[]string{"Story sentence a of paragraph A", "Story sentence c of paragraph C"},
		[]string{"Teaser sentence", "Teaser headline", "Nav headline", "Foot headline"})
}

// A table layout of the 2000s puts the story in a cell of a cell: the
// blocks inside a <td> are candidates too (readability's are), so the
// story is found rather than the layout table that holds the page.
func TestExtractStoryInTableCell(t *testing.T) {
	// (this page passes without the cell exception too: best looks
	// through a cell that wraps blocks; the exception matters where a
	// cell holds its text itself beside other cells)
	page := `<html><body><table width="100%"><tr><td colspan="3">` + linkColumn("Nav", 10) + `</td></tr>
<tr><td width="150">` + linkColumn("Sports", 10) + `</td>
<td><table><tr><td class="headline"><b>Council votes on the budget</b></td></tr>
<tr><td><div>` + para("Story", 0, 3) + para("Story", 1, 3) + para("Story", 2, 3) + para("Story", 3, 3) + `</div></td></tr></table></td>
<td width="200"><div>` + para("Poll", 0, 1) + `</div>` + linkColumn("Business", 10) + `</td></tr>
<tr><td colspan="3">` + linkColumn("Foot", 6) + `</td></tr></table></body></html>`
	extractPage(t, "https://news.example/2008/budget.html", page,
		[]string{"Story sentence a of paragraph A", "Story sentence c of paragraph D"},
		[]string{"Poll sentence", "Sports headline", "Business headline", "Nav headline", "Foot headline"})
}

// A short story (400 characters or more) among a news template's columns
// stands for the page as a long one does; a manual's title page beside its
// table of contents (DocBook's div.toc) does not: that page is its
// contents, kept whole.
func TestExtractShortStoryNotTitlePage(t *testing.T) {
	page := `<html><body><div id="top">` + linkColumn("Nav", 10) + `</div>
<div id="center"><div id="s1">` + para("Story", 0, 3) + para("Story", 1, 3) + para("Story", 2, 3) + `</div></div>
<div id="right">` + linkColumn("Business", 10) + `<div><p>Teaser of another story, with commas, and a line of text to read on. <a href="/x.html">More</a></p></div></div>
<div id="bottom">` + linkColumn("Foot", 5) + `</div></body></html>`
	extractPage(t, "https://news.example/2008/short.html", page,
		[]string{"Story sentence a of paragraph A", "Story sentence c of paragraph C"},
		[]string{"Business headline", "Teaser of another story", "Nav headline", "Foot headline"})
	var toc strings.Builder
	for i := 0; i < 16; i++ {
		ch := string(rune('a' + i))
		toc.WriteString(`<dt><a href="` + ch + `.html">Chapter ` + ch + ` of the guide to packaging</a></dt><dd><dl><dt><a href="` + ch + `.html#s1">Section one of chapter ` + ch + `</a></dt></dl></dd>`)
	}
	manual := `<html><body><div class="book"><div class="titlepage"><div><div class="legalnotice">` + para("Notice", 0, 3) + para("Notice", 1, 3) + para("Notice", 2, 3) + `</div></div></div>
<div class="toc"><dl class="toc">` + toc.String() + `</dl></div></div>
<div class="navfooter"><p>Generated by DocBook XSL, version 1.79, with care.</p></div></body></html>`
	extractPage(t, "https://docs.example/guide/index.html", manual,
		[]string{"Notice sentence a of paragraph A", "Chapter c of the guide to packaging", "Section one of chapter k"}, nil)
}

// A CMS that wraps the whole page in <span>s (a span per stylesheet it
// links) hides no story: the blocks inside an inline wrapper are
// candidates as any others.
func TestExtractStoryInsideSpanWrapper(t *testing.T) {
	page := `<html><body><span id="default"><link rel="stylesheet" href="/a.css"><span id="article"><link rel="stylesheet" href="/b.css">
<div class="contentStyle"><div id="top">` + linkColumn("Nav", 6) + `</div>
<div id="center"><div class="articleBody">` + para("Story", 0, 3) + para("Story", 1, 3) + para("Story", 2, 3) + `</div></div>
<div id="right">` + linkColumn("Business", 4) + `</div></div></span></span></body></html>`
	extractPage(t, "https://news.example/2008/span.html", page,
		[]string{"Story sentence a of paragraph A", "Story sentence c of paragraph C"},
		[]string{"Business headline", "Nav headline"})
}

// On a news template's page the story's block does not grow into its
// parent for the prose around it: that prose is the readers' comments and
// the teasers (a manual's chapter, with few links, still takes in its
// next sections, and a list the text around it).
func TestExtractStoryNotGrownIntoComments(t *testing.T) {
	var comments strings.Builder
	for i := 0; i < 3; i++ {
		comments.WriteString(`<div><a href="/user/` + string(rune('a'+i)) + `">Reader ` + string(rune('a'+i)) + `</a>` + para("Reader", i, 2) + `</div>`)
	}
	page := `<html><body><div id="top">` + linkColumn("Nav", 14) + `</div>
<div id="content"><div class="story">` + para("Story", 0, 3) + para("Story", 1, 3) + para("Story", 2, 3) + para("Story", 3, 3) + `</div>
<hr><b>Comments are now closed for this story</b>` + comments.String() + `</div>
<div id="right">` + linkColumn("Business", 6) + `</div></body></html>`
	extractPage(t, "https://news.example/2008/closed.html", page,
		[]string{"Story sentence a of paragraph A", "Story sentence c of paragraph D"},
		[]string{"Reader sentence", "Business headline", "Nav headline"})
}

// An articleBody mark on an element of several paragraphs is the body,
// however much prose the blocks around it hold: a story syndicated into
// another site's template (the near-duplicate set's composed pages) keeps
// its own text, not the template's other story.
func TestExtractArticleBodyOfSeveralParagraphs(t *testing.T) {
	page := `<html><head><meta property="og:type" content="article"></head><body><div class="site-shim"><div class="col">
<div itemprop="articleBody">` + para("Story", 0, 3) + para("Story", 1, 3) + para("Story", 2, 3) + `</div>
<div class="more">` + para("Other", 0, 4) + para("Other", 1, 4) + para("Other", 2, 4) + para("Other", 3, 4) + para("Other", 4, 4) + `</div>
</div></div></body></html>`
	extractPage(t, "https://news.example/story", page,
		[]string{"Story sentence a of paragraph A", "Story sentence c of paragraph C"},
		[]string{"Other sentence"})
}

// A story inside an inline wrapper (<span><div>…</div></span>, which the
// parser keeps) among link columns is the page's text: the best block
// does not climb into the wrapper, whose own text is none.
func TestExtractStoryInsideInlineWrapper(t *testing.T) {
	for _, tag := range []string{"div", "span", "b", "em"} {
		page := `<html><body><div id="top">` + linkColumn("Nav", 6) + `</div>
<` + tag + `><div id="main">` + para("Story", 0, 3) + para("Story", 1, 3) + para("Story", 2, 3) + `</div></` + tag + `>
<div id="bottom">` + linkColumn("Foot", 4) + `</div></body></html>`
		extractPage(t, "https://news.example/2008/budget.html", page,
			[]string{"Story sentence a of paragraph A", "Story sentence c of paragraph C"},
			[]string{"Nav headline", "Foot headline"})
	}
}
