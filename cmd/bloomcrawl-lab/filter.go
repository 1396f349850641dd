package main

import (
	"context"
	"io"
	"strings"

	"github.com/bloomcrawl/bloomcrawl/internal/cli"
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
	n := fs.Int("n", 10_000_000, "distinct keys to insert (and as many fresh keys to test)")
	fp := fs.Float64("fp", 0.01, "target false-positive rate the filters are sized for")
	urls := fs.String("urls", "", "file of real URLs, one per line (default: generated URL-shaped keys)")
	asJSON := fs.Bool("json", false, "print one JSON object per variant")
	variants := fs.String("variants", strings.Join(bench.FilterVariants, ","), "comma-separated rows to measure")
	reps := fs.Int("reps", 3, "timing repetitions of the test pass (the median is reported)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *n < 1 {
		return usagef("--n %d: must be at least 1", *n)
	}
	if !(*fp > 0 && *fp < 0.5) {
		return usagef("--fp %g: must be in (0, 0.5)", *fp)
	}
	if *reps < 1 {
		return usagef("--reps %d: must be at least 1", *reps)
	}
	o := filterbench.FilterOptions{FP: *fp, Variants: cli.SplitList(*variants), Peers: bench.FilterPeers, Reps: *reps, Log: stderr}
	if err := filterbench.CheckVariants(o.Variants, bench.FilterVariants); err != nil {
		return usagef("--variants: %v", err)
	}
	var err error
	if o.Keys, err = filterbench.FilterKeys(*urls, *n, stderr); err != nil {
		return err
	}
	rows, err := filterbench.Filter(ctx, o)
	if err != nil {
		return err
	}
	if *asJSON {
		return cli.WriteJSONLines(stdout, rows)
	}
	filterbench.WriteFilterTable(stdout, rows)
	return nil
}
