package bench

import (
	"context"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/bloomcrawl/bloomcrawl/lab/dedupeval"
)

// TestEvaluateKnownPairs: a document set whose near-duplicate pairs are
// known by construction (exact copies and one-word edits of 300-word texts;
// the other texts share nothing), scored by every method. The ground truth
// and the default cascade's score must count exactly those pairs.
func TestEvaluateKnownPairs(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	t1, t2, t3 := genText(rng, "en", 300), genText(rng, "en", 300), genText(rng, "en", 300)
	edit := func(s string) string { w := strings.Fields(s); w[150] = "zzedit"; return strings.Join(w, " ") }
	docs := []dedupeval.Doc{
		{URL: "https://a.example/1", Title: "One", Text: t1},
		{URL: "https://b.example/1", Title: "One | Mirror", Text: edit(t1)},
		{URL: "https://c.example/1", Title: "One", Text: t1},
		{URL: "https://a.example/2", Title: "Two", Text: t2},
		{URL: "https://a.example/3", Title: "Three", Text: t3},
		{URL: "https://c.example/3", Title: "Three", Text: t3},
	}
	// Truth: {0,1}, {0,2}, {1,2} (one edit in 300 words: J > 0.9) and {4,5}.
	const truthPairs, clusters = 4, 3
	l, err := evaluate("en", 3, docs, dedupMethods(3), DedupOptions{Threshold: 3})
	if err != nil {
		t.Fatal(err)
	}
	if l.Docs != 6 || l.Pairs != 15 || l.Truth != truthPairs {
		t.Fatalf("docs %d pairs %d truth %d, want 6 15 %d", l.Docs, l.Pairs, l.Truth, truthPairs)
	}
	if len(l.Methods) != len(dedupMethods(3)) {
		t.Fatalf("%d methods scored", len(l.Methods))
	}
	for _, m := range l.Methods {
		s := m.Score
		if s.Truth != truthPairs {
			t.Errorf("%s: truth %d", m.Name, s.Truth)
		}
		if s.MergedGood > s.Merged || s.TruthMerged > s.Truth {
			t.Errorf("%s: inconsistent counts %+v", m.Name, s)
		}
		if strings.HasPrefix(m.Name, "default: ") {
			if s.Merged != truthPairs || s.MergedGood != truthPairs || s.TruthMerged != truthPairs ||
				s.Precision != 1 || s.Recall != 1 || s.Clusters != clusters {
				t.Errorf("default cascade: %+v, want exactly the %d known pairs merged into %d clusters", s, truthPairs, clusters)
			}
		}
	}
}

// TestDedup: end to end on generated pages, the sample per language, the
// variants and the ground truth are what the options ask for.
func TestDedup(t *testing.T) {
	dir := t.TempDir()
	writeCorpus(t, dir, 5, 4, 60)
	pages, err := LoadCorpus(context.Background(), []string{dir}, CorpusOptions{})
	if err != nil {
		t.Fatal(err)
	}
	rep, err := Dedup(context.Background(), DedupOptions{Pages: pages, MinWords: 100, PerLang: 4, Variants: 2, Seed: 1, Threshold: 3})
	if err != nil {
		t.Fatal(err)
	}
	if rep.English != 5 || rep.Chinese != 5 || len(rep.Langs) != 2 {
		t.Fatalf("report %+v", rep)
	}
	for _, l := range rep.Langs {
		if l.Pages != 4 || l.Docs != 12 || l.Pairs != 66 || l.Sweep != nil {
			t.Errorf("%s: pages %d docs %d pairs %d sweep %v", l.Lang, l.Pages, l.Docs, l.Pairs, l.Sweep)
		}
		if l.Truth < 1 {
			t.Errorf("%s: no pair with J >= 0.9 among pages and their variants", l.Lang)
		}
	}
	var out strings.Builder
	if err := WriteDedupReport(&out, rep); err != nil || !strings.Contains(out.String(), "zh: 4 pages + 8 variants = 12 documents") {
		t.Errorf("report: %v\n%s", err, out.String())
	}
}
