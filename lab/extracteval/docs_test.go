package extracteval

import (
	"context"
	"io"
	"math"
	"os"
	"path/filepath"
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

// -show on a documentation page prints its recall and the reference text
// the new text misses: the page's own text, not the template its
// directory repeats.
func TestShowDoc(t *testing.T) {
	dir := t.TempDir()
	nav := `<div class="menu"><a href="a.html">Home</a> <a href="b.html">Contents</a> <a href="c.html">Index of all the pages</a></div>`
	for i, body := range []string{
		`<p>This page explains how the frobnicator turns widgets into gadgets, step by step, with examples.</p><div class="navfooter"><a href="b.html">Next chapter about gadgets</a></div>`,
		`<p>Another page tells a different story about something else entirely, at length.</p>`,
		`<p>A third page with words of its own, and more of them, to read.</p>`,
	} {
		page := `<html><body>` + nav + body + `</body></html>`
		if err := os.WriteFile(filepath.Join(dir, string(rune('a'+i))+".html"), []byte(page), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var out strings.Builder
	if err := Main(context.Background(), []string{"-show", filepath.Join(dir, "a.html")}, &out, io.Discard); err != nil {
		t.Fatal(err)
	}
	got := out.String()
	for _, want := range []string{"no marked region: recall of the previous extractor's text less the site's repeated text", "--- new text\n", "frobnicator", "--- reference text the new text misses\n"} {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %q:\n%s", want, got)
		}
	}
	missed := got[strings.Index(got, "--- reference text the new text misses\n"):]
	if strings.Contains(missed, "Index of all the pages") {
		t.Errorf("the repeated menu is listed as missed:\n%s", got)
	}
}
