package filterbench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/bloomcrawl/bloomcrawl/urlfilter"
)

// FPVariants are the filter variants FP replays, in its default order.
var FPVariants = []string{"mdbf", "mdbf-routed", "classic", "blocked", "chain", "scalable"}

// FPOptions says what FP replays and how the filters are sized.
type FPOptions struct {
	Source   string    // names the stream in every row ("store DIR", "urls FILE", "synthetic N")
	Stream   []string  // URL tests in discovery order, repeats included; must not be empty
	Budgets  []float64 // bits per distinct URL to size each filter for
	Targets  []float64 // false-positive rates to size each filter for
	Variants []string  // some of FPVariants; nil = all
	Log      io.Writer // progress lines; nil = none
}

// LoadStream sets o.Source and o.Stream from one source: the URL trace
// recorded in the crawl store store (TraceFromStore), else the file of
// URLs urls (ReadURLs, repeats kept), else a synthetic stream of synthetic
// URL tests (SyntheticStream; announced on o.Log). A store's errors are
// TraceFromStore's, a file's ReadURLs'.
func (o *FPOptions) LoadStream(ctx context.Context, store, urls string, synthetic int) (err error) {
	switch {
	case store != "":
		o.Source = "store " + store
		o.Stream, err = TraceFromStore(ctx, store)
	case urls != "":
		o.Source = "urls " + urls
		o.Stream, err = ReadURLs(urls, false, 0)
	default:
		o.Source = fmt.Sprintf("synthetic %d", synthetic)
		if o.Log != nil {
			fmt.Fprintf(o.Log, "bench fp: generating a synthetic stream of %d URL tests\n", synthetic)
		}
		o.Stream = SyntheticStream(synthetic)
	}
	return err
}

// FPRow is one variant at one budget: what FP measured.
type FPRow struct {
	Source         string  `json:"source"`
	Variant        string  `json:"variant"`
	BudgetBits     float64 `json:"budget_bits,omitempty"` // requested bits per URL (0 when sized by target_fp)
	BitsPerURL     float64 `json:"bits_per_url"`          // actual filter bits / distinct URLs
	TargetFP       float64 `json:"target_fp"`             // 0 when sized by bits
	Tested         uint64  `json:"tested"`
	Distinct       uint64  `json:"distinct"`
	FalsePositives uint64  `json:"false_positives"`
	Forgotten      uint64  `json:"forgotten"`
	MeasuredFP     float64 `json:"measured_fp"`
	TheoreticalFP  float64 `json:"theoretical_fp"`
	TestNs         float64 `json:"test_ns"` // per TestAndAdd, this thread's CPU time (see Filter's clock)
}

// FP replays o.Stream, in order, through a fresh filter of every variant at
// every budget and target, and counts each filter's false positives (a
// distinct URL it called seen: a page the crawl would silently lose) and
// forgotten repeats against an exact set. Rows come budgets first, then
// targets, variants in o.Variants order. It returns ctx's error when
// interrupted.
func FP(ctx context.Context, o FPOptions) ([]FPRow, error) {
	if len(o.Stream) == 0 {
		return nil, fmt.Errorf("bench fp: %s: the URL stream is empty", o.Source)
	}
	if len(o.Budgets) == 0 && len(o.Targets) == 0 {
		return nil, errors.New("bench fp: no budget and no target: nothing to measure")
	}
	vs, err := pickVariants(o.Variants, FPVariants)
	if err != nil {
		return nil, fmt.Errorf("bench fp: %w", err)
	}
	log := o.Log
	if log == nil {
		log = io.Discard
	}
	distinct := countDistinct(o.Stream)
	fmt.Fprintf(log, "bench fp: %s: %d URL tests, %d distinct\n", o.Source, len(o.Stream), distinct)
	var rows []FPRow
	run := func(base urlfilter.Options) error {
		fl, err := fpFilters(vs, distinct, base)
		if err != nil {
			return err
		}
		rs, err := replayPinned(ctx, o.Stream, fl)
		if err != nil {
			return err
		}
		for _, r := range rs {
			rows = append(rows, FPRow{Source: o.Source, Variant: r.Name, BudgetBits: base.BitsPerKey, BitsPerURL: r.BitsPerKey,
				TargetFP: base.TargetFP, Tested: r.Tested, Distinct: r.Distinct, FalsePositives: r.FalsePositives,
				Forgotten: r.Forgotten, MeasuredFP: r.MeasuredFP, TheoreticalFP: r.PredictedFP, TestNs: r.TestNs})
		}
		return nil
	}
	for _, b := range o.Budgets {
		fmt.Fprintf(log, "bench fp: %g bits per URL\n", b)
		if err := run(urlfilter.Options{BitsPerKey: b}); err != nil {
			return rows, err
		}
	}
	for _, t := range o.Targets {
		fmt.Fprintf(log, "bench fp: target FP %g\n", t)
		if err := run(urlfilter.Options{TargetFP: t}); err != nil {
			return rows, err
		}
	}
	return rows, nil
}

// ErrUnknownVariant is returned (wrapped) for a variant a benchmark does
// not know.
var ErrUnknownVariant = errors.New("unknown variant")

// CheckVariants returns an error wrapping ErrUnknownVariant, naming the
// known ones, for the first of given that is not in known.
func CheckVariants(given, known []string) error {
	for _, v := range given {
		if !slices.Contains(known, v) {
			return fmt.Errorf("%w %q (want some of %s)", ErrUnknownVariant, v, strings.Join(known, ","))
		}
	}
	return nil
}

