package archive_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bloomcrawl/bloomcrawl/archive"
	"github.com/bloomcrawl/bloomcrawl/lab/warccheck"
)

// TestRepairAfterCrash abandons a Writer as kill -9 would (no Close: 300
// responses written, the last 44 digest entries unsaved) with a whole
// request and half a record at the end of its .open file, and opens a new
// Writer on the same directory and index: the file is cut back to its
// last whole exchange, indexed and renamed, the lost entries are rebuilt
// (and only those past the last save are read), and the same payloads
// written again are all revisits.
func TestRepairAfterCrash(t *testing.T) {
	defer archive.SetProcessDead(func(int) bool { return true })()
	dir := t.TempDir()
	db := mustOpen(t, t.TempDir())
	defer db.Close()
	ctx := context.Background()
	const n = 300
	t0 := time.Now().UTC()
	body := func(i int) string { return fmt.Sprintf("<p>page %d</p>", i) }
	w1 := open(t, dir, db, 0)
	for i := range n {
		if err := w1.Write(ctx, archive.Fetch{Exchanges: []*archive.Exchange{exchange(fmt.Sprintf("http://a.test/%d", i), body(i), t0)}}); err != nil {
			t.Fatal(err)
		}
	}
	open1 := w1.Files()[0]
	if !strings.HasSuffix(open1, ".open") {
		t.Fatalf("file %s", open1)
	}
	b, err := os.ReadFile(open1)
	if err != nil {
		t.Fatal(err)
	}
	recs := readAll(t, []string{open1})
	if recs[1].Type != "request" || recs[2].Type != "response" {
		t.Fatalf("records %s", types(recs[:3]))
	}
	tail := append(append([]byte{}, b[recs[1].Offset:recs[2].Offset]...), b[recs[2].Offset:recs[2].Offset+40]...)
	f, err := os.OpenFile(open1, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.Write(tail)
	f.Close()

	w2 := open(t, dir, db, 0)
	rs := w2.Repaired()
	if rs.Files != 1 || rs.Cut != int64(len(tail)) || rs.Removed != 0 || rs.Entries != n-256 {
		t.Errorf("repaired %+v, want 1 file, %d bytes cut, %d entries", rs, len(tail), n-256)
	}
	final := strings.TrimSuffix(open1, ".open")
	if _, err := os.Stat(open1); !os.IsNotExist(err) {
		t.Errorf("%s still there", open1)
	}
	if got, err := os.ReadFile(final); err != nil || !bytes.Equal(got, b) {
		t.Errorf("repaired file: %d bytes (%v), want the %d written", len(got), err, len(b))
	}
	ours, err := os.ReadFile(archive.CDXJName(final))
	if err != nil {
		t.Fatal(err)
	}
	var re bytes.Buffer
	if _, err := archive.IndexFiles(ctx, []string{final}, &re); err != nil || !bytes.Equal(ours, re.Bytes()) {
		t.Errorf("repaired file's index differs from IndexFiles' (%v)", err)
	}
	if got := len(warccheck.SortedLines(ours)); got != n {
		t.Errorf("%d index lines, want %d", got, n)
	}

	for i := range n {
		if err := w2.Write(ctx, archive.Fetch{Exchanges: []*archive.Exchange{exchange(fmt.Sprintf("http://b.test/%d", i), body(i), t0)}}); err != nil {
			t.Fatal(err)
		}
	}
	if err := w2.Close(); err != nil {
		t.Fatal(err)
	}
	if st := w2.Stats(); st.Revisits != n || st.Responses != 0 {
		t.Errorf("after repair: %d responses, %d revisits; want %d revisits", st.Responses, st.Revisits, n)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*.warc.gz"))
	readAll(t, files)

	// Nothing to repair the next time.
	w3 := open(t, dir, db, 0)
	if rs := w3.Repaired(); rs != (archive.RepairStats{}) {
		t.Errorf("second repair %+v", rs)
	}
	w3.Close()
}

// TestRepairRemovesEmptyFile: an .open file cut inside its warcinfo
// record is removed; a live process's .open file is left alone.
func TestRepairRemovesEmptyFile(t *testing.T) {
	dir := t.TempDir()
	db := mustOpen(t, t.TempDir())
	defer db.Close()
	w1 := open(t, dir, db, 0)
	if err := w1.Write(context.Background(), archive.Fetch{Exchanges: []*archive.Exchange{exchange("http://a.test/", "x", time.Now())}}); err != nil {
		t.Fatal(err)
	}
	name := w1.Files()[0]
	if err := os.Truncate(name, 20); err != nil {
		t.Fatal(err)
	}
	w2 := open(t, dir, db, 0) // our own process: alive
	if rs := w2.Repaired(); rs != (archive.RepairStats{}) {
		t.Errorf("repaired a live writer's file: %+v", rs)
	}
	w2.Close()
	defer archive.SetProcessDead(func(int) bool { return true })()
	w3 := open(t, dir, db, 0)
	if rs := w3.Repaired(); rs.Removed != 1 || rs.Files != 0 {
		t.Errorf("repaired %+v, want the file removed", rs)
	}
	if _, err := os.Stat(name); !os.IsNotExist(err) {
		t.Errorf("%s not removed", name)
	}
	w3.Close()
}
