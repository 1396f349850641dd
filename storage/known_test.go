package storage

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/dgraph-io/badger/v4"
)

func knownOf(t *testing.T, db *DB, urls ...string) []bool {
	t.Helper()
	got := make([]bool, len(urls))
	if err := db.Known(context.Background(), urls, got); err != nil {
		t.Fatal(err)
	}
	return got
}

// TestKnown: a URL is known once it was queued (also after its entry is
// dequeued, with or without a URL record) or has a URL record.
func TestKnown(t *testing.T) {
	ctx := context.Background()
	db := mustOpen(t, "")
	now := time.Now()
	commit := func(c Commit) {
		t.Helper()
		if _, err := db.Commit(ctx, c); err != nil {
			t.Fatal(err)
		}
	}
	const a, b, c, d, e, f = "http://h/a", "http://h/b", "http://h/c", "http://h/d", "http://h/e", "http://h/f"
	commit(Commit{Enqueue: []QueueEntry{{Seq: 1, URL: a}, {Seq: 2, URL: d}, {Seq: 5, URL: e}},
		URL: &URLRecord{URL: b, Status: 404, FetchedAt: now}})
	if got, want := knownOf(t, db, a, b, c, d, e), []bool{true, true, false, true, true}; !slices.Equal(got, want) {
		t.Fatalf("after enqueue: known %v, want %v", got, want)
	}
	commit(Commit{Dequeue: []uint64{1}, URL: &URLRecord{URL: a, Status: 404, FetchedAt: now}})
	commit(Commit{Dequeue: []uint64{2}}) // done without a record
	commit(Commit{Enqueue: []QueueEntry{{Seq: 6, URL: f}}})
	if got, want := knownOf(t, db, a, b, c, d, e, f), []bool{true, true, false, true, true, true}; !slices.Equal(got, want) {
		t.Fatalf("after dequeue: known %v, want %v", got, want)
	}
	if n, err := db.QueueLen(ctx); err != nil || n != 2 {
		t.Fatalf("queue length %d, %v; want 2 (e and f)", n, err)
	}
	if err := db.Known(ctx, []string{a}, nil); err == nil {
		t.Error("Known with a short result slice: no error")
	}
}

// TestKnownIndexesOlderStore: a store whose queue entries were written
// without the URL index (before it existed) gets it when opened.
func TestKnownIndexesOlderStore(t *testing.T) {
	dir := t.TempDir()
	db := mustOpen(t, dir)
	if _, err := db.Commit(context.Background(), Commit{Enqueue: []QueueEntry{{Seq: 7, URL: "http://h/q"}}}); err != nil {
		t.Fatal(err)
	}
	// Make it an older store: no index entry, no marker.
	if err := db.bdb.Update(func(txn *badger.Txn) error {
		if err := txn.Delete(queuedKey("http://h/q")); err != nil {
			return err
		}
		return txn.Delete(keyQueuedIndex)
	}); err != nil {
		t.Fatal(err)
	}
	if got := knownOf(t, db, "http://h/q"); got[0] {
		t.Fatal("test setup: the index entry is still there")
	}
	db.Close()
	db = mustOpen(t, dir)
	if got := knownOf(t, db, "http://h/q", "http://h/other"); !slices.Equal(got, []bool{true, false}) {
		t.Fatalf("after reopen: known %v, want [true false]", got)
	}
}
