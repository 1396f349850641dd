//go:build linux

package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"syscall"
	"testing"

	"github.com/bloomcrawl/bloomcrawl/storage"
)

// mountTmpfs mounts a tmpfs of size (as mount -o size=) on a new directory
// and unmounts it when the test ends. Without the privilege to mount it
// skips, except in CI (BLOOMCRAWL_CI=1), where it fails: CI runs as root.
func mountTmpfs(t *testing.T, size string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "tmpfs")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mount("tmpfs", dir, "tmpfs", 0, "size="+size+",mode=0755"); err != nil {
		msg := fmt.Sprintf("mount a %s tmpfs on %s: %v (this test needs root: it fills a small filesystem)", size, dir, err)
		if os.Getenv("BLOOMCRAWL_CI") == "1" {
			t.Fatal(msg + "; .ci/run must run as root")
		}
		t.Skip(msg)
	}
	t.Cleanup(func() {
		if err := syscall.Unmount(dir, 0); err != nil {
			t.Errorf("unmount %s: %v", dir, err)
			syscall.Unmount(dir, syscall.MNT_DETACH)
		}
	})
	return dir
}

// TestDiskFullStopsCrawlCleanly fills a 16 MiB tmpfs with a crawl of a
// generated site (in a child process, so that a SIGBUS inside Badger would
// show as a crash instead of killing the test), and checks that the crawl
// ends with exit status 75 and one line saying what ran out, where and how
// to go on; that the store is consistent (query check); that running it
// again on the still-full disk stops the same way; and that after the
// filesystem is grown (remount) the same command resumes and ends with
// exactly the URLs an uninterrupted crawl records.
func TestDiskFullStopsCrawlCleanly(t *testing.T) {
	const pages, words = 2000, 800 // about 10 KB stored per page: 20 MB in all
	srv := httptest.NewServer(treeSite(pages, words))
	defer srv.Close()
	mnt := mountTmpfs(t, "16m")
	store := filepath.Join(mnt, "s")
	cfgPath := filepath.Join(t.TempDir(), "crawl.yaml")
	cfg := fmt.Sprintf(`seeds: [%s/p/0]
politeness:
  obey_robots: false
  concurrency: 8
  per_host_parallelism: 8
store:
  min_free_bytes: %d
`, srv.URL, 4<<20)
	if err := os.WriteFile(cfgPath, []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	args := []string{"crawl", cfgPath, "--store", store, "--json", "--mem-limit-mb", "0"}

	// 1. The disk fills up: a clean stop with status 75 and one line.
	r := runChild(t, nil, args...)
	if r.crashed() || r.code != exitNoSpace {
		t.Fatalf("crawl on a full disk: exit %d %s, want %d and no crash; stderr:\n%s", r.code, r.signal, exitNoSpace, tail(r.stderr, 40))
	}
	lines := strings.Split(strings.TrimSpace(r.stderr), "\n")
	last := lines[len(lines)-1]
	want := regexp.MustCompile(`^bloomcrawl crawl: disk full: [0-9.]+ [KM]iB free on ` + regexp.QuoteMeta(mnt) +
		` \(store ` + regexp.QuoteMeta(store) + `\), below the [0-9.]+ MiB the store keeps \(store\.min_free_bytes 4\.0 MiB \+ [0-9.]+ [KM]iB of memtables to flush at close\); stopped cleanly, unfinished URLs stay queued: free some space and run the same command again to resume$`)
	if !want.MatchString(last) {
		t.Errorf("last stderr line:\n%s\nwant it to match %s", last, want)
	}
	if !regexp.MustCompile(`msg=progress .* disk_free="[0-9.]+ [KM]iB" stops_below="[0-9.]+ MiB"`).MatchString(r.stderr) {
		t.Errorf("no progress line shows the low free space; stderr:\n%s", tail(r.stderr, 10))
	}
	if n := strings.Count(r.stderr, "disk full"); n != 1 {
		t.Errorf("stderr says \"disk full\" %d times, want once:\n%s", n, r.stderr)
	}
	var first struct {
		Stored int64 `json:"stored"`
		Queued int64 `json:"queued_left"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &first); err != nil || first.Stored == 0 || first.Queued == 0 {
		t.Fatalf("summary of the stopped crawl: %v %q; want pages stored and some left queued (the site must overflow the disk)", err, r.stdout)
	}
	t.Logf("stopped after %d pages, %d queued: %s", first.Stored, first.Queued, last)
	queryCheck(t, store)

	// 2. Run again without freeing space: stops the same way at once.
	r = runChild(t, nil, args...)
	if r.crashed() || r.code != exitNoSpace || !strings.Contains(r.stderr, "disk full") {
		t.Fatalf("second run on the full disk: exit %d %s; stderr:\n%s", r.code, r.signal, tail(r.stderr, 40))
	}

	// 3. Grow the filesystem and run the same command: it resumes and
	// finishes.
	if err := syscall.Mount("tmpfs", mnt, "tmpfs", syscall.MS_REMOUNT, "size=64m,mode=0755"); err != nil {
		t.Fatalf("remount the tmpfs larger: %v", err)
	}
	r = runChild(t, nil, args...)
	if r.crashed() || r.code != 0 {
		t.Fatalf("resumed crawl: exit %d %s; stderr:\n%s", r.code, r.signal, tail(r.stderr, 40))
	}
	var resumed struct {
		Queued  int64 `json:"queued_left"`
		Resumed int64 `json:"resumed_urls"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &resumed); err != nil || resumed.Queued != 0 || resumed.Resumed == 0 {
		t.Fatalf("resumed crawl's summary: %v %q; want it resumed and nothing left queued", err, r.stdout)
	}
	queryCheck(t, store)

	// 4. The same crawl uninterrupted, on the roomy disk: the same URLs.
	ref := filepath.Join(t.TempDir(), "ref")
	refArgs := append(append([]string{}, args[:2]...), "--store", ref, "--json", "--mem-limit-mb", "0")
	if code := run(context.Background(), refArgs, io.Discard, io.Discard); code != 0 {
		t.Fatalf("uninterrupted crawl: exit %d", code)
	}
	got, wantURLs := storeURLs(t, store), storeURLs(t, ref)
	if len(wantURLs) != pages {
		t.Errorf("uninterrupted crawl recorded %d URLs, want the site's %d pages", len(wantURLs), pages)
	}
	var missing, extra []string
	for u := range wantURLs {
		if !got[u] {
			missing = append(missing, u)
		}
	}
	for u := range got {
		if !wantURLs[u] {
			extra = append(extra, u)
		}
	}
	sort.Strings(missing)
	sort.Strings(extra)
	if len(missing) > 0 || len(extra) > 0 {
		t.Errorf("stopped and resumed crawl vs uninterrupted: %d URLs missing %.5v, %d extra %.5v", len(missing), missing, len(extra), extra)
	}
}

// queryCheck runs `bloomcrawl query --store dir check` and fails unless it
// says the store is consistent.
func queryCheck(t *testing.T, dir string) {
	t.Helper()
	var out, errb strings.Builder
	if code := run(context.Background(), []string{"query", "--store", dir, "check"}, &out, &errb); code != 0 || !strings.Contains(out.String(), "store is consistent") {
		t.Fatalf("query check %s: exit %d\n%s%s", dir, code, out.String(), errb.String())
	}
}

// storeURLs is the set of URLs recorded in the store in dir.
func storeURLs(t *testing.T, dir string) map[string]bool {
	t.Helper()
	db, err := storage.Open(dir, &storage.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	urls := map[string]bool{}
	err = db.ForEachURL(context.Background(), func(r storage.URLRecord) error {
		if r.Err != "" {
			return errors.New(r.URL + ": " + r.Err)
		}
		urls[r.URL] = true
		return nil
	})
	if err != nil {
		t.Fatalf("URLs of %s: %v", dir, err)
	}
	return urls
}

// tail is the last n lines of s.
func tail(s string, n int) string {
	lines := strings.Split(s, "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// TestFullTmpfsFaultIsAnError shows what the free-space watch prevents and
// checks what remains: with the watch off (store.min_free_bytes: -1) a
// crawl that fills a tmpfs dies of SIGBUS inside Badger; its store, on the
// still-full tmpfs, with a page of its memtable log missing (a hole, as
// on a filesystem that could not back it), then faults when Badger reads
// it at open (tmpfs needs a free page even to read a hole), and
// `query stats` must report that as a full disk (exit 75), not crash.
func TestFullTmpfsFaultIsAnError(t *testing.T) {
	srv := httptest.NewServer(treeSite(2000, 800))
	defer srv.Close()
	mnt := mountTmpfs(t, "8m")
	store := filepath.Join(mnt, "s")
	cfgPath := filepath.Join(t.TempDir(), "crawl.yaml")
	cfg := fmt.Sprintf("seeds: [%s/p/0]\npoliteness:\n  obey_robots: false\nstore:\n  min_free_bytes: -1\n", srv.URL)
	if err := os.WriteFile(cfgPath, []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	r := runChild(t, nil, "crawl", cfgPath, "--store", store, "--json", "--mem-limit-mb", "0")
	if r.code == 0 || !strings.Contains(r.stderr, "SIGBUS") {
		t.Fatalf("crawl with the watch off on a full tmpfs: exit %d, want a SIGBUS crash (what the watch prevents); stderr:\n%s", r.code, tail(r.stderr, 20))
	}
	mems, _ := filepath.Glob(filepath.Join(store, "*.mem"))
	if len(mems) == 0 {
		t.Fatal("the crashed store has no memtable log")
	}
	f, err := os.OpenFile(mems[0], os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	const punchHole = 0x02 | 0x01 // FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE
	err = syscall.Fallocate(int(f.Fd()), punchHole, 8192, 4096)
	f.Close()
	if err != nil {
		t.Fatalf("punch a hole in %s: %v", mems[0], err)
	}
	filler, err := os.Create(filepath.Join(mnt, "filler"))
	if err != nil {
		t.Fatal(err)
	}
	for _, err = filler.Write(make([]byte, 4096)); err == nil; _, err = filler.Write(make([]byte, 4096)) {
	}
	filler.Close()
	if !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("filling the tmpfs: %v", err)
	}
	r = runChild(t, nil, "query", "--store", store, "stats")
	if r.crashed() || r.code != exitNoSpace || !strings.Contains(r.stderr, "bloomcrawl query: disk full: 0 B free on "+mnt) || !strings.Contains(r.stderr, "faulted") {
		t.Fatalf("query on the full tmpfs: exit %d %s, want %d and a disk-full line about the fault; stderr:\n%s", r.code, r.signal, exitNoSpace, tail(r.stderr, 20))
	}
	t.Log(strings.TrimSpace(r.stderr))
}
