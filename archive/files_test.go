package archive

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestWARCFiles lists a directory's closed WARC files, sorted, and takes a
// file as itself.
func TestWARCFiles(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []string{"b.warc.gz", "a.warc.gz", "c.warc", "d.warc.gz.open", "a.cdxj"} {
		if err := os.WriteFile(filepath.Join(dir, n), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := WARCFiles(dir, filepath.Join(dir, "d.warc.gz.open"))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"a.warc.gz", "b.warc.gz", "c.warc", "d.warc.gz.open"}
	for i := range want {
		want[i] = filepath.Join(dir, want[i])
	}
	if !slices.Equal(got, want) {
		t.Errorf("WARCFiles = %q, want %q", got, want)
	}
	if _, err := WARCFiles(t.TempDir()); err == nil {
		t.Error("WARCFiles of an empty directory: no error")
	}
}

// TestCreateFile never overwrites a file and removes what it wrote when
// writing fails.
func TestCreateFile(t *testing.T) {
	name := filepath.Join(t.TempDir(), "x")
	if err := os.WriteFile(name, []byte("kept"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := createFile(name, "test", func(io.Writer) error { return nil }); !errors.Is(err, os.ErrExist) {
		t.Errorf("existing file: %v, want ErrExist", err)
	}
	if b, _ := os.ReadFile(name); string(b) != "kept" {
		t.Errorf("existing file now %q", b)
	}
	boom := errors.New("boom")
	name2 := name + "2"
	if err := createFile(name2, "test", func(w io.Writer) error { w.Write([]byte("part")); return boom }); !errors.Is(err, boom) {
		t.Errorf("failed write: %v", err)
	}
	if _, err := os.Stat(name2); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("failed file left behind: %v", err)
	}
}
