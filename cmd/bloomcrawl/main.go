// Command bloomcrawl is a web crawler with URL dedup (Bloom filters) and
// content dedup (SimHash) built in. See the README and docs/ for every subcommand.
//
// main stays thin: it parses the subcommand name, sets up a signal context
// and maps errors to exit codes. Each subcommand lives in its own file and
// registers itself with register.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"syscall"

	"github.com/bloomcrawl/bloomcrawl/internal/cli"
	"github.com/bloomcrawl/bloomcrawl/storage"
)

// command is one subcommand of bloomcrawl.
type command = cli.Command

var commands = map[string]command{}

// register adds a subcommand; called from init in each subcommand's file.
func register(c command) { cli.Register(commands, "bloomcrawl", c.Name, c) }

func usagef(format string, a ...any) error { return cli.Usagef(format, a...) }

func main() { cli.Main(run) }

// Exit codes besides 0 (success), 1 (failure), 2 (bad usage) and 130
// (interrupted).
const (
	// exitIOError: a write failed with EIO (sysexits EX_IOERR).
	exitIOError = 74
	// exitNoSpace: the store's disk is (nearly) full; the command stopped
	// cleanly and running it again after freeing space resumes (sysexits
	// EX_TEMPFAIL: try again later).
	exitNoSpace = 75
)

// run executes bloomcrawl with args and returns the process exit code:
// 0 success, 1 failure, 2 bad usage, 74 I/O error on the store's disk, 75
// store disk full, 130 interrupted.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	c, code, ok := cli.Lookup(commands, "bloomcrawl", args, stdout, stderr, printUsage)
	if !ok {
		return code
	}
	err := c.Run(ctx, args[1:], stdout, stderr)
	if code, ok := diskExitCode(c.Name, err, stderr); ok {
		return code
	}
	return cli.ExitCode("bloomcrawl", c.Name, err, stderr)
}

// diskExitCode gives the exit code of a command that stopped on the store's
// disk: 75 when it is full (the line says what ran out and how to go on),
// 74 on an I/O error; ok is false for any other outcome.
func diskExitCode(name string, err error, stderr io.Writer) (code int, ok bool) {
	var ue cli.UsageError
	var nse *storage.NoSpaceError
	switch {
	case err == nil, errors.As(err, &ue):
		return 0, false
	case errors.As(err, &nse):
		fmt.Fprintf(stderr, "bloomcrawl %s: %s\n", name, noSpaceLine(name, nse))
		return exitNoSpace, true
	case storage.IsDiskFull(err):
		// A write outside the store (a WARC file) hit a full disk; the
		// error names the file.
		fmt.Fprintf(stderr, "bloomcrawl %s: disk full: %v; %s\n", name, err, resumeHint(name))
		return exitNoSpace, true
	case errors.Is(err, storage.ErrIO), errors.Is(err, syscall.EIO):
		fmt.Fprintf(stderr, "bloomcrawl %s: %v; the command stopped: check the disk (dmesg), then run it again to resume\n", name, err)
		return exitIOError, true
	}
	return 0, false
}

// noSpaceLine is the one line a command that ran out of disk ends with:
// what ran out, where, how much is free, and how to go on.
func noSpaceLine(cmd string, e *storage.NoSpaceError) string {
	reserve := "reserve"
	switch cmd {
	case "crawl", "demo":
		reserve = "store.min_free_bytes"
	case "serve", "dedup":
		reserve = "--min-free-bytes"
	}
	return e.Describe(reserve) + "; " + resumeHint(cmd)
}

// minFreeFlag adds --min-free-bytes (storage.Options.MinFreeBytes) to a
// command that writes to a store.
func minFreeFlag(fs *flag.FlagSet) *int64 {
	return fs.Int64("min-free-bytes", 0, fmt.Sprintf("free space kept on the store's filesystem besides the memtables to flush; below it the command stops with status 75 (0 = %d, one Badger value-log file + 1 MiB; -1 = off)", storage.DefaultMinFreeBytes))
}

// resumeHint says how to go on after a command stopped on a full disk.
func resumeHint(cmd string) string {
	switch cmd {
	case "crawl":
		return "stopped cleanly, unfinished URLs stay queued: free some space and run the same command again to resume"
	case "dedup":
		return "stopped: the lines answered with success are recorded; free some space and run again from the line of the last answer (an error)"
	case "serve":
		return "stopped cleanly: free some space and start it again"
	default:
		return "free some space and run the same command again"
	}
}

func printUsage(w io.Writer) {
	cli.WriteUsage(w, "bloomcrawl", commands, 8, func(c command) string { return c.Summary })
}

// newFlagSet returns a FlagSet for a subcommand that reports errors instead
// of exiting, and prints its usage to stderr.
func newFlagSet(name, usage string, stderr io.Writer) *flag.FlagSet {
	return cli.NewFlagSet("bloomcrawl", name, usage, stderr)
}

// parseFlags parses args into fs. Parse errors become usage errors; -h
// becomes flag.ErrHelp (exit 0).
func parseFlags(fs *flag.FlagSet, args []string) error { return cli.ParseFlags(fs, args) }