// pickVariants returns given (nil: all of known), checked against known.
func pickVariants(given, known []string) ([]string, error) {
	if given == nil {
		return known, nil
	}
	return given, CheckVariants(given, known)
}

// replayPinned replays on one locked OS thread, timing with its CPU clock.
func replayPinned(ctx context.Context, stream []string, fl []replayFilter) ([]replayResult, error) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	return replay(ctx, stream, fl, clock)
}

// fpFilters builds one fresh filter per variant for a stream of distinct
// URLs, at base.BitsPerKey bits per distinct URL or at base.TargetFP:
//   - mdbf, mdbf-routed, classic, blocked: sized for exactly distinct keys;
//   - chain: Window = distinct (nothing needs forgetting), 5 generations,
//     per-generation bits scaled by 4/5 so the ring totals the budget;
//   - scalable: starts at a quarter of the stream and grows twice, so the
//     growth path is measured; its bits per URL come out above the budget.
func fpFilters(variants []string, distinct uint64, base urlfilter.Options) ([]replayFilter, error) {
	var out []replayFilter
	for _, v := range variants {
		o := base
		o.Variant = v
		o.Capacity = distinct
		switch v {
		case urlfilter.VariantChain:
			o.Window = distinct
			o.Generations = urlfilter.DefaultGenerations
			if o.BitsPerKey > 0 {
				o.BitsPerKey *= float64(o.Generations-1) / float64(o.Generations)
			}
		case urlfilter.VariantScalable:
			o.Capacity = max(1, distinct/4)
		}
		f, err := urlfilter.New(o)
		if err != nil {
			return nil, fmt.Errorf("bench fp: %s: %w", v, err)
		}
		out = append(out, replayFilter{Name: v, Filter: f})
	}
	return out, nil
}

// WriteFPTable writes rows as an aligned text table, or as a Markdown table
// when markdown is set.
func WriteFPTable(w io.Writer, rows []FPRow, markdown bool) {
	head := []string{"variant", "budget", "bits/URL", "tested", "distinct", "false pos.", "forgotten", "measured FP", "predicted FP", "ns/test"}
	line := func(r FPRow) []string {
		budget := fmt.Sprintf("%g bits", r.BudgetBits)
		if r.BudgetBits == 0 {
			budget = fmt.Sprintf("fp %g", r.TargetFP)
		}
		return []string{r.Variant, budget, fmt.Sprintf("%.2f", r.BitsPerURL), strconv.FormatUint(r.Tested, 10),
			strconv.FormatUint(r.Distinct, 10), strconv.FormatUint(r.FalsePositives, 10), strconv.FormatUint(r.Forgotten, 10),
			fmt.Sprintf("%.3g", r.MeasuredFP), fmt.Sprintf("%.3g", r.TheoreticalFP), fmt.Sprintf("%.0f", r.TestNs)}
	}
	if markdown {
		fmt.Fprintf(w, "| %s |\n|%s\n", strings.Join(head, " | "), strings.Repeat("---:|", len(head)))
		for _, r := range rows {
			fmt.Fprintf(w, "| %s |\n", strings.Join(line(r), " | "))
		}
		return
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, strings.Join(head, "\t")+"\t")
	for _, r := range rows {
		fmt.Fprintln(tw, strings.Join(line(r), "\t")+"\t")
	}
	tw.Flush()
}

// WriteFPReport writes the Markdown report of an FP run: how the stream and
// the filters were made, the chart fp.svg (which cmd/bloomcrawl-lab fpchart
// draws from the same rows), the table, and a note on rows that measured no
// false positive at all.
func WriteFPReport(w io.Writer, source string, tested int, rows []FPRow) {
	var distinct uint64
	zeros := 0
	for _, r := range rows {
		distinct = r.Distinct
		if r.MeasuredFP == 0 {
			zeros++
		}
	}
	fmt.Fprintf(w, "# URL filter false positives: %s\n\n", source)
	fmt.Fprintf(w, "Generated by `bloomcrawl bench fp` on %s. The stream has %d URL tests, %d distinct URLs. "+
		"Every filter replays it in order; the exact set is the ground truth. A false positive is a distinct URL the filter "+
		"called seen: a page this crawl would have silently lost. Predicted FP is the formula at each distinct URL's fill, "+
		"averaged over the stream.\n\n", time.Now().UTC().Format(time.RFC3339), tested, distinct)
	fmt.Fprintf(w, "How the filters are built for a stream of D distinct URLs: mdbf (the MDBF paper read faithfully: S = 2 groups, "+
		"every key in every group, present if any group matches), mdbf-routed (the key's hash picks one group), classic and "+
		"blocked are sized for exactly D keys; chain is a ring of 5 generations with a window of D (nothing needs forgetting), "+
		"its per-generation budget scaled by 4/5 so the ring totals the budget; scalable starts at D/4 and grows (Growth 2, "+
		"error ratio 0.5), so it spends more bits than the budget: its x position is what it really used. "+
		"ns/test is this thread's CPU time per TestAndAdd.\n\n")
	fmt.Fprintf(w, "![measured vs predicted FP](fp.svg)\n\n")
	WriteFPTable(w, rows, true)
	if zeros > 0 {
		fmt.Fprintf(w, "\n%d points measured no false positive at all; the chart draws them on the dotted floor line at 1/(2·distinct).\n", zeros)
	}
}
