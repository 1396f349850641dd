package storage

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// versionText is the text of version n of the test document: each version
// is a different text.
func versionText(n int) string {
	return strings.Repeat(fmt.Sprintf("version %d says something else entirely. ", n), 20+n)
}

var versionT0 = time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)

// versionAt is when version n was first fetched.
func versionAt(n int) time.Time { return versionT0.Add(time.Duration(n) * time.Hour) }

// commitVersion commits version n (>= 2) of p as a refresh would: the page
// record replaced, version n-1 kept, at most keep versions in all, the URL
// record counting n versions.
func commitVersion(ctx context.Context, db *DB, p *Page, n, keep int) error {
	up := *p
	up.Title = fmt.Sprintf("title of version %d", n)
	up.Text = versionText(n)
	up.HTML = []byte("<p>" + up.Text + "</p>")
	since := versionAt(n - 1)
	if n == 2 {
		since = p.FetchedAt
	}
	_, err := db.Commit(ctx, Commit{
		Update:  &up,
		Version: &KeepVersion{N: n - 1, Since: since, Keep: keep},
		URL: &URLRecord{URL: p.URL, DocID: p.DocID, Reason: ReasonNew, Status: 200,
			FetchedAt: versionAt(n), ChangedAt: versionAt(n), Versions: n, VersionAt: versionAt(n)},
	})
	return err
}

// checkVersions verifies that the store holds versions last-keep+1 ..
// last of p (versions 1 .. last when fewer), each with its own text and
// first fetch time, the latest with its HTML and the older ones without,
// and that the versions before are reported as not kept.
func checkVersions(t *testing.T, db *DB, p *Page, last, keep int) {
	t.Helper()
	first := max(1, last-keep+1)
	infos, err := db.Versions(p.DocID)
	if err != nil {
		t.Fatalf("Versions: %v", err)
	}
	if len(infos) != last-first+1 {
		t.Fatalf("Versions: %d kept (%+v), want %d to %d", len(infos), infos, first, last)
	}
	for i, info := range infos {
		n := first + i
		wantAt := versionAt(n)
		if n == 1 {
			wantAt = p.FetchedAt
		}
		if info.N != n || info.Latest != (n == last) || !info.FetchedAt.Equal(wantAt) {
			t.Errorf("Versions[%d] = %+v, want version %d first fetched %v (latest %v)", i, info, n, wantAt, n == last)
		}
		v, err := db.PageVersion(p.DocID, n)
		if err != nil {
			t.Fatalf("PageVersion(%d): %v", n, err)
		}
		wantText := p.Text
		if n > 1 {
			wantText = versionText(n)
		}
		if v.Text != wantText || v.Version != n || !v.FetchedAt.Equal(wantAt) || v.URL != p.URL || v.DocID != p.DocID {
			t.Errorf("PageVersion(%d): version %d, text %.40q, fetched %v; want text %.40q, fetched %v", n, v.Version, v.Text, v.FetchedAt, wantText, wantAt)
		}
		if (len(v.HTML) > 0) != (n == last) {
			t.Errorf("PageVersion(%d): %d bytes of HTML; only the latest keeps its HTML", n, len(v.HTML))
		}
		if info.TextBytes != len(wantText) {
			t.Errorf("Versions[%d].TextBytes = %d, want %d", i, info.TextBytes, len(wantText))
		}
	}
	for n := 1; n < first; n++ {
		if _, err := db.PageVersion(p.DocID, n); !errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), fmt.Sprintf("%d to %d are kept", first, last)) {
			t.Errorf("PageVersion(%d) of a version not kept: %v", n, err)
		}
	}
	if _, err := db.PageVersion(p.DocID, last+1); !errors.Is(err, ErrNotFound) {
		t.Errorf("PageVersion(%d) beyond the latest: %v", last+1, err)
	}
}

