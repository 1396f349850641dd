package api_test

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/bloomcrawl/bloomcrawl/api"
	"github.com/bloomcrawl/bloomcrawl/contentdedup"
	"github.com/bloomcrawl/bloomcrawl/storage"
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
	if err := e.db.ForEachFingerprint(context.Background(), func(f storage.Fingerprint) error {
		stored = len(f.Sketch)
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

// TestRestartKeepsDuplicateSignature checks that a near-duplicate's content
// signature is stored with its URL record and restored: a document C close
// to the duplicate B but not to the original A (C joins A only through B's
// signature) gets the same verdict from a restarted service as from a
// Deduper that never restarted.
func TestRestartKeepsDuplicateSignature(t *testing.T) {
	ref, err := contentdedup.New(contentdedup.Options{})
	if err != nil {
		t.Fatal(err)
	}
	accepts := func(x, y contentdedup.Signature) bool {
		j, _ := contentdedup.SketchJaccard(&x.Sketch, &y.Sketch)
		d := contentdedup.Hamming(x.Content, y.Content)
		return d <= contentdedup.DefaultThreshold || (d <= contentdedup.DefaultSketchDistance && j >= contentdedup.DefaultSketchJaccard)
	}
	r := rand.New(rand.NewPCG(5, 7))
	edit := func(s string, pct int) string {
		rs := []rune(s)
		for range len(rs) * pct / 100 {
			rs[r.IntN(len(rs))] = '某'
		}
		return string(rs)
	}
	sa := ref.Sign("", zhA)
	var b, c string
	for range 3000 {
		bt := edit(zhA, 1+r.IntN(3))
		sb := ref.Sign("", bt)
		if !accepts(sb, sa) {
			continue
		}
		ct := edit(bt, 1+r.IntN(2))
		sc := ref.Sign("", ct)
		if j, _ := contentdedup.SketchJaccard(&sc.Sketch, &sa.Sketch); accepts(sc, sb) && !accepts(sc, sa) && j >= 0.72 {
			b, c = bt, ct
			break
		}
	}
	if b == "" {
		t.Fatal("no chain A → B → C (C close to B only) found")
	}
	va := ref.Check("http://a.example/1", "", zhA)
	vb := ref.Check("http://b.example/1", "", b)
	want := ref.Check("http://c.example/1", "", c)
	if !vb.Duplicate || vb.DocID != va.DocID || !want.Duplicate || want.DocID != va.DocID {
		t.Fatalf("reference: B %+v, C %+v: C does not join A through B", vb, want)
	}

	dir := t.TempDir()
	e := openEnv(t, dir, api.HandlerOptions{})
	e.submit(doc("http://a.example/1", "", zhA))
	if got := e.submit(doc("http://b.example/1", "", b)); got.FilterStatus != "duplicate" {
		t.Fatalf("B: %+v", got)
	}
	e.close()

	e = openEnv(t, dir, api.HandlerOptions{})
	var rec storage.URLRecord
	if err := e.db.ForEachURL(context.Background(), func(u storage.URLRecord) error {
		if u.URL == "http://b.example/1" {
			rec = u
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if rec.ContentFP != vb.Sig.Content || rec.FPFlags != vb.Sig.Flags || !bytes.Equal(rec.Sketch, vb.Sig.Sketch.Bytes()) {
		t.Fatalf("B's URL record %+v does not carry its signature (content %x flags %d)", rec, vb.Sig.Content, vb.Sig.Flags)
	}
	// control: a Deduper restored without duplicates' signatures calls C new,
	// so the restarted service below can only match C through B's
	off, err := contentdedup.New(contentdedup.Options{NoIndexDuplicates: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := api.Restore(context.Background(), off, e.db); err != nil {
		t.Fatal(err)
	}
	if v := off.Check("http://c.example/1", "", c); v.Duplicate {
		t.Fatalf("C matched without B's signature: %+v", v)
	}
	got := e.submit(doc("http://c.example/1", "", c))
	if got.DocID != fmt.Sprintf("%016x", want.DocID) || got.FilterStatus != "duplicate" || got.FilterReason != string(want.Reason) ||
		got.MatchURL != want.MatchURL || got.Distance == nil || *got.Distance != want.Distance {
		t.Errorf("C after a restart: %+v (distance %v), reference %+v", got, got.Distance, want)
	}
}
