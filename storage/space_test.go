package storage

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// TestCommitRefusedBelowReserve opens a store whose reserve exceeds the
// free space of its disk: every write is refused with a *NoSpaceError
// naming the directory, nothing is written, and the store closes and
// reopens consistent.
func TestCommitRefusedBelowReserve(t *testing.T) {
	if runtime.GOOS != "linux" && runtime.GOOS != "darwin" && runtime.GOOS != "freebsd" {
		t.Skip("the free-space watch needs statfs(2)")
	}
	dir := filepath.Join(t.TempDir(), "s")
	db, err := Open(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	sp, err := db.Space()
	if err != nil {
		t.Fatal(err)
	}
	if sp.Free <= 0 || sp.Reserve != DefaultMinFreeBytes || sp.Memtables <= 0 || sp.Mount == "" || !strings.HasPrefix(mustAbs(t, dir), sp.Mount) {
		t.Fatalf("Space() = %+v; want positive free space, the default reserve, a memtable log and a mount point above %s", sp, dir)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}

	reserve := sp.Free + 1<<40 // more than the disk has
	db, err = Open(dir, &Options{MinFreeBytes: reserve})
	if err != nil {
		t.Fatal(err)
	}
	p := genPage(1)
	_, err = db.Commit(context.Background(), Commit{Page: p, Enqueue: []QueueEntry{{URL: "https://h1.example/next"}}})
	var nse *NoSpaceError
	if !errors.Is(err, ErrNoSpace) || !errors.As(err, &nse) {
		t.Fatalf("Commit below the reserve: err = %v, want a *NoSpaceError", err)
	}
	if nse.Dir != dir || nse.Reserve != reserve || nse.Free <= 0 || nse.Free >= reserve || nse.Memtables <= 0 || nse.Err != nil {
		t.Errorf("NoSpaceError = %+v", nse)
	}
	for _, want := range []string{dir, "free", FormatBytes(reserve)} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("message %q does not name %q", err, want)
		}
	}
	if err := db.PutMeta("k", []byte("v")); !errors.Is(err, ErrNoSpace) {
		t.Errorf("PutMeta below the reserve: err = %v, want ErrNoSpace", err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}

	db = mustOpen(t, dir)
	if _, _, err := db.PageByURL(p.URL); !errors.Is(err, ErrNotFound) {
		t.Errorf("refused page is readable: err = %v", err)
	}
	if n, err := db.QueueLen(context.Background()); err != nil || n != 0 {
		t.Errorf("queue after a refused commit: %d, %v; want 0", n, err)
	}
	if _, err := db.Commit(context.Background(), Commit{Page: p}); err != nil {
		t.Fatalf("Commit with room: %v", err)
	}
	if rep, err := db.Check(context.Background()); err != nil || rep.Pages != 1 {
		t.Fatalf("Check: %+v, %v; want 1 page and no problem", rep, err)
	}
}

func mustAbs(t *testing.T, p string) string {
	t.Helper()
	a, err := filepath.Abs(p)
	if err != nil {
		t.Fatal(err)
	}
	if r, err := filepath.EvalSymlinks(filepath.Dir(a)); err == nil {
		a = filepath.Join(r, filepath.Base(a))
	}
	return a
}

// TestSpaceSampling: statfs runs once per spaceSampleBytes admitted (here
// the clock never triggers a sample), the memtable logs are measured only
// when the free space comes within reach of them, and below the reserve
// every write samples.
func TestSpaceSampling(t *testing.T) {
	free, calls, memCalls := int64(100<<20), 0, 0
	w := newSpaceWatch("/nowhere", 10<<20, 40<<20)
	w.every = time.Hour
	w.statfs = func(string) (int64, error) { calls++; return free, nil }
	w.memtab = func(string) int64 { memCalls++; return 3 << 20 }
	for i := 0; i < 4096; i++ { // 4 MiB in 1 KiB writes
		if err := w.admit(1 << 10); err != nil {
			t.Fatal(err)
		}
	}
	if calls < 4 || calls > 5 || memCalls != 0 { // the first admit samples (no sample yet)
		t.Errorf("%d statfs calls and %d memtable measures for 4 MiB of writes, want 4 or 5 and 0", calls, memCalls)
	}
	free = 12 << 20 // above the reserve, not above reserve + memtables
	var err error
	for i := 0; i < 2048 && err == nil; i++ {
		err = w.admit(1 << 10)
	}
	var nse *NoSpaceError
	if !errors.As(err, &nse) || nse.Free != free || nse.Reserve != 10<<20 || nse.Memtables != 3<<20 {
		t.Fatalf("admit at 12 MiB free with a 10 MiB reserve and 3 MiB of memtables: %v (%+v)", err, nse)
	}
	calls = 0
	for i := 0; i < 10; i++ {
		if err := w.admit(1 << 10); !errors.Is(err, ErrNoSpace) {
			t.Fatalf("admit below the reserve: %v", err)
		}
	}
	if calls != 10 {
		t.Errorf("%d statfs calls for 10 writes below the reserve, want 10", calls)
	}
	free = 50 << 20 // space freed: writes go through again
	if err := w.admit(1 << 10); err != nil {
		t.Errorf("admit after space was freed: %v", err)
	}
	off := newSpaceWatch("/nowhere", -1, 0)
	off.statfs = func(string) (int64, error) { t.Fatal("statfs called with the watch off"); return 0, nil }
	if err := off.admit(1 << 30); err != nil {
		t.Error(err)
	}
}

