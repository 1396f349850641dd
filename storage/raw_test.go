package storage

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/dgraph-io/badger/v4"
)

// Raw fetches come back in the order they were put, across a reopen,
// compressed when that is smaller; a read-only store refuses PutRaw; a
// damaged value is an ErrCorrupt naming it.
func TestRawFetches(t *testing.T) {
	dir := t.TempDir()
	db, err := Open(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	if has, err := db.HasRaw(); has || err != nil {
		t.Fatalf("empty store: HasRaw %v %v", has, err)
	}
	var want [][]byte
	for i := range 50 {
		v := []byte(fmt.Sprintf("fetch %d ", i))
		if i%2 == 0 {
			v = bytes.Repeat(v, 200) // compressible
		}
		want = append(want, v)
		if err := db.PutRaw(v); err != nil {
			t.Fatal(err)
		}
	}
	big := 0
	if err := db.scan(context.Background(), []byte{nsRaw}, true, func(k, v []byte) error {
		big = max(big, len(v))
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if big >= len(want[0]) {
		t.Errorf("largest stored value %d bytes, the compressible input %d", big, len(want[0]))
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	db, err = Open(dir, &Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	var got [][]byte
	if err := db.ForEachRaw(context.Background(), func(v []byte) error { got = append(got, bytes.Clone(v)); return nil }); err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) {
		t.Fatalf("%d raw fetches back, want %d", len(got), len(want))
	}
	for i := range want {
		if !bytes.Equal(got[i], want[i]) {
			t.Fatalf("raw fetch %d: got %q", i, got[i])
		}
	}
	if has, err := db.HasRaw(); !has || err != nil {
		t.Errorf("HasRaw %v %v", has, err)
	}
	if st, err := db.Stats(context.Background()); err != nil || st.KeptFetches != len(want) {
		t.Errorf("Stats: %d kept fetches, %v", st.KeptFetches, err)
	}
	if err := db.PutRaw([]byte("x")); !errors.Is(err, ErrReadOnly) {
		t.Errorf("PutRaw on a read-only store: %v", err)
	}
	db.Close()

	db, err = Open(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.bdb.Update(func(txn *badger.Txn) error { return txn.Set(u64key(nsRaw, 1), []byte{rawRecV1, codecZstd, 9, 1, 0}) }); err != nil {
		t.Fatal(err)
	}
	err = db.ForEachRaw(context.Background(), func([]byte) error { return nil })
	if !errors.Is(err, ErrCorrupt) || !bytes.Contains([]byte(err.Error()), []byte("raw fetch 1")) {
		t.Errorf("damaged raw fetch: %v", err)
	}
}
