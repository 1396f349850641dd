package contentdedup

import (
	"slices"
	"testing"

	"github.com/bloomcrawl/bloomcrawl/similar"
)

// TestCheckSimilarity: a new document's verdict carries the MinHash of its
// word set (the same as similar.NewPages over its distinct words), a
// duplicate's and a wordless text's carry none, and NoSimilar turns it
// off.
func TestCheckSimilarity(t *testing.T) {
	text := readFixture(t, "zh_first.txt")
	d := mustNew(t, Options{})
	v := d.Check("https://a.example/1", "", text)
	if v.Duplicate || v.Similar.IsZero() {
		t.Fatalf("new document: %+v", v.Similar)
	}
	words := NewTokenizer().Tokens(nil, text)
	m := similar.NewPages()
	sig := m.Signature(words)
	if !slices.Equal(v.Similar.Sig[:], sig) || !slices.Equal(v.Similar.Bands[:], m.Bands(sig)) {
		t.Fatal("verdict's similarity differs from the MinHash of the word set")
	}
	if d.Similarity(text) != v.Similar {
		t.Fatal("Deduper.Similarity of the stored text differs from Check's")
	}
	// The same words in another order: the same set, the same similarity.
	slices.Reverse(words)
	if similar.Of(m, words) != v.Similar {
		t.Fatal("a word set's similarity depends on word order")
	}
	if dup := d.Check("https://a.example/2", "", text); !dup.Duplicate || !dup.Similar.IsZero() {
		t.Fatalf("duplicate: %v, similarity %v", dup.Duplicate, dup.Similar)
	}
	if e := d.Check("https://a.example/3", "", "the of and"); !e.Similar.IsZero() {
		t.Fatal("a text of stop words only has a similarity")
	}
	off := mustNew(t, Options{NoSimilar: true})
	if v := off.Check("https://a.example/1", "", text); !v.Similar.IsZero() {
		t.Fatal("NoSimilar: the verdict has a similarity")
	}
}

// BenchmarkSimilarity measures the MinHash that Check adds for the
// similar-pages index (the words are already tokenized), beside the
// tokenization and SimHash it already does (BenchmarkFingerprint).
func BenchmarkSimilarity(b *testing.B) {
	m := similar.NewPages()
	tok := NewTokenizer()
	for _, c := range []struct{ name, file string }{{"zh", "zh_first.txt"}, {"en", "en_functions.txt"}} {
		text := readFixture(b, c.file)
		words := tok.Tokens(nil, text)
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			for b.Loop() {
				similar.Of(m, words)
			}
		})
	}
}

// TestMinHashIndexFindsNearDuplicates: the near-duplicate pairs of the
// fixtures find each other through an in-memory similar.Index.
func TestMinHashIndexFindsNearDuplicates(t *testing.T) {
	tok := NewTokenizer()
	m, _ := similar.New(similar.Options{})
	x := similar.NewIndex(m)
	pairs := readPairs(t)
	for i, p := range pairs {
		x.Add(uint64(i+1), m.Signature(tok.Tokens(nil, p.A.Text)))
	}
	for i, p := range pairs {
		if p.Want != "duplicate" || len(tok.Tokens(nil, p.A.Text)) < 100 {
			continue
		}
		ns := x.Similar(m.Signature(tok.Tokens(nil, p.B.Text)), 3)
		if len(ns) == 0 || ns[0].DocID != uint64(i+1) || ns[0].Jaccard < 0.5 {
			t.Errorf("%s: neighbours %+v, want doc %d first", p.Name, ns, i+1)
		}
	}
	if x.Len() != len(pairs) {
		t.Fatalf("Len %d", x.Len())
	}
}
