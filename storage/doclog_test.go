package storage

import (
	"bytes"
	"errors"
	"fmt"
	"testing"
)

// The document log's chunks come back in key order from any point,
// with the state written beside them, across a reopen; a read-only
// store refuses to append; ResetDocLog leaves nothing.
func TestDocLogChunks(t *testing.T) {
	dir := t.TempDir()
	db, err := Open(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	if st, err := db.DocLogState(); st != nil || err != nil {
		t.Fatalf("empty store: state %q %v", st, err)
	}
	if k, c, err := db.DocLogAfter(nil); k != nil || c != nil || err != nil {
		t.Fatalf("empty store: first chunk %q %q %v", k, c, err)
	}
	key := func(i int) []byte { return []byte(fmt.Sprintf("%04d", i)) }
	for round := range 3 {
		var keys, chunks [][]byte
		for i := round * 10; i < round*10+10; i++ {
			keys = append(keys, key(i))
			chunks = append(chunks, bytes.Repeat([]byte{byte(i)}, 2000+i)) // beyond the value threshold
		}
		if err := db.AppendDocLog(keys, chunks, []byte(fmt.Sprintf("up to %d", round*10+9))); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.AppendDocLog([][]byte{key(1)}, nil, nil); err == nil {
		t.Error("AppendDocLog with 1 key and no chunk: no error")
	}
	db.Close()
	if db, err = OpenReadOnly(dir); err != nil {
		t.Fatal(err)
	}
	if err := db.AppendDocLog([][]byte{key(99)}, [][]byte{{1}}, nil); !errors.Is(err, ErrReadOnly) {
		t.Errorf("AppendDocLog on a read-only store: %v", err)
	}
	after := []byte(nil)
	for i := range 30 {
		k, c, err := db.DocLogAfter(after)
		if err != nil || !bytes.Equal(k, key(i)) || len(c) != 2000+i || c[0] != byte(i) {
			t.Fatalf("chunk after %q: %q (%d bytes), %v; want %q", after, k, len(c), err, key(i))
		}
		after = k
	}
	if k, _, err := db.DocLogAfter(after); k != nil || err != nil {
		t.Errorf("after the last chunk: %q %v", k, err)
	}
	if k, _, _ := db.DocLogAfter([]byte("0014x")); !bytes.Equal(k, key(15)) {
		t.Errorf("after a key between chunks: %q, want 0015", k)
	}
	if st, _ := db.DocLogState(); string(st) != "up to 29" {
		t.Errorf("state %q", st)
	}
	db.Close()
	if db, err = Open(dir, nil); err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.ResetDocLog(); err != nil {
		t.Fatal(err)
	}
	if k, _, err := db.DocLogAfter(nil); k != nil || err != nil {
		t.Errorf("after reset: chunk %q %v", k, err)
	}
	if st, err := db.DocLogState(); st != nil || err != nil {
		t.Errorf("after reset: state %q %v", st, err)
	}
}
