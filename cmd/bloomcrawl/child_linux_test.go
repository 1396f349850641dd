//go:build linux

package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// Tests that must see the command crash rather than crash themselves run
// bloomcrawl in a child process: this test binary re-executed with
// BLOOMCRAWL_TEST_CHILD_ARGS set, which TestMain runs as the command line.
const (
	childArgsEnv   = "BLOOMCRAWL_TEST_CHILD_ARGS"   // JSON array of arguments
	childNoFileEnv = "BLOOMCRAWL_TEST_CHILD_NOFILE" // RLIMIT_NOFILE to set first (soft and hard, as ulimit -n does)
)

func TestMain(m *testing.M) {
	if a := os.Getenv(childArgsEnv); a != "" {
		os.Exit(childMain(a))
	}
	os.Exit(m.Run())
}

// childMain is main for a child started by runChild.
func childMain(argsJSON string) int {
	var args []string
	if err := json.Unmarshal([]byte(argsJSON), &args); err != nil {
		fmt.Fprintf(os.Stderr, "child: bad %s: %v\n", childArgsEnv, err)
		return 3
	}
	if n := os.Getenv(childNoFileEnv); n != "" {
		lim, err := strconv.ParseUint(n, 10, 64)
		if err == nil {
			// The hard limit too: Go raises the soft limit to the hard one
			// at start, and ulimit -n sets both.
			err = syscall.Setrlimit(syscall.RLIMIT_NOFILE, &syscall.Rlimit{Cur: lim, Max: lim})
		}
		if err != nil {
			fmt.Fprintf(os.Stderr, "child: RLIMIT_NOFILE %s: %v\n", n, err)
			return 3
		}
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return run(ctx, args, os.Stdout, os.Stderr)
}

// childResult is how a child bloomcrawl ended.
type childResult struct {
	code           int // exit status; -1 when killed by a signal
	signal         string
	stdout, stderr string
}

// runChild runs bloomcrawl args in a child process (this test binary) with
// extra environment variables, and returns how it ended.
func runChild(t *testing.T, env []string, args ...string) childResult {
	t.Helper()
	a, _ := json.Marshal(args)
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(append(os.Environ(), childArgsEnv+"="+string(a)), env...)
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	r := childResult{stdout: out.String(), stderr: errb.String()}
	var ee *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &ee):
		r.code = ee.ExitCode()
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			r.signal = ws.Signal().String()
		}
	default:
		t.Fatalf("run child bloomcrawl %v: %v", args, err)
	}
	return r
}

// crashed reports whether a child's stderr shows a Go crash (a panic, a
// fatal fault such as SIGBUS, a goroutine dump) or it died by a signal.
func (r childResult) crashed() bool {
	return r.signal != "" || strings.Contains(r.stderr, "fatal error") || strings.Contains(r.stderr, "panic:") ||
		strings.Contains(r.stderr, "SIGBUS") || strings.Contains(r.stderr, "\ngoroutine ")
}

// treeSite serves n generated pages /p/0 … /p/{n-1}: page i links to
// pages 4i+1 … 4i+4 and has about words words of text drawn from 4,096
// made-up words (so that its HTML compresses to roughly a quarter, as real
// text does, and no two pages are near-duplicates). Every other path is
// 404. The same i always gives the same bytes.
func treeSite(n, words int) http.Handler {
	r := rand.New(rand.NewPCG(1, 2))
	vocab := make([]string, 4096)
	for i := range vocab {
		b := make([]byte, 4+r.IntN(5))
		for j := range b {
			b[j] = byte('a' + r.IntN(26))
		}
		vocab[i] = string(b)
	}
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		i, err := strconv.Atoi(strings.TrimPrefix(req.URL.Path, "/p/"))
		if !strings.HasPrefix(req.URL.Path, "/p/") || err != nil || i < 0 || i >= n || strconv.Itoa(i) != req.URL.Path[3:] {
			http.NotFound(w, req)
			return
		}
		pr := rand.New(rand.NewPCG(uint64(i), 3))
		var b strings.Builder
		fmt.Fprintf(&b, "<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>Page %d: %s %s</title></head><body><main><h1>Page %d</h1>\n",
			i, vocab[pr.IntN(len(vocab))], vocab[pr.IntN(len(vocab))], i)
		for c := 4*i + 1; c <= 4*i+4 && c < n; c++ {
			fmt.Fprintf(&b, "<a href=\"/p/%d\">%s</a>\n", c, vocab[pr.IntN(len(vocab))])
		}
		for k := 0; k < words; k++ {
			if k%100 == 0 {
				b.WriteString("<p>")
			}
			b.WriteString(vocab[pr.IntN(len(vocab))])
			b.WriteByte(' ')
			if k%100 == 99 {
				b.WriteString("</p>\n")
			}
		}
		b.WriteString("</main></body></html>\n")
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write([]byte(b.String()))
	})
}

// TestCrawlWithFortyFileDescriptors crawls a generated site in a child
// process limited to 40 open files (ulimit -n 40), with 16 requests in
// flight: the crawl must finish and record every page. Lower, the child
// must fail with a clear error, not crash.
func TestCrawlWithFortyFileDescriptors(t *testing.T) {
	const pages = 400
	srv := httptest.NewServer(treeSite(pages, 300))
	defer srv.Close()
	for _, c := range []struct {
		nofile string
		ok     bool
	}{{"40", true}, {"12", false}} {
		store := filepath.Join(t.TempDir(), "s")
		r := runChild(t, []string{childNoFileEnv + "=" + c.nofile},
			"crawl", "--seed", srv.URL+"/p/0", "--store", store, "--json", "--mem-limit-mb", "0")
		if r.crashed() {
			t.Fatalf("ulimit -n %s: the crawl crashed (exit %d %s):\n%s", c.nofile, r.code, r.signal, tail(r.stderr, 40))
		}
		if !c.ok {
			if r.code == 0 || !strings.Contains(r.stderr, "too many open files") {
				t.Errorf("ulimit -n %s: exit %d, want a failure that says \"too many open files\"; stderr:\n%s", c.nofile, r.code, tail(r.stderr, 10))
			}
			t.Logf("ulimit -n %s: exit %d: %s", c.nofile, r.code, r.stderr)
			continue
		}
		if r.code != 0 {
			t.Fatalf("ulimit -n %s: exit %d; stderr:\n%s", c.nofile, r.code, tail(r.stderr, 40))
		}
		t.Logf("ulimit -n %s: %s", c.nofile, r.stdout)
		if n := len(storeURLs(t, store)); n != pages {
			t.Errorf("ulimit -n %s: %d URLs recorded, want %d", c.nofile, n, pages)
		}
	}
}
