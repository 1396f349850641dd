package extracteval

import (
	"math"
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
