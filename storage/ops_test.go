package storage

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
)

// TestConcurrentWriters runs writers that race on the same docIds: every
// docId must end up stored exactly once (first seen), every URL recorded,
// and the indexes consistent. Run with -race.
func TestConcurrentWriters(t *testing.T) {
	db := mustOpen(t, "")
	const writers, perWriter, docs = 8, 40, 60
	var wg sync.WaitGroup
	errc := make(chan error, writers)
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := 0; i < perWriter; i++ {
				id := uint64(1 + (w*perWriter+i*7)%docs)
				p := testPage(int(id), "race.example")
				p.DocID = DocID(id)
				p.URL = fmt.Sprintf("%s?w=%d&i=%d", p.URL, w, i) // every writer fetches its own URL
				_, err := db.Commit(context.Background(), Commit{
					Page:    p,
					Enqueue: []QueueEntry{{URL: p.URL + "/next"}},
					Trace:   []string{p.URL},
				})
				if err != nil {
					errc <- err
					return
				}
			}
		}(w)
	}
	wg.Wait()
	close(errc)
	for err := range errc {
		t.Fatal(err)
	}
	rep, err := db.Check(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	st, err := db.Stats(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if st.Pages != docs || st.URLs != writers*perWriter || st.Duplicates != writers*perWriter-docs || st.Queue != writers*perWriter || rep.PendingRefs != 0 {
		t.Fatalf("after concurrent writes: stats %+v, check %+v", st, rep)
	}
	n := 0
	if err := db.ForEachTrace(context.Background(), func(string) error { n++; return nil }); err != nil || n != writers*perWriter {
		t.Fatalf("trace has %d URLs (err %v), want %d", n, err, writers*perWriter)
	}
	// Every docId's URL list holds exactly one original.
	for id := uint64(1); id <= docs; id++ {
		urls, err := db.URLs(DocID(id))
		if err != nil {
			t.Fatal(err)
		}
		originals := 0
		for _, u := range urls {
			if !u.Duplicate {
				originals++
			}
		}
		p, _ := db.Page(DocID(id))
		if originals != 1 || len(urls) == 0 {
			t.Fatalf("doc %d: %d originals among %d URLs (page URL %s)", id, originals, len(urls), p.URL)
		}
	}
}

func TestCommitTooLarge(t *testing.T) {
	db, err := Open(t.TempDir(), &Options{MemTableSize: 1 << 20, GCInterval: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	html := make([]byte, 400<<10)
	r := rand.New(rand.NewPCG(1, 2))
	for i := range html {
		html[i] = byte(r.Uint32()) // incompressible
	}
	var trace []string
	var enq []QueueEntry
	for i := 0; i < 5000; i++ {
		trace = append(trace, fmt.Sprintf("https://e.com/%d", i))
		enq = append(enq, QueueEntry{URL: fmt.Sprintf("https://e.com/%d", i)})
	}
	// Values above the value threshold go to the value log and count
	// little against Badger's limit; thousands of keys do not.
	_, err = db.Commit(context.Background(), Commit{Page: &Page{DocID: 7, URL: "https://e.com/big", HTML: html}, Trace: trace, Enqueue: enq})
	if !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "split the commit") {
		t.Fatalf("oversized commit: err = %v, want ErrTooLarge", err)
	}
	st, _ := db.Stats(context.Background())
	if st.Pages != 0 || st.URLs != 0 || st.TraceChunks != 0 || st.Queue != 0 {
		t.Fatalf("oversized commit wrote something: %+v", st)
	}
}

// dirDigest hashes every file name and content under dir.
func dirDigest(t *testing.T, dir string) string {
	t.Helper()
	var lines []string
	err := filepath.Walk(dir, func(path string, info os.FileInfo, err error) error {
		if err != nil || info.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		lines = append(lines, fmt.Sprintf("%s %x", path[len(dir):], sha256.Sum256(b)))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}

// TestCorruptStore damages a closed store in several ways; Open must fail
// with ErrCorrupt and leave every file as it was.
func TestCorruptStore(t *testing.T) {
	build := func(t *testing.T) string {
		dir := t.TempDir()
		db, err := Open(dir, &Options{MemTableSize: 1 << 20, GCInterval: -1})
		if err != nil {
			t.Fatal(err)
		}
		for i := uint64(1); i <= 60; i++ { // several memtable flushes → .sst files
			mustCommit(t, db, Commit{Page: genPage(i)})
		}
		if err := db.Close(); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	damage := []struct {
		name string
		fn   func(t *testing.T, dir string)
	}{
		{"manifest garbage", func(t *testing.T, dir string) {
			os.WriteFile(filepath.Join(dir, "MANIFEST"), []byte("this is not a manifest"), 0o644)
		}},
		{"table deleted", func(t *testing.T, dir string) {
			ssts, _ := filepath.Glob(filepath.Join(dir, "*.sst"))
			if len(ssts) == 0 {
				t.Fatal("no .sst files")
			}
			os.Remove(ssts[0])
		}},
		{"table truncated", func(t *testing.T, dir string) {
			ssts, _ := filepath.Glob(filepath.Join(dir, "*.sst"))
			if len(ssts) == 0 {
				t.Fatal("no .sst files")
			}
			fi, _ := os.Stat(ssts[0])
			os.Truncate(ssts[0], fi.Size()/2)
		}},
	}
	for _, d := range damage {
		t.Run(d.name, func(t *testing.T) {
			dir := build(t)
			d.fn(t, dir)
			before := dirDigest(t, dir)
			db, err := Open(dir, nil)
			if err == nil {
				db.Close()
				t.Fatal("Open of a damaged store succeeded")
			}
			if !errors.Is(err, ErrCorrupt) {
				t.Fatalf("Open err = %v, want ErrCorrupt", err)
			}
			if after := dirDigest(t, dir); after != before {
				t.Fatalf("Open modified a corrupt store:\nbefore:\n%s\nafter:\n%s", before, after)
			}
		})
	}
}
