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

const crashChildEnv = "BLOOMCRAWL_STORAGE_CRASH_CHILD"

// crashChild runs in the re-executed test binary: it commits generated
// pages (plus a duplicate URL, queue entries and trace per page) as fast
// as it can into the store named by the environment, and prints each
// docId after its Commit returned. It never returns; the parent kills it.
func crashChild(dir string, round int) {
	// A small memtable makes flushes and compactions happen during the
	// run, so kills also land inside them.
	db, err := Open(dir, &Options{GCInterval: 50 * time.Millisecond, MemTableSize: 1 << 20})
	if err != nil {
		fmt.Fprintln(os.Stderr, "child open:", err)
		os.Exit(3)
	}
	out := bufio.NewWriter(os.Stdout)
	for i := uint64(1); ; i++ {
		id := uint64(round)<<32 | i
		p := genPage(id)
		c := Commit{
			Page:    p,
			URL:     &URLRecord{URL: p.URL + "?dup", DocID: DocID(id), Duplicate: true, Reason: "url", Status: 200},
			Enqueue: []QueueEntry{{URL: p.URL + "#next", Depth: 1}},
			Trace:   []string{p.URL, p.URL + "?dup"},
		}
		if _, err := db.Commit(context.Background(), c); err != nil {
			fmt.Fprintln(os.Stderr, "child commit:", err)
			os.Exit(4)
		}
		fmt.Fprintf(out, "%d\n", id)
		out.Flush() // the parent must only hear about committed pages
	}
}

func TestMain(m *testing.M) {
	if v := os.Getenv(crashChildEnv); v != "" {
		dir, round, _ := strings.Cut(v, "|")
		r, _ := strconv.Atoi(round)
		crashChild(dir, r)
	}
	if dir := os.Getenv(versionChildEnv); dir != "" {
		versionChild(dir)
	}
	code := m.Run()
	if lookupDir != "" {
		os.RemoveAll(lookupDir)
	}
	os.Exit(code)
}

// TestCrashRecovery kills a writing child process with SIGKILL at a random
// moment, several times, and checks after each kill that every page the
// child reported as committed is stored complete, with its URL records,
// and that no index points at a missing record.
func TestCrashRecovery(t *testing.T) {
	if testing.Short() {
		t.Skip("re-executes the test binary")
	}
	dir := t.TempDir()
	var reported []uint64
	rounds, maxCommits := 5, 200
	if raceEnabled {
		rounds, maxCommits = 3, 60
	}
	for round := 1; round <= rounds; round++ {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), fmt.Sprintf("%s=%s|%d", crashChildEnv, dir, round))
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		var stderr strings.Builder
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		// Kill after a random number of commits (5..maxCommits) plus a random
		// extra delay, so the kill lands anywhere inside a commit.
		killAfter := 5 + rand.IntN(maxCommits-4)
		sc := bufio.NewScanner(stdout)
		n := 0
		killed := false
		for sc.Scan() {
			id, err := strconv.ParseUint(sc.Text(), 10, 64)
			if err != nil {
				t.Fatalf("round %d: child printed %q", round, sc.Text())
			}
			reported = append(reported, id)
			n++
			if n == killAfter && !killed {
				time.Sleep(time.Duration(rand.IntN(3000)) * time.Microsecond)
				cmd.Process.Signal(syscall.SIGKILL)
				killed = true
			}
		}
		err = cmd.Wait()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
			t.Fatalf("round %d: child ended with %v, not SIGKILL; stderr:\n%s", round, err, stderr.String())
		}

		if round == 1 {
			// A read-only open must refuse a store that needs log replay
			// and must not change it.
			if _, err := Open(dir, &Options{ReadOnly: true}); !errors.Is(err, ErrNeedsRecovery) {
				t.Fatalf("read-only open after crash: err = %v, want ErrNeedsRecovery", err)
			}
		}
		db, err := Open(dir, &Options{GCInterval: -1})
		if err != nil {
			t.Fatalf("round %d: reopen after SIGKILL: %v", round, err)
		}
		// Verify the pages reported in this round (earlier rounds' pages
		// were verified before, and Check below decodes every page).
		for _, id := range reported[len(reported)-n:] {
			want := genPage(id)
			got, err := db.Page(DocID(id))
			if err != nil {
				t.Fatalf("round %d: reported page %x: %v", round, id, err)
			}
			if !pagesEqual(got, *want) {
				t.Fatalf("round %d: page %x differs after crash", round, id)
			}
			if _, rec, err := db.PageByURL(want.URL + "?dup"); err != nil || rec.DocID != DocID(id) || !rec.Duplicate {
				t.Fatalf("round %d: duplicate URL of %x: %+v %v", round, id, rec, err)
			}
		}
		rep, err := db.Check(context.Background())
		if err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
		if rep.PendingRefs != 0 {
			t.Fatalf("round %d: %d URL records point at missing pages", round, rep.PendingRefs)
		}
		// Pages beyond the reported ones may exist (committed, but killed
		// before printing): at most one.
		if extra := rep.Pages - len(reported); extra < 0 || extra > 1 {
			t.Fatalf("round %d: %d pages stored, %d reported", round, rep.Pages, len(reported))
		}
		if err := db.Close(); err != nil {
			t.Fatalf("round %d: close: %v", round, err)
		}
		t.Logf("round %d: killed after %d commits; %d pages reported, %d stored, store consistent", round, n, len(reported), rep.Pages)
		// The child may have committed one page it was killed before
		// reporting; it counts as reported from now on.
		if rep.Pages == len(reported)+1 {
			reported = append(reported, uint64(round)<<32|uint64(n+1))
		}
	}
}
