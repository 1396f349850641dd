package dedupstore

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/bloomcrawl/bloomcrawl/contentdedup"
	"github.com/bloomcrawl/bloomcrawl/similar"
	"github.com/bloomcrawl/bloomcrawl/storage"
)

// TestIndexSimilar: pages without entries get them, the store records the
// parameters, and entries computed with other parameters are all redone.
func TestIndexSimilar(t *testing.T) {
	db, err := storage.Open(t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	d, err := contentdedup.New(contentdedup.Options{})
	if err != nil {
		t.Fatal(err)
	}
	shared := "river mountain forest valley meadow canyon glacier desert island harbor bridge castle tower garden orchard vineyard quarry lighthouse cathedral monastery "
	texts := []string{shared + "alpha", shared + "omega", "the of and"} // word-set Jaccard 20/22
	for i, text := range texts {
		p := &storage.Page{DocID: storage.DocID(i + 1), URL: "https://x.test/" + string(rune('a'+i)), FetchedAt: time.Unix(1, 0), Text: text}
		if _, err := db.Commit(ctx, storage.Commit{Page: p}); err != nil {
			t.Fatal(err)
		}
	}
	n, err := IndexSimilar(ctx, d, db)
	if err != nil || n != 2 {
		t.Fatalf("IndexSimilar = %d, %v; want 2 entries (the third text has no words)", n, err)
	}
	if got, _ := db.GetMeta(similarParamsKey); string(got) != similar.Params() {
		t.Fatalf("recorded parameters %q", got)
	}
	want, _ := db.Similar(ctx, 1, 0)
	if n, _ := IndexSimilar(ctx, d, db); n != 0 {
		t.Fatalf("a second run wrote %d entries", n)
	}

	// A store indexed with other parameters: every entry is redone.
	if err := db.PutMinHash(ctx, 1, []uint64{42}, []uint64{7}); err != nil {
		t.Fatal(err)
	}
	if err := db.PutMeta(similarParamsKey, []byte("minhash rows=2 bands=3")); err != nil {
		t.Fatal(err)
	}
	if n, err := IndexSimilar(ctx, d, db); err != nil || n != 2 {
		t.Fatalf("re-index = %d, %v; want 2", n, err)
	}
	got, err := db.Similar(ctx, 1, 0)
	if err != nil || !slices.Equal(got, want) || len(want) != 1 {
		t.Fatalf("after re-index: %v (%v), want %v", got, err, want)
	}
	if _, err := db.Check(ctx); err != nil {
		t.Fatal(err)
	}
}
