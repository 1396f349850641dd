package storage

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// TestPutMetas: one transaction for many values, readable by GetMeta; a
// value that replaces a large (blob) one removes the blob file; a value of
// 256 KiB or more is refused and nothing of the batch is written.
func TestPutMetas(t *testing.T) {
	dir := t.TempDir()
	db := mustOpen(t, dir)
	big := bytes.Repeat([]byte("x"), blobMin)
	if err := db.PutMeta("k/big", big); err != nil {
		t.Fatal(err)
	}
	if err := db.PutMetas(map[string][]byte{"k/a": []byte("1"), "k/b": []byte("2"), "k/big": []byte("small now")}); err != nil {
		t.Fatal(err)
	}
	if err := db.PutMetas(map[string][]byte{"k/c": []byte("3"), "k/d": big}); !errors.Is(err, ErrTooLarge) {
		t.Errorf("PutMetas with a %d-byte value: %v, want ErrTooLarge", len(big), err)
	}
	db.Close()
	db = mustOpen(t, dir)
	defer db.Close()
	for k, want := range map[string]string{"k/a": "1", "k/b": "2", "k/big": "small now"} {
		got, err := db.GetMeta(k)
		if err != nil || string(got) != want {
			t.Errorf("GetMeta(%s) = %q, %v; want %q", k, got, err, want)
		}
	}
	if _, err := db.GetMeta("k/c"); !errors.Is(err, ErrNotFound) {
		t.Errorf("k/c of the refused batch: %v, want ErrNotFound", err)
	}
	blobs, _ := filepath.Glob(filepath.Join(dir, "blobs", "*"))
	for _, b := range blobs {
		if fi, err := os.Stat(b); err == nil && !fi.IsDir() {
			t.Errorf("blob file %s left after its value was replaced", b)
		}
	}
}