// TestPageVersions: each update with a KeepVersion keeps the replaced
// version and trims the list to Keep in the same commit; an update
// without one (an edit) replaces the page in place; versions survive a
// reopen, and a smaller Keep deletes the surplus at the next version.
func TestPageVersions(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	db := mustOpen(t, dir)
	p := genPage(42)
	if _, err := db.Commit(ctx, Commit{Page: p}); err != nil {
		t.Fatal(err)
	}
	checkVersions(t, db, p, 1, 3)
	const keep = 3
	for n := 2; n <= 6; n++ {
		if err := commitVersion(ctx, db, p, n, keep); err != nil {
			t.Fatalf("version %d: %v", n, err)
		}
		checkVersions(t, db, p, n, keep)
	}
	// An edit: the page replaced in place, no version kept or dropped.
	edit := *p
	edit.Title, edit.Text, edit.HTML = "title of version 6", versionText(6)+" (typo fixed)", []byte("<p>edited</p>")
	if _, err := db.Commit(ctx, Commit{Update: &edit}); err != nil {
		t.Fatal(err)
	}
	if v, err := db.PageVersion(p.DocID, 6); err != nil || v.Text != edit.Text {
		t.Fatalf("latest version after an edit: %v, text %.60q", err, v.Text)
	}
	if infos, err := db.Versions(p.DocID); err != nil || len(infos) != keep {
		t.Fatalf("versions after an edit: %+v, %v", infos, err)
	}
	rep, err := db.Check(ctx)
	if err != nil || rep.Versions != keep-1 {
		t.Fatalf("Check: %+v, %v; want %d old versions", rep, err, keep-1)
	}
	// Reopen: the same versions.
	db.Close()
	db = mustOpen(t, dir)
	if v, err := db.PageVersion(p.DocID, 5); err != nil || v.Text != versionText(5) || len(v.HTML) != 0 {
		t.Fatalf("version 5 after reopen: %v, text %.40q", err, v.Text)
	}
	// Keep 1: the next version deletes every old one.
	if err := commitVersion(ctx, db, p, 7, 1); err != nil {
		t.Fatal(err)
	}
	checkVersions(t, db, p, 7, 1)
	if rep, err := db.Check(ctx); err != nil || rep.Versions != 0 {
		t.Fatalf("Check after keep 1: %+v, %v", rep, err)
	}
	// Bad commits change nothing.
	for _, c := range []Commit{
		{Version: &KeepVersion{N: 1, Keep: 2}},
		{Update: p, Version: &KeepVersion{N: 0, Keep: 2}},
		{Update: p, Version: &KeepVersion{N: 7, Keep: 0}},
	} {
		if _, err := db.Commit(ctx, c); err == nil || !strings.Contains(err.Error(), "Version") {
			t.Errorf("Commit(%+v): %v, want an error naming Version", c.Version, err)
		}
	}
	missing := genPage(43)
	if _, err := db.Commit(ctx, Commit{Update: missing, Version: &KeepVersion{N: 1, Keep: 2}}); !errors.Is(err, ErrNotFound) {
		t.Errorf("version of a page not stored: %v, want ErrNotFound", err)
	}
	if _, err := db.Versions(missing.DocID); !errors.Is(err, ErrNotFound) {
		t.Errorf("Versions of a page not stored: %v", err)
	}
	checkVersions(t, db, p, 7, 1)
}

const versionChildEnv = "BLOOMCRAWL_STORAGE_VERSION_CHILD"

// versionKeep is the versions the crash child keeps.
const versionKeep = 3

// versionChild runs in the re-executed test binary: it stores the test
// page if the store has none, then commits version after version of it
// (continuing from the stored count), printing each version number after
// its Commit returned. It never returns; the parent kills it.
func versionChild(dir string) {
	db, err := Open(dir, &Options{GCInterval: 50 * time.Millisecond, MemTableSize: 1 << 20})
	if err != nil {
		fmt.Fprintln(os.Stderr, "child open:", err)
		os.Exit(3)
	}
	ctx := context.Background()
	p := genPage(7)
	rec, err := db.URLRecord(p.URL)
	if errors.Is(err, ErrNotFound) {
		_, err = db.Commit(ctx, Commit{Page: p})
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "child:", err)
		os.Exit(4)
	}
	out := bufio.NewWriter(os.Stdout)
	for n := max(rec.Versions, 1) + 1; ; n++ {
		if err := commitVersion(ctx, db, p, n, versionKeep); err != nil {
			fmt.Fprintln(os.Stderr, "child commit:", err)
			os.Exit(4)
		}
		fmt.Fprintf(out, "%d\n", n)
		out.Flush() // the parent must only hear about committed versions
	}
}

// TestVersionsCrash kills a child that commits version after version of
// one page with SIGKILL at random moments: after each kill the store has
// the latest version it reported (or the one after, committed but not
// reported), exactly the versions to keep before it, each with its own
// text, and passes Check.
func TestVersionsCrash(t *testing.T) {
	if testing.Short() {
		t.Skip("re-executes the test binary")
	}
	dir := t.TempDir()
	p := genPage(7)
	last := 1
	for round := 1; round <= 3; round++ {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), versionChildEnv+"="+dir)
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		var stderr strings.Builder
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		killAfter := 5 + rand.IntN(60)
		sc := bufio.NewScanner(stdout)
		n, killed := 0, false
		for sc.Scan() {
			v, err := strconv.Atoi(sc.Text())
			if err != nil || v != last+1 {
				t.Fatalf("round %d: child printed %q after version %d", round, sc.Text(), last)
			}
			last = v
			n++
			if n == killAfter && !killed {
				time.Sleep(time.Duration(rand.IntN(2000)) * time.Microsecond)
				cmd.Process.Signal(syscall.SIGKILL)
				killed = true
			}
		}
		err = cmd.Wait()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
			t.Fatalf("round %d: child ended with %v, not SIGKILL; stderr:\n%s", round, err, stderr.String())
		}
		db, err := Open(dir, &Options{GCInterval: -1})
		if err != nil {
			t.Fatalf("round %d: reopen: %v", round, err)
		}
		rec, err := db.URLRecord(p.URL)
		if err != nil {
			t.Fatal(err)
		}
		if rec.Versions != last && rec.Versions != last+1 {
			t.Fatalf("round %d: store has %d versions, child reported %d", round, rec.Versions, last)
		}
		last = rec.Versions // one committed but not reported counts from now on
		checkVersions(t, db, p, last, versionKeep)
		if _, err := db.Check(context.Background()); err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
		db.Close()
		t.Logf("round %d: killed after %d versions; store at version %d, consistent", round, n, last)
	}
}
