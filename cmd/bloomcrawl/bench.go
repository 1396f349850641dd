package main

import (
	"context"
	"fmt"
	"io"
	"sort"
)

// benchmarks holds the 'bloomcrawl bench <name>' subcommands; each
// benchmark's file registers itself with registerBench.
var benchmarks = map[string]command{}

func registerBench(c command) {
	if _, dup := benchmarks[c.name]; dup {
		panic("bloomcrawl: benchmark registered twice: " + c.name)
	}
	benchmarks[c.name] = c
}

func init() {
	register(command{
		name:    "bench",
		summary: "measure the URL filters and the seen-records (bench -h lists them; the lab's benchmarks: go run ./cmd/bloomcrawl-lab)",
		run:     runBench,
	})
}

func runBench(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" {
		fmt.Fprintln(stderr, "usage: bloomcrawl bench <benchmark> [flags]\n\nbenchmarks:")
		names := make([]string, 0, len(benchmarks))
		for n := range benchmarks {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, n := range names {
			fmt.Fprintf(stderr, "  %-8s %s\n", n, benchmarks[n].summary)
		}
		if len(args) == 0 {
			return usagef("missing benchmark name")
		}
		return nil
	}
	b, ok := benchmarks[args[0]]
	if !ok {
		return usagef("unknown benchmark %q (bloomcrawl bench -h lists them)", args[0])
	}
	return b.run(ctx, args[1:], stdout, stderr)
}
