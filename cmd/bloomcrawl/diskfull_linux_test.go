//go:build linux

package main

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

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
	size := `(?:[0-9.]+ [KM]iB|[0-9]+ bytes)`
	want := regexp.MustCompile(`^bloomcrawl crawl: disk full: ` + size + ` free on ` + regexp.QuoteMeta(mnt) +
		` \(store ` + regexp.QuoteMeta(store) + `\), below the ` + size + ` the store keeps \(store\.min_free_bytes 4\.0 MiB \+ [0-9.]+ [KM]iB of memtables to flush at close\); stopped cleanly, unfinished URLs stay queued: free some space and run the same command again to resume$`)
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

// TestDedupStoreDiskFull: `dedup --store` on a filesystem that fills up
// stops at the line that found it out (answered with an error), exits 75
// with one line, keeps what it answered before (query check), and a
// second run with the remaining lines after the filesystem grew records
// every document.
func TestDedupStoreDiskFull(t *testing.T) {
	const docs = 3000
	mnt := mountTmpfs(t, "12m")
	store := filepath.Join(mnt, "s")
	in := filepath.Join(t.TempDir(), "docs.jsonl")
	var lines []string
	page := treeSite(docs, 400)
	for i := 0; i < docs; i++ {
		rec := httptest.NewRecorder()
		page.ServeHTTP(rec, httptest.NewRequest("GET", fmt.Sprintf("/p/%d", i), nil))
		b, _ := json.Marshal(map[string]any{"id": i, "url": fmt.Sprintf("http://docs.example/%d", i), "title": fmt.Sprintf("Document %d", i), "content": rec.Body.String()})
		lines = append(lines, string(b))
	}
	if err := os.WriteFile(in, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	args := []string{"dedup", "--store", store, "--min-free-bytes", fmt.Sprint(8 << 20), "--in", in}
	r := runChild(t, nil, args...)
	if r.crashed() || r.code != exitNoSpace {
		t.Fatalf("dedup --store on a full disk: exit %d %s, want %d; stderr:\n%s", r.code, r.signal, exitNoSpace, tail(r.stderr, 20))
	}
	errLine := strings.TrimSpace(r.stderr)
	if strings.Count(errLine, "\n") != 0 || !strings.HasPrefix(errLine, "bloomcrawl dedup: disk full: ") ||
		!strings.Contains(errLine, "--min-free-bytes 8.0 MiB") || !strings.Contains(errLine, "run again from the line of the last answer") {
		t.Errorf("stderr %q; want one disk-full line naming --min-free-bytes", errLine)
	}
	answers := strings.Split(strings.TrimSpace(r.stdout), "\n")
	n := len(answers)
	if n >= docs || !strings.Contains(answers[n-1], `"status":"error"`) {
		t.Fatalf("%d answers, the last %q; want fewer than %d, the last an error", n, answers[n-1], docs)
	}
	for _, a := range answers[:n-1] {
		if !strings.Contains(a, `"status":"success"`) {
			t.Fatalf("answer before the disk filled: %s", a)
		}
	}
	t.Logf("stopped at line %d of %d: %s", n, docs, errLine)
	queryCheck(t, store)
	if got := len(storeURLs(t, store)); got != n-1 {
		t.Errorf("store records %d documents, want the %d answered with success", got, n-1)
	}

	// Grow the filesystem, send the lines from the failed one on.
	if err := syscall.Mount("tmpfs", mnt, "tmpfs", syscall.MS_REMOUNT, "size=64m,mode=0755"); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(in, []byte(strings.Join(lines[n-1:], "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r = runChild(t, nil, args...)
	if r.code != 0 {
		t.Fatalf("dedup after the remount: exit %d; stderr:\n%s", r.code, tail(r.stderr, 20))
	}
	if got := len(storeURLs(t, store)); got != docs {
		t.Errorf("after the second run the store records %d documents, want %d", got, docs)
	}
	queryCheck(t, store)
}

// TestServeDiskFull: `serve` whose store's filesystem fills up answers 507,
// stops by itself (in-flight requests finish, the store closes) and exits
// 75 with one line; the store is consistent.
func TestServeDiskFull(t *testing.T) {
	mnt := mountTmpfs(t, "12m")
	store := filepath.Join(mnt, "s")
	a, _ := json.Marshal([]string{"serve", "--store", store, "--addr", "127.0.0.1:0", "--min-free-bytes", fmt.Sprint(8 << 20)})
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), childArgsEnv+"="+string(a))
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	listening := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if _, after, ok := strings.Cut(sc.Text(), "listening on "); ok {
				listening <- strings.Fields(after)[0]
			}
		}
		exited <- cmd.Wait()
	}()
	var base string
	select {
	case base = <-listening:
	case err := <-exited:
		t.Fatalf("serve exited before listening: %v\n%s", err, stderr.String())
	case <-time.After(60 * time.Second):
		cmd.Process.Kill()
		t.Fatalf("serve did not start listening in 60s:\n%s", stderr.String())
	}
	page := treeSite(5000, 400)
	got507 := false
	for i := 0; i < 5000 && !got507; i++ {
		rec := httptest.NewRecorder()
		page.ServeHTTP(rec, httptest.NewRequest("GET", fmt.Sprintf("/p/%d", i), nil))
		body, _ := json.Marshal(map[string]any{"url": fmt.Sprintf("http://docs.example/%d", i), "title": fmt.Sprintf("Document %d", i), "content": rec.Body.String()})
		resp, err := http.Post(strings.TrimSuffix(base, "/")+"/v1/docid", "application/json", bytes.NewReader(body))
		if err != nil {
			t.Fatalf("POST %d before any 507: %v", i, err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		got507 = resp.StatusCode == http.StatusInsufficientStorage
	}
	if !got507 {
		cmd.Process.Kill()
		t.Fatal("5000 documents fitted: the filesystem never filled")
	}
	select {
	case <-exited:
	case <-time.After(30 * time.Second):
		cmd.Process.Kill()
		t.Fatalf("serve still running 30s after a 507:\n%s", stderr.String())
	}
	r := childResult{code: cmd.ProcessState.ExitCode(), stderr: stderr.String()}
	last := tail(strings.TrimSpace(r.stderr), 1)
	if r.crashed() || r.code != exitNoSpace || !strings.HasPrefix(last, "bloomcrawl serve: disk full: ") ||
		!strings.Contains(last, "--min-free-bytes 8.0 MiB") || !strings.HasSuffix(last, "stopped cleanly: free some space and start it again") {
		t.Fatalf("serve after a 507: exit %d, last line %q; want %d and the disk-full line\n%s", r.code, last, exitNoSpace, tail(r.stderr, 20))
	}
	queryCheck(t, store)
}

// TestWARCDiskFull: a crawl whose WARC directory (--warc) fills up stops
// with status 75 naming the file, leaves every WARC file readable to its
// end (no record cut short), and resumes after the filesystem grew: the
// store then has every page, and the WARC files hold a response for each.
func TestWARCDiskFull(t *testing.T) {
	const pages = 1500
	srv := httptest.NewServer(treeSite(pages, 400))
	defer srv.Close()
	mnt := mountTmpfs(t, "1m")
	store := filepath.Join(t.TempDir(), "s")
	args := []string{"crawl", "--seed", srv.URL + "/p/0", "--store", store, "--warc", mnt, "--json", "--mem-limit-mb", "0"}
	r := runChild(t, nil, args...)
	last := tail(strings.TrimSpace(r.stderr), 1)
	if r.crashed() || r.code != exitNoSpace || !strings.HasPrefix(last, "bloomcrawl crawl: disk full: ") ||
		!strings.Contains(last, mnt) || !strings.Contains(last, "no space left on device") {
		t.Fatalf("crawl with a full WARC directory: exit %d, last line %q; want %d and a disk-full line naming the file\n%s", r.code, last, exitNoSpace, tail(r.stderr, 20))
	}
	responses := func() int {
		files, _ := filepath.Glob(filepath.Join(mnt, "*.warc.gz*"))
		n := 0
		for _, f := range files {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			zr, err := gzip.NewReader(bytes.NewReader(data))
			if err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			text, err := io.ReadAll(zr) // every gzip member, to the end
			if err != nil {
				t.Fatalf("%s is not readable to its end: %v", f, err)
			}
			n += strings.Count(string(text), "WARC-Type: response\r\n")
		}
		return n
	}
	first := responses()
	queryCheck(t, store)
	if err := syscall.Mount("tmpfs", mnt, "tmpfs", syscall.MS_REMOUNT, "size=32m,mode=0755"); err != nil {
		t.Fatal(err)
	}
	r = runChild(t, nil, args...)
	if r.code != 0 {
		t.Fatalf("resumed crawl: exit %d\n%s", r.code, tail(r.stderr, 20))
	}
	if got := len(storeURLs(t, store)); got != pages {
		t.Errorf("store records %d URLs after the resume, want %d", got, pages)
	}
	if all := responses(); all < pages {
		t.Errorf("WARC files hold %d responses (%d before the disk filled), want at least %d", all, first, pages)
	}
	queryCheck(t, store)
}
