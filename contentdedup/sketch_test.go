package contentdedup

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/bloomcrawl/bloomcrawl/similar"
)

// exactShingleJaccard is the exact Jaccard similarity of the shingle hash
// sets a Sketch summarizes.
func exactShingleJaccard(a, b []string) float64 {
	sa := similar.FeatureHashes(nil, a, SketchShingle)
	sb := similar.FeatureHashes(nil, b, SketchShingle)
	slices.Sort(sa)
	sa = slices.Compact(sa)
	slices.Sort(sb)
	sb = slices.Compact(sb)
	inter, i, j := 0, 0, 0
	for i < len(sa) && j < len(sb) {
		switch {
		case sa[i] == sb[j]:
			inter++
			i++
			j++
		case sa[i] < sb[j]:
			i++
		default:
			j++
		}
	}
	return float64(inter) / float64(len(sa)+len(sb)-inter)
}

func fixtureWords(t *testing.T, name string) []string {
	t.Helper()
	b, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return NewTokenizer().Tokens(nil, string(b))
}

// editWords replaces a fraction of words with words not in the text.
func editWords(r *rand.Rand, words []string, frac float64) []string {
	out := slices.Clone(words)
	for _, i := range r.Perm(len(out))[:int(frac*float64(len(out)))] {
		out[i] = "zz" + strings.Repeat("q", r.IntN(5)) + string(rune('a'+r.IntN(26)))
	}
	return out
}

// TestSketchJaccardError measures the estimate against the exact Jaccard
// similarity of the shingle sets: the mean error must be near 0 and no
// error beyond 4.5 standard errors sqrt(J(1-J)/n).
func TestSketchJaccardError(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	var sumErr, sumAbs float64
	n := 0
	for _, f := range []string{"en_controlflow.txt", "en_functions.txt", "zh_first.txt", "zh_choosing.txt"} {
		words := fixtureWords(t, f)
		for _, frac := range []float64{0.01, 0.03, 0.05, 0.1, 0.2} {
			for rep := 0; rep < 10; rep++ {
				b := editWords(r, words, frac)
				sa, sb := NewSketch(words, SketchShingle), NewSketch(b, SketchShingle)
				est, bins := SketchJaccard(&sa, &sb)
				exact := exactShingleJaccard(words, b)
				se := math.Sqrt(exact*(1-exact)/float64(bins)) + 1.0/float64(bins)
				if math.Abs(est-exact) > 4.5*se {
					t.Errorf("%s edit %.2f: estimate %.3f, exact %.3f (%d bins, se %.3f)", f, frac, est, exact, bins, se)
				}
				sumErr += est - exact
				sumAbs += math.Abs(est - exact)
				n++
			}
		}
	}
	t.Logf("sketch Jaccard over %d pairs: mean error %+.4f, mean |error| %.4f", n, sumErr/float64(n), sumAbs/float64(n))
	if math.Abs(sumErr/float64(n)) > 0.02 {
		t.Errorf("mean error %+.4f: biased", sumErr/float64(n))
	}
}

func TestSketchBytes(t *testing.T) {
	words := fixtureWords(t, "en_functions.txt")
	s := NewSketch(words, SketchShingle)
	if s.IsZero() {
		t.Fatal("sketch of a long text is zero")
	}
	b := s.Bytes()
	if len(b) != SketchBytes {
		t.Fatalf("Bytes: %d bytes, want %d", len(b), SketchBytes)
	}
	got, err := SketchFromBytes(b)
	if err != nil || got != s {
		t.Fatalf("SketchFromBytes(Bytes) = %v, %v", got, err)
	}
	if z, err := SketchFromBytes(nil); err != nil || !z.IsZero() {
		t.Fatalf("SketchFromBytes(nil) = %v, %v", z, err)
	}
	if _, err := SketchFromBytes(b[:10]); err == nil || !strings.Contains(err.Error(), "10 bytes") {
		t.Fatalf("SketchFromBytes(10 bytes) err = %v", err)
	}
	var zero Sketch
	if zero.Bytes() != nil {
		t.Fatal("zero Sketch has bytes")
	}
	if _, n := SketchJaccard(&s, &zero); n != 0 {
		t.Fatal("an estimate against the zero sketch")
	}
}

