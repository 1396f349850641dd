package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/bloomcrawl/bloomcrawl/internal/cli"
	"github.com/bloomcrawl/bloomcrawl/urlfilter/filterbench"
)

func init() {
	registerBench(command{
		Name:    "fp",
		Summary: "replay a crawl's URL stream through every filter at several memory budgets; measured vs predicted FP",
		Run:     runBenchFP,
	})
}

func runBenchFP(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("bench fp", "bench fp (--store DIR | --urls FILE | --synthetic N) [--bits LIST] [--fp LIST] [--json] [--report DIR]", stderr)
	store := fs.String("store", "", "crawl store whose recorded URL trace is replayed")
	urls := fs.String("urls", "", "file of URLs, one per line, in discovery order (repeats included)")
	synthetic := fs.Int("synthetic", 0, "replay a generated stream of N URL tests (about 1 in 3 distinct)")
	bitsList := fs.String("bits", "4,6,8,10,12,16", "memory budgets in bits per distinct URL (empty = none)")
	fpList := fs.String("fp", "", "target false-positive rates to size the filters for, e.g. 0.01,0.001")
	variants := fs.String("variants", strings.Join(filterbench.FPVariants, ","), "filter variants to replay")
	asJSON := fs.Bool("json", false, "print one JSON object per variant and budget")
	report := fs.String("report", "", "directory to write report.md and fp.jsonl into (cmd/bloomcrawl-lab fpchart draws fp.svg, fp.png)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	sources := 0
	for _, set := range []bool{*store != "", *urls != "", *synthetic > 0} {
		if set {
			sources++
		}
	}
	if sources != 1 {
		return usagef("give exactly one of --store, --urls, --synthetic")
	}
	o := filterbench.FPOptions{Variants: cli.SplitList(*variants), Log: stderr}
	var err error
	if o.Budgets, err = cli.FloatList("--bits", *bitsList, 0.5, 1024); err != nil {
		return err
	}
	if o.Targets, err = cli.FloatList("--fp", *fpList, 1e-12, 0.4999); err != nil {
		return err
	}
	if len(o.Budgets) == 0 && len(o.Targets) == 0 {
		return usagef("--bits and --fp are both empty: nothing to measure")
	}
	if err := filterbench.CheckVariants(o.Variants, filterbench.FPVariants); err != nil {
		return usagef("--variants: %v", err)
	}
	if err := o.LoadStream(ctx, *store, *urls, *synthetic); err != nil {
		return err
	}
	rows, err := filterbench.FP(ctx, o)
	if err != nil {
		return err
	}
	if *asJSON {
		if err := cli.WriteJSONLines(stdout, rows); err != nil {
			return err
		}
	} else {
		filterbench.WriteFPTable(stdout, rows, false)
	}
	if *report != "" {
		if err := filterbench.SaveFPReport(*report, o.Source, len(o.Stream), rows); err != nil {
			return fmt.Errorf("bench fp: report: %w", err)
		}
		fmt.Fprintf(stderr, "bench fp: report written to %s (report.md, fp.jsonl); draw fp.svg and fp.png with: go run ./cmd/bloomcrawl-lab fpchart %s\n", *report, *report)
	}
	return nil
}
