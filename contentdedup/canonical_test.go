package contentdedup

import (
	"strings"
	"testing"
)

// pseudoWords returns n distinct letter-only words starting at index from.
func pseudoWords(from, n int) []string {
	out := make([]string, n)
	for i := range out {
		k := from + i
		var b []byte
		for range 4 {
			b = append(b, byte('a'+k%26))
			k /= 26
		}
		out[i] = "q" + string(b)
	}
	return out
}

// TestCheckCanonical: a page declaring a known canonical URL joins its
// document when the contents agree loosely (reason canonical), also where
// the content step alone would keep them apart; a page whose content
// clearly differs (every page pointing at the home page) is judged by the
// ordinary cascade; an unknown canonical changes nothing.
func TestCheckCanonical(t *testing.T) {
	base := pseudoWords(0, 200)
	article := strings.Join(base, " ")
	// a fifth of the words replaced by others, in one block: an estimated
	// Jaccard between CanonicalJaccard (0.6) and the content step's 0.7
	edited := strings.Join(append(append([]string{}, base[:160]...), pseudoWords(1000, 40)...), " ")
	home := strings.Join(pseudoWords(5000, 200), " ")
	other := strings.Join(pseudoWords(9000, 200), " ")

	d := mustNew(t, Options{})
	h := d.Check("http://e.com/", "Home", home)
	a := d.Check("http://e.com/article", "Article", article)
	if a.Duplicate || h.Duplicate {
		t.Fatalf("home %+v, article %+v: want two new documents", h, a)
	}
	// the same text under ?ref=: canonical (before the content step)
	v := d.CheckCanonical("http://e.com/article?ref=feed", "http://e.com/article", "Article", article)
	if v.Reason != ReasonCanonical || v.DocID != a.DocID || v.MatchURL != "http://e.com/article" {
		t.Fatalf("?ref= variant: %+v", v)
	}
	// an edited copy: the content step alone would not merge it...
	alone := mustNew(t, Options{})
	alone.Check("http://e.com/article", "Article", article)
	if w := alone.Check("http://e.com/article?ref=x", "Article", edited); w.Duplicate {
		t.Fatalf("edited copy merged by the cascade alone (%+v): the test needs a looser copy", w)
	}
	es := alone.Sign("Article", edited)
	j, _ := SketchJaccard(&a.Sig.Sketch, &es.Sketch)
	// ...the declaration does
	v = d.CheckCanonical("http://e.com/article?ref=mail", "http://e.com/article", "Article", edited)
	if v.Reason != ReasonCanonical || v.DocID != a.DocID {
		t.Fatalf("edited copy declaring its canonical (estimated Jaccard %.2f): %+v", j, v)
	}
	t.Logf("edited copy: estimated Jaccard %.2f, SimHash distance %d", j, v.Distance)
	// a quarter replaced: an estimated Jaccard below 0.6 (0.56): not merged
	looser := strings.Join(append(append([]string{}, base[:150]...), pseudoWords(2000, 50)...), " ")
	ls := alone.Sign("Article", looser)
	if lj, _ := SketchJaccard(&a.Sig.Sketch, &ls.Sketch); lj >= CanonicalJaccard {
		t.Fatalf("looser copy estimates %.2f: the test needs one below %.1f", lj, CanonicalJaccard)
	}
	if v = d.CheckCanonical("http://e.com/article?ref=old", "http://e.com/article", "Article", looser); v.Duplicate {
		t.Fatalf("copy below CanonicalJaccard merged: %+v", v)
	}
	// a different page declaring the home page: not merged
	v = d.CheckCanonical("http://e.com/other", "http://e.com/", "Other", other)
	if v.Duplicate {
		t.Fatalf("different page declaring the home page canonical was merged: %+v", v)
	}
	// a canonical never checked: the ordinary cascade (content here)
	v = d.CheckCanonical("http://e.com/copy", "http://e.com/unknown", "Article", article)
	if v.Reason != ReasonTitle && v.Reason != ReasonContent || v.DocID != a.DocID {
		t.Fatalf("unknown canonical: %+v", v)
	}
	// the URL step still comes first
	if v = d.CheckCanonical("http://e.com/other", "http://e.com/article", "Other", article); v.Reason != ReasonURL {
		t.Fatalf("known URL: %+v", v)
	}
}
