package storage

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"sync"
	"testing"
)

// TestMetaBlobs replaces a large snapshot many times: only the current
// one stays on disk, values round-trip across reopen, and a damaged blob
// is reported.
func TestMetaBlobs(t *testing.T) {
	dir := t.TempDir()
	db := mustOpen(t, dir)
	snap := func(i int) []byte {
		b := bytes.Repeat([]byte{byte(i), 1, 2, 3}, 3<<20/4) // 3 MiB
		return b
	}
	for i := 0; i < 20; i++ {
		if err := db.PutMeta("filter", snap(i)); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.PutMeta("small", []byte("state")); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	// 20 × 3 MiB were written; only the last snapshot may remain.
	if n := dirBytes(t, dir); n > 8<<20 {
		t.Fatalf("store is %d bytes after 20 replaced 3 MiB snapshots", n)
	}
	blobs, _ := filepath.Glob(filepath.Join(dir, blobDir, "*"))
	if len(blobs) != 1 {
		t.Fatalf("blob files: %v", blobs)
	}
	// An orphan (crash between file and reference) is removed on open.
	orphan := filepath.Join(dir, blobDir, "tmp-123")
	os.WriteFile(orphan, []byte("partial"), 0o644)

	db = mustOpen(t, dir)
	if _, err := os.Stat(orphan); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("orphan blob survived Open: %v", err)
	}
	if v, err := db.GetMeta("filter"); err != nil || !bytes.Equal(v, snap(19)) {
		t.Fatalf("GetMeta(filter) after reopen: %d bytes, %v", len(v), err)
	}
	// Large → small replaces the blob by an inline value.
	if err := db.PutMeta("filter", []byte("tiny")); err != nil {
		t.Fatal(err)
	}
	if v, err := db.GetMeta("filter"); err != nil || string(v) != "tiny" {
		t.Fatalf("GetMeta after large→small: %q %v", v, err)
	}
	if blobs, _ := filepath.Glob(filepath.Join(dir, blobDir, "*.blob")); len(blobs) != 0 {
		t.Fatalf("blob left after large→small: %v", blobs)
	}
	// A damaged blob is an error, not wrong data.
	if err := db.PutMeta("filter", snap(5)); err != nil {
		t.Fatal(err)
	}
	blobs, _ = filepath.Glob(filepath.Join(dir, blobDir, "*.blob"))
	os.WriteFile(blobs[0], []byte("garbage"), 0o644)
	if _, err := db.GetMeta("filter"); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("GetMeta of a damaged blob: err = %v, want ErrCorrupt", err)
	}
	// Empty values round-trip as empty, not as missing.
	if err := db.PutMeta("empty", nil); err != nil {
		t.Fatal(err)
	}
	if v, err := db.GetMeta("empty"); err != nil || v == nil || len(v) != 0 {
		t.Fatalf("GetMeta(empty) = %v, %v", v, err)
	}
}

// TestMetaConcurrent replaces and reads a large value from several
// goroutines: every read sees one complete value.
func TestMetaConcurrent(t *testing.T) {
	db := mustOpen(t, "")
	vals := make([][]byte, 4)
	for i := range vals {
		vals[i] = bytes.Repeat([]byte{byte(i + 1)}, 300<<10)
	}
	if err := db.PutMeta("k", vals[0]); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for w := 0; w < 4; w++ {
		wg.Add(2)
		go func(w int) {
			defer wg.Done()
			for i := 0; i < 10; i++ {
				if err := db.PutMeta("k", vals[(w+i)%4]); err != nil {
					t.Error(err)
					return
				}
			}
		}(w)
		go func() {
			defer wg.Done()
			for i := 0; i < 20; i++ {
				v, err := db.GetMeta("k")
				if err != nil || len(v) != 300<<10 || v[0] != v[len(v)-1] {
					t.Errorf("GetMeta during replacement: %d bytes, %v", len(v), err)
					return
				}
			}
		}()
	}
	wg.Wait()
}
