package storage

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/dgraph-io/badger/v4"
)

func simPage(id DocID, bands, sig []uint64) *Page {
	return &Page{DocID: id, URL: fmt.Sprintf("https://s.test/%d", id), FetchedAt: time.Unix(1, 0),
		Title: fmt.Sprintf("page %d", id), Text: "text", MinHash: sig, MinHashBands: bands}
}

// TestSimilar: neighbours ranked by shared bands then estimated Jaccard,
// the page itself excluded, a duplicate commit of its docId adds nothing,
// and pages without entries are reported and filled in by PutMinHash.
func TestSimilar(t *testing.T) {
	db := mustOpen(t, t.TempDir())
	ctx := context.Background()
	commit := func(p *Page) {
		t.Helper()
		if _, err := db.Commit(ctx, Commit{Page: p}); err != nil {
			t.Fatal(err)
		}
	}
	commit(simPage(1, []uint64{10, 20, 30}, []uint64{1, 2, 3, 4}))
	commit(simPage(2, []uint64{10, 20, 99}, []uint64{1, 2, 0, 0})) // 2 bands, J 0.5
	commit(simPage(3, []uint64{10, 98, 97}, []uint64{1, 2, 3, 0})) // 1 band, J 0.75
	commit(simPage(4, []uint64{96, 95, 94}, []uint64{1, 2, 3, 4})) // no band
	commit(simPage(5, []uint64{10, 93, 92}, []uint64{9, 9, 9, 9})) // 1 band, J 0
	commit(simPage(1, []uint64{10, 20, 30}, []uint64{1, 2, 3, 4})) // same docId again: first seen wins
	commit(&Page{DocID: 6, URL: "https://s.test/6", FetchedAt: time.Unix(1, 0), Text: "no words"})

	got, err := db.Similar(ctx, 1, 0)
	if err != nil {
		t.Fatal(err)
	}
	want := []SimilarPage{
		{DocID: 2, URL: "https://s.test/2", Title: "page 2", Bands: 2, Jaccard: 0.5},
		{DocID: 3, URL: "https://s.test/3", Title: "page 3", Bands: 1, Jaccard: 0.75},
		{DocID: 5, URL: "https://s.test/5", Title: "page 5", Bands: 1, Jaccard: 0},
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("Similar(1) =\n%v\nwant\n%v", got, want)
	}
	if got, _ := db.Similar(ctx, 1, 1); len(got) != 1 || got[0].DocID != 2 {
		t.Fatalf("Similar(1, limit 1) = %v", got)
	}
	if _, err := db.Similar(ctx, 77, 5); !errors.Is(err, ErrNotFound) {
		t.Fatalf("unknown docId: %v", err)
	}
	if _, err := db.Similar(ctx, 6, 5); !errors.Is(err, ErrNotFound) {
		t.Fatalf("page without entry: %v", err)
	}
	missing, err := db.MinHashMissing(ctx)
	if err != nil || fmt.Sprint(missing) != "[0000000000000006]" {
		t.Fatalf("MinHashMissing = %v, %v", missing, err)
	}
	// Replacing page 3's entry moves it to other bands.
	if err := db.PutMinHash(ctx, 3, []uint64{20, 30, 40}, []uint64{1, 2, 3, 4}); err != nil {
		t.Fatal(err)
	}
	if err := db.PutMinHash(ctx, 6, []uint64{40}, []uint64{5}); err != nil {
		t.Fatal(err)
	}
	if err := db.PutMinHash(ctx, 88, []uint64{40}, []uint64{5}); !errors.Is(err, ErrNotFound) {
		t.Fatalf("PutMinHash of an unknown docId: %v", err)
	}
	got, _ = db.Similar(ctx, 1, 0)
	if len(got) != 3 || got[0].DocID != 3 || got[0].Bands != 2 || got[0].Jaccard != 1 {
		t.Fatalf("after PutMinHash: %v", got)
	}
	if missing, _ := db.MinHashMissing(ctx); len(missing) != 0 {
		t.Fatalf("still missing %v", missing)
	}
	if _, err := db.Check(ctx); err != nil {
		t.Fatalf("Check: %v", err)
	}
	// A band entry that its page's MinHash entry does not list is found.
	if err := db.bdb.Update(func(txn *badger.Txn) error { return txn.Set(bandKey(12345, 2), nil) }); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Check(ctx); !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), "does not list it") {
		t.Fatalf("Check with a stray band entry: %v", err)
	}
}
