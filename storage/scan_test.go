package storage

import (
	"bytes"
	"context"
	"errors"
	"testing"
)

// TestScansStopOnCancel checks that every scan takes its context: with a
// cancelled one each returns context.Canceled (wrapped) instead of reading
// the store, and the callback scans call fn no more.
func TestScansStopOnCancel(t *testing.T) {
	db := mustOpen(t, "")
	for i := 1; i <= 3; i++ {
		mustCommit(t, db, Commit{Page: testPage(i, "e.com"), Trace: []string{"https://e.com/t"}, Enqueue: []QueueEntry{{URL: "https://e.com/q"}}})
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	calls := 0
	count := func() error { calls++; return nil }
	for name, scan := range map[string]func() error{
		"Stats":              func() error { _, err := db.Stats(ctx); return err },
		"Check":              func() error { _, err := db.Check(ctx); return err },
		"List":               func() error { _, _, err := db.List(ctx, ListOptions{}); return err },
		"QueueLen":           func() error { _, err := db.QueueLen(ctx); return err },
		"Export":             func() error { return db.Export(ctx, &bytes.Buffer{}) },
		"ForEachURL":         func() error { return db.ForEachURL(ctx, func(URLRecord) error { return count() }) },
		"ForEachTrace":       func() error { return db.ForEachTrace(ctx, func(string) error { return count() }) },
		"ForEachFingerprint": func() error { return db.ForEachFingerprint(ctx, func(Fingerprint) error { return count() }) },
	} {
		if err := scan(); !errors.Is(err, context.Canceled) {
			t.Errorf("%s with a cancelled context: err = %v, want context.Canceled", name, err)
		}
	}
	if calls != 0 {
		t.Errorf("callbacks ran %d times after cancel", calls)
	}
	// The same scans with a live context see everything.
	bg := context.Background()
	if st, err := db.Stats(bg); err != nil || st.Pages != 3 {
		t.Fatalf("Stats = %+v, %v", st, err)
	}
	if err := db.ForEachFingerprint(bg, func(Fingerprint) error { return count() }); err != nil || calls != 3 {
		t.Fatalf("ForEachFingerprint: %d calls, %v", calls, err)
	}
}

// TestSentinelErrors checks that the package's errors carry its name and
// are matched with errors.Is through the wrapping that names the object.
func TestSentinelErrors(t *testing.T) {
	db := mustOpen(t, "")
	ctx := context.Background()
	_, _, err := db.List(ctx, ListOptions{After: "bm90LWEta2V5"})
	if !errors.Is(err, ErrBadCursor) || err.Error() != `storage: bad cursor "bm90LWEta2V5" (use the cursor returned by List with the same options)` {
		t.Errorf("List with a foreign cursor: %v", err)
	}
	_, err = db.Page(0x4d2)
	if !errors.Is(err, ErrNotFound) || err.Error() != "page 00000000000004d2: storage: not found" {
		t.Errorf("Page of a missing docId: %v", err)
	}
	_, err = ParseDocID("1234")
	if !errors.Is(err, ErrBadDocID) {
		t.Errorf("ParseDocID(1234): %v", err)
	}
	for _, e := range []error{ErrNotFound, ErrBadCursor, ErrBadDocID, ErrLocked, ErrCorrupt, ErrClosed, ErrReadOnly} {
		if !bytes.HasPrefix([]byte(e.Error()), []byte("storage: ")) {
			t.Errorf("sentinel %q lacks the package prefix", e)
		}
	}
}
