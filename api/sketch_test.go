package api_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/bloomcrawl/bloomcrawl/api"
	"github.com/bloomcrawl/bloomcrawl/contentdedup"
)

// TestRestartKeepsSketch checks that a new document's Jaccard sketch is
// stored and restored: after a restart, edited copies of a stored article
// get the same verdicts as from a Deduper that never restarted, including
// copies beyond the SimHash threshold that only the sketch confirms.
func TestRestartKeepsSketch(t *testing.T) {
	dir := t.TempDir()
	e := openEnv(t, dir, api.HandlerOptions{})
	a := e.submit(doc("http://a.example/1", "", zhA))
	if a.FilterStatus != "good" {
		t.Fatalf("first submit: %+v", a)
	}
	e.close()

	ref, err := contentdedup.New(contentdedup.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if v := ref.Check("http://a.example/1", "", zhA); fmt.Sprintf("%016x", v.DocID) != a.DocID {
		t.Fatalf("reference docId %016x, service %s", v.DocID, a.DocID)
	}
	e = openEnv(t, dir, api.HandlerOptions{})
	stored := 0
	if err := e.db.ForEachFingerprintSketch(func(_ uint64, _ string, _, _ uint64, _ uint8, sk []byte) error {
		stored = len(sk)
		return nil
	}); err != nil || stored != contentdedup.SketchBytes {
		t.Fatalf("stored sketch: %d bytes (want %d), %v", stored, contentdedup.SketchBytes, err)
	}
	r := rand.New(rand.NewPCG(3, 3))
	bySketch := 0
	for i := range 60 {
		rs := []rune(zhA)
		for range len(rs) * (1 + r.IntN(6)) / 100 {
			rs[r.IntN(len(rs))] = '某'
		}
		u := fmt.Sprintf("http://copy.example/%d", i)
		want := ref.Check(u, "", string(rs))
		got := e.submit(doc(u, "", string(rs)))
		if got.DocID != fmt.Sprintf("%016x", want.DocID) || (got.FilterStatus == "duplicate") != want.Duplicate {
			t.Errorf("copy %d: restarted service %+v, reference %+v", i, got, want)
		}
		if want.Duplicate && want.Distance > ref.Threshold() {
			bySketch++
		}
	}
	if bySketch == 0 {
		t.Fatal("no copy was confirmed by the sketch beyond the SimHash threshold: the test checks nothing")
	}
	t.Logf("%d of 60 copies matched beyond distance %d (sketch-confirmed)", bySketch, 3)
}
