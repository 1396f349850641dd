package main

import (
	"bytes"
	"context"
	"flag"
	"io"
	"strings"
	"testing"
)

// TestRunExitCodes: no command and an unknown one are usage errors (2) and
// list the commands; -h is success; a bad flag of a command is a usage
// error naming the command.
func TestRunExitCodes(t *testing.T) {
	for _, tc := range []struct {
		args []string
		code int
		want string // in stdout+stderr
	}{
		{nil, 2, "synthetic"},
		{[]string{"nope"}, 2, `unknown command "nope"`},
		{[]string{"-h"}, 0, "fpchart"},
		{[]string{"synthetic", "--sizes", "x"}, 2, `bloomcrawl-lab synthetic: --sizes: "x"`},
		{[]string{"filter", "--variants", "peer-nope"}, 2, "bloomcrawl-lab filter: --variants"},
	} {
		var out bytes.Buffer
		if code := run(context.Background(), tc.args, &out, &out); code != tc.code || !strings.Contains(out.String(), tc.want) {
			t.Errorf("%q: exit %d, want %d; output lacks %q:\n%s", tc.args, code, tc.code, tc.want, out.String())
		}
	}
}

// TestBloomcrawlFlag: a given --bloomcrawl is used as it is, built nothing.
func TestBloomcrawlFlag(t *testing.T) {
	fs := flag.NewFlagSet("x", flag.ContinueOnError)
	binary := bloomcrawlFlag(fs, io.Discard)
	if err := fs.Parse([]string{"--bloomcrawl", "/opt/bloomcrawl"}); err != nil {
		t.Fatal(err)
	}
	exe, cleanup, err := binary(context.Background())
	if err != nil || exe != "/opt/bloomcrawl" {
		t.Fatalf("got %q, %v; want /opt/bloomcrawl", exe, err)
	}
	cleanup()
}
