package main

import (
	"context"
	"io"

	"github.com/bloomcrawl/bloomcrawl/urlfilter/filterbench"
)

func init() {
	registerBench(command{
		Name:    "filter",
		Summary: "URL-filter variants vs a Go map: bits/URL, measured vs predicted FP, ns per add/test (peers: go run ./cmd/bloomcrawl-lab filter)",
		Run:     runBenchFilter,
	})
}

func runBenchFilter(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("bench filter", "bench filter [--n N] [--fp RATE] [--urls FILE] [--json] [--variants LIST]", stderr)
	c := filterbench.NewFilterCommand(fs, filterbench.FilterVariants)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	return c.Run(ctx, nil, stdout, stderr)
}
