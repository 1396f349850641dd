package contentdedup

import (
	"slices"
	"testing"
)

// TestCheckSimilarity: a new document's verdict carries the MinHash of its
// word set (the same as SimilarMinHash over its distinct words), a
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
	m := SimilarMinHash()
	sig := m.Signature(words)
	if !slices.Equal(v.Similar.Sig[:], sig) || !slices.Equal(v.Similar.Bands[:], m.Bands(sig)) {
		t.Fatal("verdict's similarity differs from the MinHash of the word set")
	}
	if d.Similarity(text) != v.Similar {
		t.Fatal("Deduper.Similarity of the stored text differs from Check's")
	}
	// The same words in another order: the same set, the same similarity.
	slices.Reverse(words)
	if similarity(m, words) != v.Similar {
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
	m := SimilarMinHash()
	tok := NewTokenizer()
	for _, c := range []struct{ name, file string }{{"zh", "zh_first.txt"}, {"en", "en_functions.txt"}} {
		text := readFixture(b, c.file)
		words := tok.Tokens(nil, text)
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			for b.Loop() {
				similarity(m, words)
			}
		})
	}
}

// TestDistinct: distinct keeps each value once (0 included), in hs's
// storage, and a Signature over it equals the minimums over the sorted set.
func TestDistinct(t *testing.T) {
	hs := []uint64{5, 0, 7, 5, 1 << 63, 0, 7, 9, 1 << 63}
	got := distinct(slices.Clone(hs))
	slices.Sort(got)
	if want := []uint64{0, 5, 7, 9, 1 << 63}; !slices.Equal(got, want) {
		t.Fatalf("distinct(%v) = %v, want %v", hs, got, want)
	}
	words := NewTokenizer().Tokens(nil, readFixture(t, "en_functions.txt"))
	m := SimilarMinHash()
	set := FeatureHashes(nil, words, 1)
	slices.Sort(set)
	set = slices.Compact(set)
	for i, sig := range m.Signature(words) {
		lo := uint64(mersenne61)
		for _, h := range set {
			v := m.a[i] + mulmod61(m.b[i], h%mersenne61)
			if v >= mersenne61 {
				v -= mersenne61
			}
			lo = min(lo, v)
		}
		if sig != lo {
			t.Fatalf("minimum %d: %d, want %d over the sorted set", i, sig, lo)
		}
	}
}
