package seen_test

import (
	"context"
	"testing"

	"github.com/bloomcrawl/bloomcrawl/seen"
	"github.com/bloomcrawl/bloomcrawl/storage"
)

// TestOpenStoreLocal: without a cluster URL, OpenStore opens the store
// directory's Badger; what one opening records, the next one reads.
func TestOpenStoreLocal(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	open := func() (*seen.Records, func() error) {
		t.Helper()
		st, closeStore, err := seen.OpenStore(ctx, dir, "")
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := st.(*storage.DB); !ok {
			t.Fatalf("OpenStore(dir, \"\") = %T, want *storage.DB", st)
		}
		return mustNew(t, st, seen.Options{}), closeStore
	}
	r, closeStore := open()
	addAll(t, r, "reader-1", ids(0, 10))
	if err := closeStore(); err != nil {
		t.Fatal(err)
	}
	r, closeStore = open()
	defer closeStore()
	got := testAll(t, r, "reader-1", ids(0, 20))
	for i, g := range got {
		if g != (i < 10) {
			t.Errorf("%s: seen = %v after reopening, want %v", ids(i, i+1)[0], g, i < 10)
		}
	}
}
