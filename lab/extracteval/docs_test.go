package extracteval

import (
	"golang.org/x/net/html"
	"math"
	"strings"
	"testing"
)

// The template a site repeats does not count against a page's recall;
// the page's own text does.
func TestRecallLessRepeated(t *testing.T) {
	nav := "Home Contents Index Chapter one Chapter two Chapter three"
	own := "This page explains how the frobnicator turns widgets into gadgets"
	other := "Another page tells a different story about something else entirely"
	pages := []string{nav + " . " + own, nav + " . " + other, nav + " . other text of a third page here", nav + " . and a fourth page with words"}
	df := map[string]int{}
	for _, p := range pages {
		for k := range shingles(p) {
			df[k]++
		}
	}
	if got := repeatedAt(len(pages)); got != 3 {
		t.Fatalf("repeatedAt(4) = %d, want 3 (the minimum)", got)
	}
	if got := repeatedAt(100); got != 20 {
		t.Fatalf("repeatedAt(100) = %d, want 20 (a fifth)", got)
	}
	ref := shingles(pages[0])
	min := repeatedAt(len(pages))
	// the page's own text (7 shingles) misses only the 3 that
	// straddle the template and the text: 7 of 10
	whole, less := recallLessRepeated(ref, shingles(own), df, min)
	if want := 7.0 / 10; math.Abs(less-want) > 1e-9 || whole >= less {
		t.Errorf("own text only: recall %.3f less the repeated text, %.3f whole; want %.3f and less whole", less, whole, want)
	}
	if whole, less := recallLessRepeated(ref, shingles(pages[0]), df, min); whole != 1 || less != 1 {
		t.Errorf("everything: recall %.3f, %.3f; want 1, 1", whole, less)
	}
	if _, less := recallLessRepeated(ref, shingles(nav), df, min); less != 0 {
		t.Errorf("template only: recall less the repeated text %.3f, want 0", less)
	}
}

// A previous/next bar (DocBook's navfooter, marked by accesskeys; a
// Texinfo panel, by rel) is navigation; a list of links to other pages,
// or a bar of one link, is not.
func TestNavBar(t *testing.T) {
	for _, tc := range []struct {
		html string
		want bool
	}{
		{`<table summary="Navigation footer"><tr><td><a accesskey="p" href="uptodate.html">Prev</a></td><td><a accesskey="h" href="index.html">Home</a></td><td><a accesskey="n" href="customizing.html">Next</a></td></tr><tr><td>Chapter 9. Keeping your Debian system up-to-date</td><td></td><td>Chapter 11. Customizing</td></tr></table>`, true},
		{`<ul class="docnav"><li><a rel="prev" href="a.html">A.12. PureOS</a></li><li><a rel="next" href="b.html">A.14. And Many More</a></li></ul>`, true},
		{`<ul><li><a href="a.html">Installing</a></li><li><a href="b.html">Upgrading</a></li><li><a accesskey="n" href="c.html">Next</a></li></ul>`, false},
		{`<p><a accesskey="n" href="c.html">Next</a> chapter</p>`, false},
	} {
		doc, err := html.Parse(strings.NewReader("<html><body>" + tc.html + "</body></html>"))
		if err != nil {
			t.Fatal(err)
		}
		n := doc.LastChild.LastChild.FirstChild // <body>'s first element
		if got := navBar(n); got != tc.want {
			t.Errorf("navBar(%.60s…) = %v, want %v", tc.html, got, tc.want)
		}
	}
}
