package similareval

import (
	"context"
	"fmt"
	"testing"
)

// clusters returns n groups of 3 documents: each shares 90 of its 100
// words with the others of its group (Jaccard 90/110 ≈ 0.82) and none with
// other groups.
func clusters(n int) []Doc {
	var docs []Doc
	for g := range n {
		for m := range 3 {
			var w []string
			for i := range 90 {
				w = append(w, fmt.Sprintf("g%d-w%d", g, i))
			}
			for i := range 10 {
				w = append(w, fmt.Sprintf("g%d-m%d-x%d", g, m, i))
			}
			docs = append(docs, Doc{ID: uint64(len(docs)), Words: w})
		}
	}
	return docs
}

// TestEvaluateClusters: with exact truth known by construction (each
// document's 2 neighbours at Jaccard 0.82), p = 4, q = 6 finds almost all
// of them (the chance to share a band is 1 − (1 − 0.82^4)^6 ≈ 0.97) and
// returns nothing else; one band of 6 minimums finds far fewer
// (0.82^6 ≈ 0.30).
func TestEvaluateClusters(t *testing.T) {
	rep, err := Evaluate(context.Background(), clusters(30), Options{K: 2, Settings: []Setting{{4, 6}, {6, 1}}})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Docs != 90 || rep.Pairs != 90*89/2 || len(rep.Results) != 2 {
		t.Fatalf("report %+v", rep)
	}
	if j := rep.TrueMeanJaccard; j < 0.81 || j > 0.82 {
		t.Fatalf("true mean Jaccard %.3f, want 90/110", j)
	}
	seed, one := rep.Results[0], rep.Results[1]
	t.Logf("p=4 q=6: %+v", seed)
	t.Logf("p=6 q=1: %+v", one)
	if seed.Recall < 0.9 || seed.Precision != 1 {
		t.Errorf("p=4, q=6: recall %.3f, precision %.3f; want ≥ 0.9 and 1", seed.Recall, seed.Precision)
	}
	if one.Recall > 0.5 || one.Recall < 0.1 || one.Precision != 1 {
		t.Errorf("p=6, q=1: recall %.3f precision %.3f; want about 0.3 and 1", one.Recall, one.Precision)
	}
	if rep.HighPairs != 90 || seed.HighRecall < 0.9 || one.HighRecall > 0.5 {
		t.Errorf("pairs of Jaccard ≥ 0.5: %d (want 90), found %.3f at p=4 q=6, %.3f at p=6 q=1", rep.HighPairs, seed.HighRecall, one.HighRecall)
	}
	if seed.IndexBytes != 90*(8*24+16*6) {
		t.Errorf("index bytes %d", seed.IndexBytes)
	}
}
