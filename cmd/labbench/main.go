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

// usage lists the commands, one line each.
const usage = `usage: labbench <command> [args]

commands:
  fpchart DIR
  colly [--concurrency N] [--max-rss-mb N] [--timeout D] URL
`

// errUsage marks an error as a usage error (exit status 2).
var errUsage = errors.New("usage")

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// run executes labbench with args and returns the exit code: 0 success, 1
// failure, 2 bad usage, 130 interrupted.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	var err error
	switch cmd := append(args, "")[0]; cmd {
	case "fpchart":
		err = runFPChart(ctx, args[1:], stdout, stderr)
	case "colly":
		err = runColly(ctx, args[1:], stdout, stderr)
	default:
		fmt.Fprint(stderr, usage)
		return 2
	}
	switch {
	case err == nil:
		return 0
	case errors.Is(err, errUsage):
		fmt.Fprintf(stderr, "labbench %s: %v\n%s", args[0], err, usage)
		return 2
	case ctx.Err() != nil:
		return 130
	}
	fmt.Fprintf(stderr, "labbench %s: %v\n", args[0], err)
	return 1
}
