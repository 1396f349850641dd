// Command bloomcrawl-lab holds the measurements we run on bloomcrawl and
// that its users do not: crawls of generated sites, cluster runs that start
// Redis, comparisons with other crawlers and libraries, evaluations against
// generated or labelled sets, and the chart of bloomcrawl bench fp's report.
// Nothing in the bloomcrawl binary imports it or the packages under lab/.
//
// Run it with go run ./cmd/bloomcrawl-lab <command> [flags]. Commands that
// crawl (synthetic, cluster, crawl) run the bloomcrawl binary given with
// --bloomcrawl, or build ./cmd/bloomcrawl into a temporary directory.
//
// main stays thin, as cmd/bloomcrawl's: each command lives in its own file
// and registers itself with register; run maps errors to exit codes.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/bloomcrawl/bloomcrawl/internal/cli"
)

// command is one subcommand of bloomcrawl-lab.
type command = cli.Command

var commands = map[string]command{}

// register adds a subcommand; called from init in each subcommand's file.
func register(c command) { cli.Register(commands, "bloomcrawl-lab", c.Name, c) }

// usageError marks an error caused by bad command-line input (exit code 2).
type usageError = cli.UsageError

func usagef(format string, a ...any) error { return cli.Usagef(format, a...) }

func main() { cli.Main(run) }

// run executes bloomcrawl-lab with args and returns the process exit code:
// 0 success, 1 failure, 2 bad usage, 130 interrupted.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	c, code, ok := cli.Lookup(commands, "bloomcrawl-lab", args, stdout, stderr, printUsage)
	if !ok {
		return code
	}
	return cli.ExitCode("bloomcrawl-lab", c.Name, c.Run(ctx, args[1:], stdout, stderr), stderr)
}

func printUsage(w io.Writer) {
	cli.WriteUsage(w, "go run ./cmd/bloomcrawl-lab", commands, 9, func(c command) string { return c.Summary })
}

// newFlagSet returns a FlagSet for a subcommand that reports errors instead
// of exiting, and prints its usage to stderr.
func newFlagSet(name, usage string, stderr io.Writer) *flag.FlagSet {
	return cli.NewFlagSet("go run ./cmd/bloomcrawl-lab", name, usage, stderr)
}

// parseFlags parses args into fs. Parse errors become usage errors; -h
// becomes flag.ErrHelp (exit 0).
func parseFlags(fs *flag.FlagSet, args []string) error { return cli.ParseFlags(fs, args) }

// stringList is a repeatable string flag.
type stringList = cli.StringList

// intList parses flag's value, a comma-separated list of integers of at
// least least; a usage error names the flag and the item (as what).
func intList(flag, list string, least int, what string) ([]int, error) {
	var ns []int
	for _, f := range strings.Split(list, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < least {
			return nil, usagef("%s: %q is not %s", flag, f, what)
		}
		ns = append(ns, n)
	}
	return ns, nil
}

// bloomcrawlFlag adds --bloomcrawl to a command that runs crawls. The
// returned function gives the binary to run and a cleanup: the flag's
// value, or ./cmd/bloomcrawl of this module built with go build into a
// temporary directory when the flag is empty.
func bloomcrawlFlag(fs *flag.FlagSet, stderr io.Writer) func(ctx context.Context) (string, func(), error) {
	path := fs.String("bloomcrawl", "", "the bloomcrawl binary that crawls (default: go build ./cmd/bloomcrawl into a temporary directory)")
	return func(ctx context.Context) (string, func(), error) {
		if *path != "" {
			return *path, func() {}, nil
		}
		dir, err := os.MkdirTemp("", "bloomcrawl-lab-")
		if err != nil {
			return "", nil, err
		}
		exe := filepath.Join(dir, "bloomcrawl")
		fmt.Fprintf(stderr, "bloomcrawl-lab: building %s\n", exe)
		build := exec.CommandContext(ctx, "go", "build", "-o", exe, "github.com/bloomcrawl/bloomcrawl/cmd/bloomcrawl")
		build.Stdout, build.Stderr = stderr, stderr
		if err := build.Run(); err != nil {
			os.RemoveAll(dir)
			return "", nil, fmt.Errorf("build bloomcrawl (or give --bloomcrawl PATH): %w", err)
		}
		return exe, func() { os.RemoveAll(dir) }, nil
	}
}
