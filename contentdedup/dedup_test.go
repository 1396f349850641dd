package contentdedup

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"sync"
	"testing"
)

type fixtureDoc struct{ URL, Title, Text string }

type fixturePair struct {
	Name, Lang, Want string
	A, B             fixtureDoc
}

func readPairs(t *testing.T) []fixturePair {
	t.Helper()
	f, err := os.Open("testdata/pairs.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []fixturePair
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var p fixturePair
		if err := json.Unmarshal(sc.Bytes(), &p); err != nil {
			t.Fatal(err)
		}
		out = append(out, p)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func mustNew(t testing.TB, o Options) *Deduper {
	t.Helper()
	d, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// TestPairs runs every English and Chinese fixture pair through a fresh
// Deduper: near-duplicates must share a docId, distinct pages must not.
func TestPairs(t *testing.T) {
	pairs := readPairs(t)
	langs := map[string]int{}
	for _, p := range pairs {
		langs[p.Lang+"/"+p.Want]++
		t.Run(p.Name, func(t *testing.T) {
			d := mustNew(t, Options{})
			va := d.Check(p.A.URL, p.A.Title, p.A.Text)
			if va.Duplicate || va.Reason != ReasonNew {
				t.Fatalf("first document: %+v", va)
			}
			vb := d.Check(p.B.URL, p.B.Title, p.B.Text)
			dist := Hamming(va.Sig.Content, vb.Sig.Content)
			switch p.Want {
			case "duplicate":
				if !vb.Duplicate || vb.DocID != va.DocID || vb.MatchURL != p.A.URL {
					t.Fatalf("want a duplicate of %s; got %+v (content distance %d)", p.A.URL, vb, dist)
				}
			case "distinct":
				if vb.Duplicate || vb.DocID == va.DocID {
					t.Fatalf("want a new document; got %+v (content distance %d)", vb, dist)
				}
			default:
				t.Fatalf("bad fixture want %q", p.Want)
			}
			t.Logf("%s: reason %s, content distance %d, flags %d/%d", p.Want, vb.Reason, dist, va.Sig.Flags, vb.Sig.Flags)
		})
	}
	for _, k := range []string{"en/duplicate", "en/distinct", "zh/duplicate", "zh/distinct"} {
		if langs[k] < 2 {
			t.Errorf("fixtures: only %d %s pairs", langs[k], k)
		}
	}
}

func TestCascade(t *testing.T) {
	pairs := readPairs(t)
	en := pairs[0].A
	d := mustNew(t, Options{})
	v1 := d.Check(en.URL, en.Title, en.Text)
	if v1.Reason != ReasonNew || v1.DocID == 0 {
		t.Fatalf("first: %+v", v1)
	}
	// Same URL again, even with other content: url step.
	v2 := d.Check(en.URL, "other", "completely different words here")
	if v2.Reason != ReasonURL || v2.DocID != v1.DocID || v2.MatchURL != en.URL || v2.Distance != 0 {
		t.Fatalf("same URL: %+v", v2)
	}
	// Same content, new URL and no title: content step at distance 0.
	v3 := d.Check("https://elsewhere.example/copy", "", en.Text)
	if v3.Reason != ReasonContent || v3.DocID != v1.DocID || v3.Distance != 0 {
		t.Fatalf("copy: %+v", v3)
	}
	// That URL is now remembered.
	if v := d.Check("https://elsewhere.example/copy", "", ""); v.Reason != ReasonURL || v.DocID != v1.DocID {
		t.Fatalf("copy URL again: %+v", v)
	}
	// Same title, content 4..10 bits away: the title step merges it.
	if d.Len() != 1 || d.URLs() != 2 {
		t.Fatalf("Len %d URLs %d, want 1 and 2", d.Len(), d.URLs())
	}
	// Empty texts: only an equal title merges them.
	a := d.Check("https://x.example/a", "Only a title", "")
	b := d.Check("https://x.example/b", "Only a title", "")
	c := d.Check("https://x.example/c", "Another title", "")
	if a.Reason != ReasonNew || b.Reason != ReasonTitle || b.DocID != a.DocID || c.Reason != ReasonNew {
		t.Fatalf("title-only documents: %+v %+v %+v", a, b, c)
	}
	if a.Sig.Flags&FlagContentEmpty == 0 || a.Sig.Flags&FlagTitleExact == 0 {
		t.Fatalf("flags %b", a.Sig.Flags)
	}
	// No URL: never matched by URL, never remembered.
	n1 := d.Check("", "", "short text without a url")
	n2 := d.Check("", "", "short text without a url")
	if n1.Reason != ReasonNew || n2.Reason != ReasonContent || n2.DocID != n1.DocID {
		t.Fatalf("no URL: %+v %+v", n1, n2)
	}
}

func TestTitleStepNeedsCloseContent(t *testing.T) {
	pairs := readPairs(t)
	d := mustNew(t, Options{})
	va := d.Check(pairs[0].A.URL, "Introduction", pairs[0].A.Text)
	vb := d.Check(pairs[1].A.URL, "Introduction", pairs[1].A.Text)
	if vb.Duplicate {
		t.Fatalf("different contents under one title merged: %+v", vb)
	}
	// With the content check disabled (title alone decides; without
	// sketches, which would decide otherwise) they merge: the reason the
	// check exists.
	d2 := mustNew(t, Options{TitleContentThreshold: 64, NoSketch: true})
	d2.Check(pairs[0].A.URL, "Introduction", pairs[0].A.Text)
	if v := d2.Check(pairs[1].A.URL, "Introduction", pairs[1].A.Text); v.Reason != ReasonTitle {
		t.Fatalf("title-only step: %+v", v)
	}
	_ = va
}

func TestDocIDStable(t *testing.T) {
	pairs := readPairs(t)
	ids := func() []uint64 {
		d := mustNew(t, Options{})
		var out []uint64
		for _, p := range pairs {
			out = append(out, d.Check(p.A.URL+"#"+p.Name, p.A.Title, p.A.Text).DocID)
		}
		return out
	}
	a, b := ids(), ids()
	if !slices.Equal(a, b) {
		t.Fatalf("docIds differ between runs:\n%x\n%x", a, b)
	}
}

// kept is a document TestRestore restores.
type kept struct {
	id  uint64
	url string
	sig Signature
}

func TestRestore(t *testing.T) {
	pairs := readPairs(t)
	// restored into memory, and into a spill directory with every array
	// mapped
	for _, dir := range []string{"", t.TempDir()} {
		d1 := mustNew(t, Options{})
		var docs []kept
		for _, p := range pairs {
			v := d1.Check(p.A.URL+"#"+p.Name, p.A.Title, p.A.Text)
			if !v.Duplicate {
				docs = append(docs, kept{v.DocID, p.A.URL + "#" + p.Name, v.Sig})
			}
		}
		d2 := mustNew(t, Options{SpillDir: dir, MapArrays: true})
		d2.arrays.SetMinBytes(1)
		testRestored(t, d1, d2, pairs, docs)
		d2.Close()
	}
}

func testRestored(t *testing.T, d1, d2 *Deduper, pairs []fixturePair, docs []kept) {
	t.Helper()
	for _, k := range docs {
		d2.RestoreDoc(k.id, k.url, k.sig)
	}
	d2.RestoreURL("https://alias.example/", docs[0].id)
	if d2.Len() != len(docs) {
		t.Fatalf("Len %d after restoring %d", d2.Len(), len(docs))
	}
	for _, p := range pairs {
		want := d1.Check(p.B.URL+"#"+p.Name, p.B.Title, p.B.Text)
		got := d2.Check(p.B.URL+"#"+p.Name, p.B.Title, p.B.Text)
		if got.DocID != want.DocID || got.Reason != want.Reason {
			t.Errorf("%s: restored deduper says %+v, original %+v", p.Name, got, want)
		}
	}
	if v := d2.Check("https://alias.example/", "", "x"); v.Reason != ReasonURL || v.DocID != docs[0].id {
		t.Errorf("restored URL: %+v", v)
	}
}

func TestOptions(t *testing.T) {
	for _, c := range []struct {
		o     Options
		k     int
		valid bool
	}{
		{Options{}, 3, true},
		{Options{Threshold: new(0)}, 0, true},
		{Options{Threshold: new(6)}, 6, true},
		{Options{Threshold: new(7)}, 0, false},
		{Options{Threshold: new(-1)}, 0, false},
		{Options{Threshold: new(6), TitleContentThreshold: 5}, 0, false},
		{Options{TitleContentThreshold: 65}, 0, false},
	} {
		d, err := New(c.o)
		if !c.valid {
			if !errors.Is(err, ErrOptions) {
				t.Errorf("%+v: err %v, want ErrOptions", c.o, err)
			}
			continue
		}
		if err != nil || d.Threshold() != c.k {
			t.Errorf("%+v: %v, threshold %v", c.o, err, d)
		}
	}
}

// TestConcurrentCheck: many goroutines submit copies of the same documents;
// each document must end with exactly one docId.
func TestConcurrentCheck(t *testing.T) {
	pairs := readPairs(t)
	d := mustNew(t, Options{})
	var mu sync.Mutex
	ids := map[string]map[uint64]bool{}
	var wg sync.WaitGroup
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i, p := range pairs {
				v := d.Check(fmt.Sprintf("https://g%d.example/%d", g, i), p.A.Title, p.A.Text)
				mu.Lock()
				if ids[p.Name] == nil {
					ids[p.Name] = map[uint64]bool{}
				}
				ids[p.Name][v.DocID] = true
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	for name, s := range ids {
		if len(s) != 1 {
			t.Errorf("%s: %d docIds for one document", name, len(s))
		}
	}
}

func TestTitleGroupCap(t *testing.T) {
	d := mustNew(t, Options{})
	for i := 0; i < MaxTitleGroup+50; i++ {
		text := fmt.Sprintf("document %d has its own words: w%da w%db w%dc w%dd w%de w%df w%dg w%dh w%di w%dj w%dk w%dl w%dm w%dn w%do w%dp w%dq w%dr w%ds w%dt",
			i, i, i, i, i, i, i, i, i, i, i, i, i, i, i, i, i, i, i, i, i)
		if v := d.Check(fmt.Sprintf("https://site.example/%d", i), "Example Site", text); v.Duplicate {
			t.Fatalf("doc %d: %+v", i, v)
		}
	}
	fp := d.Sign("Example Site", "").Title
	n := 0
	g, _ := d.titleGroup(fp)
	for m := g.last; m != none; m = d.entries.at(m).nextTitle {
		n++
	}
	if n != MaxTitleGroup+1 || g.n != int32(n) {
		t.Fatalf("title group holds %d docIds, want %d", n, MaxTitleGroup+1)
	}
}

// TestSketchDecidesShortTemplatedPages: two Rust reference pages for
// opposite conversions share a template and all but a few words; their
// SimHashes are within the threshold, but their word 3-shingles are not
// similar. By default the sketch decides and keeps them apart; with
// SimHashAlone the SimHash distance alone merges them (the behaviour that
// merged ~10% clearly different pages of a Rust docs crawl).
func TestSketchDecidesShortTemplatedPages(t *testing.T) {
	a := "Function core::arch::aarch64::vreinterpretq_p16_p128\nsource · [−]\npub unsafe fn vreinterpretq_p16_p128(a: u128) -> poly16x8_t\n🔬 This is a nightly-only experimental API. (stdsimd #48556)\nAvailable on AArch64 and target feature neon,aes only.\nExpand description\nVector reinterpret cast operation"
	b := "Function core::arch::aarch64::vreinterpretq_p128_p16\nsource · [−]\npub unsafe fn vreinterpretq_p128_p16(a: poly16x8_t) -> u128\n🔬 This is a nightly-only experimental API. (stdsimd #48556)\nAvailable on AArch64 and target feature neon,aes only.\nExpand description\nVector reinterpret cast operation"
	d := mustNew(t, Options{})
	sa, sb := d.Sign("", a), d.Sign("", b)
	if dist := Hamming(sa.Content, sb.Content); dist > DefaultThreshold {
		t.Fatalf("precondition: SimHash distance %d > %d", dist, DefaultThreshold)
	}
	if j, _ := SketchJaccard(&sa.Sketch, &sb.Sketch); j >= DefaultSketchJaccard {
		t.Fatalf("precondition: sketch Jaccard %.2f >= %.2f", j, DefaultSketchJaccard)
	}
	d.Check("https://doc.rust-lang.org/core/arch/aarch64/fn.vreinterpretq_p16_p128.html", "vreinterpretq_p16_p128 in core::arch::aarch64 - Rust", a)
	if v := d.Check("https://doc.rust-lang.org/core/arch/aarch64/fn.vreinterpretq_p128_p16.html", "vreinterpretq_p128_p16 in core::arch::aarch64 - Rust", b); v.Duplicate {
		t.Fatalf("different functions merged: %+v", v)
	}
	old := mustNew(t, Options{SimHashAlone: true})
	old.Check("https://doc.rust-lang.org/core/arch/aarch64/fn.vreinterpretq_p16_p128.html", "vreinterpretq_p16_p128 in core::arch::aarch64 - Rust", a)
	if v := old.Check("https://doc.rust-lang.org/core/arch/aarch64/fn.vreinterpretq_p128_p16.html", "vreinterpretq_p128_p16 in core::arch::aarch64 - Rust", b); !v.Duplicate {
		t.Fatalf("SimHashAlone: not merged: %+v", v)
	}
}
