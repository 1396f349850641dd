package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/bloomcrawl/bloomcrawl/contentdedup"
	"github.com/bloomcrawl/bloomcrawl/lab/bench"
)

func init() {
	register(command{
		Name:    "canonical",
		Summary: "the rel=canonical guard on every pair of a directory's HTML pages vs exact Jaccard: false merges, misuse",
		Run:     runBenchCanonical,
	})
}

func runBenchCanonical(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("canonical", "canonical --dir DIR [--max N] [--seed N] [--home PAGE] [--json]", stderr)
	dir := fs.String("dir", "", "directory of HTML pages (required), e.g. /tmp/corpora/python311")
	maxPages := fs.Int("max", 300, "pages read (a sample drawn with --seed when the directory has more; all pairs are measured)")
	seed := fs.Uint64("seed", 1, "seed of the sample")
	home := fs.String("home", "index.html", "the page every page declares canonical in the misuse row (relative to --dir)")
	asJSON := fs.Bool("json", false, "print the result as JSON")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usagef("unexpected argument %q", fs.Arg(0))
	}
	if *dir == "" {
		return usagef("--dir DIR is required")
	}
	r, err := bench.Canonical(ctx, bench.CanonicalOptions{Dir: *dir, Max: *maxPages, Seed: *seed, Home: *home})
	if err != nil {
		return err
	}
	if *asJSON {
		return json.NewEncoder(stdout).Encode(r)
	}
	fmt.Fprintf(stdout, "%s: %d pages, %d pairs (exact truth: word 4-shingle Jaccard)\n", r.Dir, r.Pages, r.Pairs)
	fmt.Fprintf(stdout, "  any page declaring any other: guard merges %d pairs, %d of them different documents (J < 0.5); %d pairs are the same document (J >= 0.5)\n",
		r.Accepted, r.FalseMerges, r.SameDocuments)
	fmt.Fprintf(stdout, "  near-duplicates (J >= 0.9): %d, rejected by the guard: %d\n", r.NearDuplicates, r.NearMissed)
	fmt.Fprintf(stdout, "  every page declaring %s: %d pages, %d merged, %d of them different documents\n",
		r.Home, r.HomeDeclared, r.HomeMerged, r.HomeFalseMerges)
	fmt.Fprintf(stdout, "  estimated Jaccard threshold sweep (pairs with sketches; the guard uses %.1f):\n", contentdedup.CanonicalJaccard)
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "    est J >=\taccepted\tfalse merges (J < 0.5)\tsame document missed (J >= 0.5)\t\n")
	for _, row := range r.Sweep {
		fmt.Fprintf(tw, "    %.1f\t%d\t%d\t%d\t\n", row.Jaccard, row.Accepted, row.FalseMerges, row.SameMissed)
	}
	return tw.Flush()
}