// TestSketchConfirmsAndRestores finds an edit of a page whose content
// SimHash is beyond the Threshold (4..6) and whose sketch is close: it is a
// duplicate, also for a Deduper restored with the sketch, and new for one
// restored without it (SimHash only) and for NoSketch.
func TestSketchConfirmsAndRestores(t *testing.T) {
	b, err := os.ReadFile("testdata/en_functions.txt")
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	d := mustNew(t, Options{})
	a := d.Sign("", text)
	r := rand.New(rand.NewPCG(7, 7))
	var edited string
	for i := 0; i < 2000 && edited == ""; i++ {
		ws := strings.Fields(text)
		for _, j := range r.Perm(len(ws))[:len(ws)*(2+r.IntN(3))/100] {
			ws[j] = "zzedit"
		}
		e := strings.Join(ws, " ")
		sb := d.Sign("", e)
		dist := Hamming(a.Content, sb.Content)
		if j, _ := SketchJaccard(&a.Sketch, &sb.Sketch); dist > DefaultThreshold && dist <= DefaultSketchDistance && j >= DefaultSketchJaccard+0.05 {
			edited = e
		}
	}
	if edited == "" {
		t.Fatal("no edit with content distance 4..6 found")
	}
	first := d.Check("https://a.example/", "", text)
	if v := d.Check("https://b.example/", "", edited); !v.Duplicate || v.Reason != ReasonContent || v.DocID != first.DocID {
		t.Fatalf("edit with a close sketch: %+v", v)
	}
	restored := mustNew(t, Options{})
	sk, err := SketchFromBytes(first.Sig.Sketch.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	restored.RestoreDoc(first.DocID, "https://a.example/", Signature{Title: first.Sig.Title, Content: first.Sig.Content, Flags: first.Sig.Flags, Sketch: sk})
	if v := restored.Check("https://b.example/", "", edited); !v.Duplicate || v.DocID != first.DocID {
		t.Fatalf("restored with the sketch: %+v", v)
	}
	old := mustNew(t, Options{})
	old.RestoreDoc(first.DocID, "https://a.example/", Signature{Title: first.Sig.Title, Content: first.Sig.Content, Flags: first.Sig.Flags})
	if v := old.Check("https://b.example/", "", edited); v.Duplicate {
		t.Fatalf("restored without a sketch (SimHash only, distance > %d): %+v", DefaultThreshold, v)
	}
	plain := mustNew(t, Options{NoSketch: true})
	plain.Check("https://a.example/", "", text)
	if v := plain.Check("https://b.example/", "", edited); v.Duplicate {
		t.Fatalf("NoSketch: %+v", v)
	}
	if v := plain.Check("https://c.example/", "", text); !v.Sig.Sketch.IsZero() {
		t.Fatal("NoSketch signature carries a sketch")
	}
}

func TestSketchOptions(t *testing.T) {
	for _, o := range []Options{{SketchDistance: MaxThreshold + 1}, {Threshold: new(5), SketchDistance: 4}, {SketchJaccard: 1.5}, {SketchJaccard: -0.1}, {SketchTitleDistance: 65}} {
		if _, err := New(o); err == nil {
			t.Errorf("New(%+v) accepted", o)
		}
	}
	if _, err := New(Options{NoSketch: true, SketchDistance: 99}); err != nil {
		t.Errorf("NoSketch ignores the sketch options: %v", err)
	}
}

// TestIndexDuplicatesGuard: with duplicates indexed (the default), a
// document that matches a duplicate's signature joins that docId only if its sketch also resembles
// the document itself (estimated Jaccard >= 0.7): chains of edits cannot
// drift away from the document.
func TestIndexDuplicatesGuard(t *testing.T) {
	b, err := os.ReadFile("testdata/en_functions.txt")
	if err != nil {
		t.Fatal(err)
	}
	a := string(b)
	s := mustNew(t, Options{})
	sa := s.Sign("", a)
	r := rand.New(rand.NewPCG(11, 5))
	edit := func(text string, pct int) string {
		ws := strings.Fields(text)
		for _, j := range r.Perm(len(ws))[:len(ws)*pct/100] {
			ws[j] = fmt.Sprintf("zz%d", r.IntN(1e6))
		}
		return strings.Join(ws, " ")
	}
	accepts := func(x, y Signature) bool {
		j, _ := SketchJaccard(&x.Sketch, &y.Sketch)
		d := Hamming(x.Content, y.Content)
		return d <= DefaultThreshold || (d <= DefaultSketchDistance && j >= DefaultSketchJaccard)
	}
	for i := 0; i < 300; i++ {
		bt := edit(a, 4)
		sb := s.Sign("", bt)
		if !accepts(sb, sa) {
			continue
		}
		ct := edit(bt, 4)
		sc := s.Sign("", ct)
		jca, _ := SketchJaccard(&sc.Sketch, &sa.Sketch)
		if !accepts(sc, sb) || accepts(sc, sa) || jca >= 0.7 {
			continue
		}
		// found: B is a duplicate of A, C is close to B only
		d := mustNew(t, Options{})
		va := d.Check("https://a.example/", "", a)
		if vb := d.Check("https://b.example/", "", bt); vb.DocID != va.DocID {
			t.Fatalf("B not a duplicate of A: %+v", vb)
		}
		if vc := d.Check("https://c.example/", "", ct); vc.Duplicate {
			t.Fatalf("C (est. J %.2f with A) joined through B's signature: %+v", jca, vc)
		}
		// and a document close to B that still resembles A does join
		d = mustNew(t, Options{})
		va = d.Check("https://a.example/", "", a)
		d.Check("https://b.example/", "", bt)
		if v := d.Check("https://b2.example/", "", bt+" one more word"); v.DocID != va.DocID {
			t.Fatalf("copy of B: %+v", v)
		}
		return
	}
	t.Fatal("no chain A → B → C found")
}

// chainThroughDuplicate finds texts B and C with B a duplicate of A (text a)
// and C within the accepted distance of B but not of A, while C's sketch
// still resembles A's (estimated J >= 0.7): C joins A only through B's
// signature.
func chainThroughDuplicate(t *testing.T, d *Deduper, a string) (bt, ct string) {
	t.Helper()
	sa := d.Sign("", a)
	r := rand.New(rand.NewPCG(3, 9))
	edit := func(text string, pct int) string {
		ws := strings.Fields(text)
		for _, j := range r.Perm(len(ws))[:len(ws)*pct/100] {
			ws[j] = fmt.Sprintf("zz%d", r.IntN(1e6))
		}
		return strings.Join(ws, " ")
	}
	accepts := func(x, y Signature) bool {
		j, _ := SketchJaccard(&x.Sketch, &y.Sketch)
		d := Hamming(x.Content, y.Content)
		return d <= DefaultThreshold || (d <= DefaultSketchDistance && j >= DefaultSketchJaccard)
	}
	for i := 0; i < 2000; i++ {
		bt = edit(a, 3)
		sb := d.Sign("", bt)
		if !accepts(sb, sa) {
			continue
		}
		ct = edit(bt, 2)
		sc := d.Sign("", ct)
		jca, _ := SketchJaccard(&sc.Sketch, &sa.Sketch)
		if accepts(sc, sb) && !accepts(sc, sa) && jca >= aliasGuard+0.02 {
			return bt, ct
		}
	}
	t.Fatal("no chain A → B → C (C close to B only) found")
	return "", ""
}

// TestRestoreAlias: a duplicate's signature restored with RestoreAlias (in
// either order with RestoreDoc) matches as it did in the Deduper that
// judged the duplicate; with NoIndexDuplicates it is neither indexed nor
// restored.
func TestRestoreAlias(t *testing.T) {
	b, err := os.ReadFile("testdata/en_functions.txt")
	if err != nil {
		t.Fatal(err)
	}
	a := string(b)
	live := mustNew(t, Options{})
	bt, ct := chainThroughDuplicate(t, live, a)
	va := live.Check("https://a.example/", "", a)
	vb := live.Check("https://b.example/", "", bt)
	if !vb.Duplicate || vb.DocID != va.DocID {
		t.Fatalf("B not a duplicate of A: %+v", vb)
	}
	want := live.Check("https://c.example/", "", ct)
	if !want.Duplicate || want.DocID != va.DocID || want.Reason != ReasonContent {
		t.Fatalf("C did not join A through B's signature: %+v", want)
	}
	// what a store keeps: the document's signature, and the duplicate's
	// content, flags and sketch (no title)
	sk, err := SketchFromBytes(vb.Sig.Sketch.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	dupSig := Signature{Content: vb.Sig.Content, Flags: vb.Sig.Flags, Sketch: sk}
	for _, aliasFirst := range []bool{false, true} {
		d := mustNew(t, Options{})
		if aliasFirst {
			d.RestoreAlias(va.DocID, dupSig)
		}
		d.RestoreDoc(va.DocID, "https://a.example/", va.Sig)
		if !aliasFirst {
			d.RestoreAlias(va.DocID, dupSig)
		}
		d.RestoreURL("https://b.example/", va.DocID)
		if v := d.Check("https://c.example/", "", ct); v != want {
			t.Errorf("alias restored (before RestoreDoc: %v): %+v, want %+v", aliasFirst, v, want)
		}
	}
	// without RestoreAlias (the behaviour before signatures were stored)
	// C is new; with NoIndexDuplicates RestoreAlias changes nothing
	for _, o := range []Options{{}, {NoIndexDuplicates: true}} {
		d := mustNew(t, o)
		d.RestoreDoc(va.DocID, "https://a.example/", va.Sig)
		if o.NoIndexDuplicates {
			d.RestoreAlias(va.DocID, dupSig)
		}
		if v := d.Check("https://c.example/", "", ct); v.Duplicate {
			t.Errorf("%+v: C matched without B's signature: %+v", o, v)
		}
	}
	// an alias of a document that was never restored is dropped
	d := mustNew(t, Options{})
	d.RestoreAlias(va.DocID+1, dupSig)
	if v := d.Check("https://c.example/", "", ct); v.Duplicate {
		t.Errorf("alias of an unknown document matched: %+v", v)
	}
	// the live Deduper with NoIndexDuplicates does not chain either
	off := mustNew(t, Options{NoIndexDuplicates: true})
	off.Check("https://a.example/", "", a)
	off.Check("https://b.example/", "", bt)
	if v := off.Check("https://c.example/", "", ct); v.Duplicate {
		t.Errorf("NoIndexDuplicates: C joined through B: %+v", v)
	}
}
