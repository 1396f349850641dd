package main

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/bloomcrawl/bloomcrawl/seen"
)

// TestSeenCommand drives `bloomcrawl seen` end to end: add, test (input
// order), show, delete, and usage errors (exit 2).
func TestSeenCommand(t *testing.T) {
	dir := t.TempDir()
	if out, errOut, code := runSeenCmd(t, "seen", "--store", dir, "add", "reader-1", "d1", "d2", "d3"); code != 0 || !strings.Contains(out, "recorded 3 ids") {
		t.Fatalf("add: exit %d, %q %q", code, out, errOut)
	}
	out, errOut, code := runSeenCmd(t, "seen", "--store", dir, "test", "reader-1", "n1", "d2", "d1", "n2")
	if code != 0 || out != "new\tn1\nseen\td2\nseen\td1\nnew\tn2\n" {
		t.Fatalf("test: exit %d, %q %q", code, out, errOut)
	}
	out, _, code = runSeenCmd(t, "seen", "--store", dir, "test", "reader-1", "--json", "n1", "d3")
	var ans struct{ Seen, New []string }
	if err := json.Unmarshal([]byte(out), &ans); code != 0 || err != nil || strings.Join(ans.Seen, ",") != "d3" || strings.Join(ans.New, ",") != "n1" {
		t.Fatalf("test --json: exit %d, %q, %v", code, out, err)
	}
	out, _, code = runSeenCmd(t, "seen", "--store", dir, "--json", "show", "reader-1")
	var rec seen.Record
	if err := json.Unmarshal([]byte(out), &rec); code != 0 || err != nil || len(rec.Blocks) != 1 || rec.Blocks[0].Count != 3 {
		t.Fatalf("show: exit %d, %q, %v", code, out, err)
	}
	if out, _, code = runSeenCmd(t, "seen", "--store", dir, "delete", "reader-1"); code != 0 || !strings.Contains(out, "deleted") {
		t.Fatalf("delete: exit %d, %q", code, out)
	}
	for _, args := range [][]string{
		{"seen", "add", "k", "x"},                             // no --store
		{"seen", "--store", dir, "frob", "k"},                 // unknown action
		{"seen", "--store", dir, "show"},                      // no key
		{"seen", "--store", dir, "show", "k", "extra"},        // ids on show
		{"seen", "--store", dir, "add", "k:test", "x"},        // reserved key
		{"seen", "--store", dir, "--blocks", "1", "add", "k"}, // bad option
	} {
		if _, errOut, code := runSeenCmd(t, args...); code != 2 {
			t.Errorf("%q: exit %d (%s), want 2", args, code, errOut)
		}
	}
}

// TestBenchSeen runs a small `bench seen` and checks what it must show:
// every id of the window remembered and Bloom smaller than the plain list.
func TestBenchSeen(t *testing.T) {
	out, errOut, code := runSeenCmd(t, "bench", "seen", "--json", "--ids", "500", "--capacity", "100", "--rounds", "1", "--calls", "2", "--probes", "2000")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var m seen.Measurement
	if err := json.Unmarshal([]byte(out), &m); err != nil {
		t.Fatal(err)
	}
	if m.BloomBytes >= m.PlainBytes || m.RecordBlocks != 5 || m.FalsePositives == 0 && m.PredictedFP > 0.01 {
		t.Fatalf("measurement %+v", m)
	}
	for _, p := range m.Window {
		if p.LastHit != p.Last {
			t.Errorf("after %d ids: %d of the last %d remembered", p.After, p.LastHit, p.Last)
		}
	}
}

// runSeenCmd runs bloomcrawl with args and returns stdout, stderr and the exit
// code.
func runSeenCmd(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(context.Background(), args, &out, &errb)
	return out.String(), errb.String(), code
}
