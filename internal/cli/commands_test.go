package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"testing"
)

// TestExitCode: the exit codes both commands share, and the one line each
// writes.
func TestExitCode(t *testing.T) {
	for _, tc := range []struct {
		err    error
		code   int
		stderr string
	}{
		{nil, 0, ""},
		{flag.ErrHelp, 0, ""},
		{Usagef("--n %d: must be at least 1", 0), 2, "prog cmd: --n 0: must be at least 1\n"},
		{fmt.Errorf("crawl: %w", context.Canceled), 130, "prog cmd: interrupted\n"},
		{errors.New("boom"), 1, "prog cmd: boom\n"},
	} {
		var w strings.Builder
		if code := ExitCode("prog", "cmd", tc.err, &w); code != tc.code || w.String() != tc.stderr {
			t.Errorf("ExitCode(%v) = %d, %q; want %d, %q", tc.err, code, w.String(), tc.code, tc.stderr)
		}
	}
}

// TestLookup: help and no arguments print the usage to stdout, an unknown
// command says so on stderr; a known one is found.
func TestLookup(t *testing.T) {
	cmds := map[string]Command{}
	Register(cmds, "prog", "b", Command{Name: "b", Summary: "the b command"})
	Register(cmds, "prog", "a", Command{Name: "a", Summary: "the a command"})
	usage := func(w io.Writer) { WriteUsage(w, "prog", cmds, 3, func(c Command) string { return c.Summary }) }
	const want = "usage: prog <command> [flags] [args]\n\ncommands:\n  a   the a command\n  b   the b command\n\nRun 'prog <command> -h' for a command's flags.\n"
	for _, tc := range []struct {
		args           []string
		code           int
		found          bool
		stdout, stderr string
	}{
		{nil, 2, false, want, ""},
		{[]string{"help"}, 0, false, want, ""},
		{[]string{"-h"}, 0, false, want, ""},
		{[]string{"c"}, 2, false, "", "prog: unknown command \"c\"\n\n" + want},
		{[]string{"a", "x"}, 0, true, "", ""},
	} {
		var out, errb strings.Builder
		c, code, ok := Lookup(cmds, "prog", tc.args, &out, &errb, usage)
		if code != tc.code || ok != tc.found || out.String() != tc.stdout || errb.String() != tc.stderr || (ok && c.Name != "a") {
			t.Errorf("Lookup(%q) = %q, %d, %v; stdout %q, stderr %q", tc.args, c.Name, code, ok, out.String(), errb.String())
		}
	}
	defer func() {
		if recover() == nil {
			t.Error("registering a name twice did not panic")
		}
	}()
	Register(cmds, "prog", "a", Command{})
}
