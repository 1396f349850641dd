package main

import (
	"context"
	"fmt"
	"io"

	"github.com/bloomcrawl/bloomcrawl/internal/cli"
)

// benchmarks holds the 'bloomcrawl bench <name>' subcommands; each
// benchmark's file registers itself with registerBench.
var benchmarks = map[string]command{}

func registerBench(c command) { cli.Register(benchmarks, "bloomcrawl bench", c.Name, c) }

func init() {
	register(command{
		Name:    "bench",
		Summary: "measure the URL filters and the seen-records (bench -h lists them; the lab's benchmarks: go run ./cmd/bloomcrawl-lab)",
		Run:     runBench,
	})
}

func runBench(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" {
		fmt.Fprintln(stderr, "usage: bloomcrawl bench <benchmark> [flags]\n\nbenchmarks:")
		cli.WriteList(stderr, benchmarks, 8, func(c command) string { return c.Summary })
		if len(args) == 0 {
			return usagef("missing benchmark name")
		}
		return nil
	}
	b, ok := benchmarks[args[0]]
	if !ok {
		return usagef("unknown benchmark %q (bloomcrawl bench -h lists them)", args[0])
	}
	return b.Run(ctx, args[1:], stdout, stderr)
}
