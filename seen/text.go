package seen

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"
)

// WriteText writes rec for a reader ('bloomcrawl seen show'): "KEY: no
// record", or a line with its blocks, bytes and expiry, one line per block
// (newest first; its seed form indented below it when Show was asked for
// it) and the audited ids.
func (rec Record) WriteText(w io.Writer) {
	if len(rec.Blocks) == 0 {
		fmt.Fprintf(w, "%s: no record\n", rec.Key)
		return
	}
	expires := "never"
	if e := rec.Expires; e != nil {
		expires = fmt.Sprintf("%s (in %s)", e.UTC().Format(time.RFC3339), time.Until(*e).Round(time.Second))
	}
	fmt.Fprintf(w, "%s: %d blocks, %d bytes stored, expires %s\n", rec.Key, len(rec.Blocks), rec.Bytes, expires)
	for i, b := range rec.Blocks {
		fmt.Fprintf(w, "  block %d: %d ids, %d bits (%d set), k=%d, predicted FP %.2g\n", i, b.Count, b.Bits, b.SetBits, b.K, b.PredictedFP)
		if b.Seed != "" {
			fmt.Fprintf(w, "    %s\n", b.Seed)
		}
	}
	if rec.Audit != nil {
		fmt.Fprintf(w, "  audit (%d ids, oldest first): %s\n", len(rec.Audit), strings.Join(rec.Audit, " "))
	}
}

// WriteText writes m as tables ('bloomcrawl bench seen'): bytes and test
// time of the Bloom blocks and of a plain id list, the false positives
// measured and predicted, and the window of ids remembered by age.
func (m Measurement) WriteText(w io.Writer) {
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
