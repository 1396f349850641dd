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
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"

	"github.com/bloomcrawl/bloomcrawl/internal/cli"
)

// command is one subcommand of bloomcrawl-lab.
type command struct {
	name    string // as typed on the command line
	summary string // one line for the usage listing
	// run executes the subcommand with its own arguments (without the
	// subcommand name). It returns a usageError for bad flags or arguments.
	run func(ctx context.Context, args []string, stdout, stderr io.Writer) error
}

var commands = map[string]command{}

// register adds a subcommand; called from init in each subcommand's file.
func register(c command) {
	if _, dup := commands[c.name]; dup {
		panic("bloomcrawl-lab: command registered twice: " + c.name)
	}
	commands[c.name] = c
}

// usageError marks an error caused by bad command-line input (exit code 2).
type usageError = cli.UsageError

func usagef(format string, a ...any) error { return cli.Usagef(format, a...) }

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	go func() {
		// After the first signal, restore the default handler so that a
		// second Ctrl-C terminates the process at once.
		<-ctx.Done()
		stop()
	}()
	os.Exit(run(ctx, os.Args[1:], os.Stdout, os.Stderr))
}

// run executes bloomcrawl-lab with args and returns the process exit code:
// 0 success, 1 failure, 2 bad usage, 130 interrupted.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		printUsage(stdout)
		if len(args) == 0 {
			return 2
		}
		return 0
	}
	c, ok := commands[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "bloomcrawl-lab: unknown command %q\n\n", args[0])
		printUsage(stderr)
		return 2
	}
	err := c.run(ctx, args[1:], stdout, stderr)
	var ue usageError
	switch {
	case err == nil:
		return 0
	case errors.Is(err, flag.ErrHelp):
		return 0
	case errors.As(err, &ue):
		fmt.Fprintf(stderr, "bloomcrawl-lab %s: %v\n", c.name, err)
		return 2
	case errors.Is(err, context.Canceled):
		fmt.Fprintf(stderr, "bloomcrawl-lab %s: interrupted\n", c.name)
		return 130
	default:
		fmt.Fprintf(stderr, "bloomcrawl-lab %s: %v\n", c.name, err)
		return 1
	}
}

func printUsage(w io.Writer) {
	fmt.Fprintln(w, "usage: go run ./cmd/bloomcrawl-lab <command> [flags] [args]")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "commands:")
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-9s %s\n", n, commands[n].summary)
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Run 'go run ./cmd/bloomcrawl-lab <command> -h' for a command's flags.")
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
type stringList []string

func (s *stringList) String() string     { return strings.Join(*s, ",") }
func (s *stringList) Set(v string) error { *s = append(*s, v); return nil }

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
