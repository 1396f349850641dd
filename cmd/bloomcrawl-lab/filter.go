package main

import (
	"context"
	"io"

	"github.com/bloomcrawl/bloomcrawl/lab/bench"
	"github.com/bloomcrawl/bloomcrawl/urlfilter/filterbench"
)

func init() {
	register(command{
		Name:    "filter",
		Summary: "bloomcrawl bench filter with the peers (bits-and-blooms): bits/URL, measured vs predicted FP, ns per add/test",
		Run:     runFilter,
	})
}

// runFilter is bloomcrawl bench filter with the rows of other libraries,
// which the product binary does not link: the same flags and output.
func runFilter(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("filter", "filter [--n N] [--fp RATE] [--urls FILE] [--json] [--variants LIST]", stderr)
	c := filterbench.NewFilterCommand(fs, bench.FilterVariants)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	return c.Run(ctx, bench.FilterPeers, stdout, stderr)
}
