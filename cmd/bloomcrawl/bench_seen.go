package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"

	"github.com/bloomcrawl/bloomcrawl/seen"
	"github.com/bloomcrawl/bloomcrawl/storage"
)

func init() {
	registerBench(command{
		name:    "seen",
		summary: "seen-records: bytes and test time vs a plain id list, measured FP, the window",
		run:     runBenchSeen,
	})
}

func runBenchSeen(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("bench seen", "bench seen [--store DIR] [--ids N] [--batch N] [--rounds N] [--probes N] [--json] [seen-record flags]", stderr)
	store := fs.String("store", "", "Badger store to measure in (default: a temporary one, removed after)")
	var mo seen.MeasureOptions
	fs.IntVar(&mo.IDs, "ids", 5000, "ids recorded under the measured key")
	fs.IntVar(&mo.IDLen, "id-len", 14, "bytes per id (the seed's article ids are 14)")
	fs.IntVar(&mo.Batch, "batch", 100, "ids per test call")
	fs.IntVar(&mo.Rounds, "rounds", 7, "timing rounds (Bloom and plain list interleaved; the median is reported)")
	fs.IntVar(&mo.Calls, "calls", 200, "test calls per timing round")
	fs.IntVar(&mo.Probes, "probes", 100_000, "ids never recorded, tested for the false-positive rate")
	asJSON := fs.Bool("json", false, "print the measurement as JSON")
	opts := seenFlags(fs, "")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usagef("unexpected argument %q", fs.Arg(0))
	}
	o, err := opts()
	if err != nil {
		return err
	}
	dir := *store
	if dir == "" {
		if dir, err = os.MkdirTemp("", "bloomcrawl-bench-seen-"); err != nil {
			return err
		}
		defer os.RemoveAll(dir)
	}
	db, err := storage.Open(dir, nil)
	if err != nil {
		return err
	}
	defer db.Close()
	m, err := seen.Measure(ctx, db, o, mo)
	if err != nil {
		return err
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(m)
	}
	printSeenMeasurement(stdout, m)
	return nil
}

func printSeenMeasurement(w io.Writer, m seen.Measurement) {
	o := m.Options
	fmt.Fprintf(w, "seen-records: %d ids of %d bytes under one key; blocks of %d ids at fp %g (%d bits, k=%d), at most %d blocks\n\n",
		m.IDs, m.IDLen, o.Capacity, o.FP, m.BlockBits, m.BlockK, o.Blocks)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "\tbytes per key\tns per test of "+fmt.Sprint(m.Batch)+" ids (median)\tns per id\t")
	fmt.Fprintf(tw, "Bloom blocks (binary, stored)\t%d\t%.0f\t%.0f\t\n", m.BloomBytes, m.BloomTestNs, m.BloomTestNs/float64(m.Batch))
	fmt.Fprintf(tw, "Bloom blocks (seed's count::base64)\t%d\t\t\t\n", m.BloomSeedBytes)
	fmt.Fprintf(tw, "plain id list\t%d\t%.0f\t%.0f\t\n", m.PlainBytes, m.PlainTestNs, m.PlainTestNs/float64(m.Batch))
	tw.Flush()
	fmt.Fprintf(w, "plain/Bloom: %.1fx the bytes, %.1fx the test time (the design reports 70 KB vs 10 KB = 7x, 0.57 ms vs 0.18 ms = 3.2x)\n\n",
		float64(m.PlainBytes)/float64(m.BloomBytes), m.PlainTestNs/m.BloomTestNs)
	fmt.Fprintf(w, "false positives: %d of %d ids never recorded = %.5f measured; predicted %.5f for the record's %d blocks (target %g per block)\n\n",
		m.FalsePositives, m.Probes, m.MeasuredFP, m.PredictedFP, m.RecordBlocks, m.TargetFP)
	fmt.Fprintf(w, "window: share of ids remembered by age (in blocks of %d ids, newest first)\n", o.Capacity)
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "after\tblocks\tlast N remembered\tby age")
	for _, p := range m.Window {
		ages := make([]string, len(p.ByAge))
		for i, f := range p.ByAge {
			ages[i] = fmt.Sprintf("%.3f", f)
		}
		fmt.Fprintf(tw, "%d\t%d\t%d of %d\t%s\n", p.After, p.Blocks, p.LastHit, p.Last, strings.Join(ages, " "))
	}
	tw.Flush()
}
