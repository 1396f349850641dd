// Command labbench holds the benchmark helpers that only the lab needs, so
// that the bloomcrawl binary carries none of their dependencies:
//
//	labbench fpchart DIR       draw fp.svg and fp.png from DIR/fp.jsonl (bloomcrawl bench fp --report DIR)
//	labbench colly [flags] URL the bare Colly crawler bench crawl compares against:
//	                           bloomcrawl bench crawl --corpus DIR --tools bloomcrawl,wget,colly --tool 'colly=labbench colly {seed}'
//
// Run it with go run ./cmd/labbench or build it with go build ./cmd/labbench.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
)

type command struct {
	usage string
	run   func(ctx context.Context, args []string, stdout, stderr io.Writer) error
}

var commands = map[string]command{
	"fpchart": {"fpchart DIR", runFPChart},
	"colly":   {"colly [--concurrency N] [--max-rss-mb N] [--timeout D] URL", runColly},
}

// errUsage marks an error as a usage error (exit status 2).
var errUsage = errors.New("usage")

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		printUsage(stderr)
		return 2
	}
	c, ok := commands[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "labbench: unknown command %q\n", args[0])
		printUsage(stderr)
		return 2
	}
	if err := c.run(ctx, args[1:], stdout, stderr); err != nil {
		fmt.Fprintf(stderr, "labbench %s: %v\n", args[0], err)
		if errors.Is(err, errUsage) {
			fmt.Fprintf(stderr, "usage: labbench %s\n", c.usage)
			return 2
		}
		if ctx.Err() != nil {
			return 130
		}
		return 1
	}
	return 0
}

func printUsage(w io.Writer) {
	fmt.Fprintln(w, "usage: labbench <command> [args]\n\ncommands:")
	for _, name := range []string{"fpchart", "colly"} {
		fmt.Fprintf(w, "  %s\n", commands[name].usage)
	}
}
