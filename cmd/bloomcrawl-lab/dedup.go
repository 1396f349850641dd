package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/bloomcrawl/bloomcrawl/contentdedup"
	"github.com/bloomcrawl/bloomcrawl/lab/bench"
)

func init() {
	register(command{
		Name:    "dedup",
		Summary: "near-duplicate precision/recall (en, zh) vs exact Jaccard ground truth, SimHash vs naive baseline",
		Run:     runBenchDedup,
	})
}

func runBenchDedup(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fset := newFlagSet("dedup", "dedup --corpus DIR[,DIR...] [--pages N] [--variants V] [--seed S] [-v]", stderr)
	corpus := fset.String("corpus", "", "comma-separated HTML trees to take pages from (walked recursively, *.html; required)")
	maxFiles := fset.Int("max-files", 3000, "parse at most this many *.html files per corpus directory (a seeded sample)")
	pages := fset.Int("pages", 400, "at most this many original pages per language (a seeded sample)")
	variants := fset.Int("variants", 5, "near-duplicate variants made of each page")
	seed := fset.Uint64("seed", 1, "seed of the page sample, the variants and the order")
	minWords := fset.Int("min-words", 150, "skip pages with fewer ground-truth words (a Han character is a word)")
	threshold := fset.Int("threshold", 3, "Hamming distance for SimHash matches (0..6)")
	sweep := fset.Bool("sweep", true, "also print the short-text sweep that sets the exact-hash length")
	verbose := fset.Bool("v", false, "print the false merges and missed pairs of the default method")
	if err := parseFlags(fset, args); err != nil {
		return err
	}
	if *corpus == "" {
		return usagef("--corpus: give one or more directories of HTML pages")
	}
	if *pages < 2 || *variants < 1 {
		return usagef("--pages must be >= 2 and --variants >= 1")
	}
	if *threshold < 0 || *threshold > contentdedup.MaxThreshold {
		return usagef("--threshold %d: must be 0..%d", *threshold, contentdedup.MaxThreshold)
	}
	o := bench.DedupOptions{MinWords: *minWords, PerLang: *pages, Variants: *variants, Seed: *seed,
		Threshold: *threshold, Sweep: *sweep, Verbose: *verbose}
	start := time.Now()
	var err error
	if o.Pages, err = bench.LoadCorpus(ctx, strings.Split(*corpus, ","), bench.CorpusOptions{MaxFiles: *maxFiles, Seed: *seed}); err != nil {
		return err
	}
	loaded := time.Since(start)
	rep, err := bench.Dedup(ctx, o)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "bench dedup: %d English and %d Chinese pages with >= %d words in %s (%.1fs)\n",
		rep.English, rep.Chinese, *minWords, *corpus, loaded.Seconds())
	return bench.WriteDedupReport(stdout, rep)
}