// TestSpaceWatchConcurrent: writers admitted concurrently (as the crawl's
// workers commit) all see the refusal once the disk is low, and none
// before (run with -race).
func TestSpaceWatchConcurrent(t *testing.T) {
	var free atomic.Int64
	free.Store(100 << 20)
	w := newSpaceWatch("/nowhere", 10<<20, 0)
	w.statfs = func(string) (int64, error) { return free.Load(), nil }
	var wg sync.WaitGroup
	var refusedEarly atomic.Int64
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 1000; i++ {
				if w.admit(4<<10) != nil {
					refusedEarly.Add(1)
				}
			}
		}()
	}
	wg.Wait()
	if n := refusedEarly.Load(); n != 0 {
		t.Fatalf("%d writes refused with 100 MiB free", n)
	}
	free.Store(1 << 20)
	w.admit(2 << 20) // crosses a sample boundary: the next sample sees the low disk
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 100; i++ {
				if !errors.Is(w.admit(4<<10), ErrNoSpace) {
					t.Error("a write admitted with 1 MiB free and a 10 MiB reserve")
					return
				}
			}
		}()
	}
	wg.Wait()
}

// TestDiskErrorClassifies maps the errors a full or failing disk gives
// (wrapped the way Badger wraps them, with %+v) to ErrNoSpace and ErrIO.
func TestDiskErrorClassifies(t *testing.T) {
	db := &DB{dir: t.TempDir(), space: newSpaceWatch(t.TempDir(), 1<<20, 0)}
	cases := []struct {
		err  error
		want error
	}{
		{fmt.Errorf("while writing to vlog err: %+v", syscall.ENOSPC), ErrNoSpace},
		{fmt.Errorf("write blob: %w", syscall.ENOSPC), ErrNoSpace},
		{fmt.Errorf("sync: %w", syscall.EDQUOT), ErrNoSpace},
		{fmt.Errorf("Unable to write to value log err: %+v", syscall.EIO), ErrIO},
		{errors.New("some other failure"), nil},
	}
	for _, c := range cases {
		got := db.diskError(c.err)
		if c.want == nil {
			if got != c.err {
				t.Errorf("diskError(%v) = %v, want it unchanged", c.err, got)
			}
			continue
		}
		if !errors.Is(got, c.want) || !strings.Contains(got.Error(), db.dir) {
			t.Errorf("diskError(%v) = %v, want %v naming %s", c.err, got, c.want, db.dir)
		}
	}
}

func TestFormatBytes(t *testing.T) {
	for n, want := range map[int64]string{-1: "?", 0: "0 B", 1023: "1023 B", 1024: "1.0 KiB", 353 << 20: "353.0 MiB", 3 << 30: "3.0 GiB"} {
		if got := FormatBytes(n); got != want {
			t.Errorf("FormatBytes(%d) = %q, want %q", n, got, want)
		}
	}
}

// BenchmarkSpaceAdmit is the free-space watch's cost per commit of 4 KiB
// (a statfs every 256 commits): go test -run '^$' -bench SpaceAdmit ./storage
func BenchmarkSpaceAdmit(b *testing.B) {
	w := newSpaceWatch(b.TempDir(), DefaultMinFreeBytes, 4*(64<<20))
	if _, err := w.statfs(w.dir); err != nil {
		b.Skip(err)
	}
	for i := 0; i < b.N; i++ {
		if err := w.admit(4 << 10); err != nil {
			b.Fatal(err)
		}
	}
}
