package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"image/color"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"

	"github.com/bloomcrawl/bloomcrawl/storage"
	"github.com/bloomcrawl/bloomcrawl/urlfilter"
)

func init() {
	registerBench(command{
		name:    "fp",
		summary: "replay a crawl's URL stream through every filter at several memory budgets; measured vs predicted FP",
		run:     runBenchFP,
	})
}

// fpRow is one variant at one budget in 'bench fp' output.
type fpRow struct {
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
	TestNs         float64 `json:"test_ns"` // per TestAndAdd, this thread's CPU time (see bench filter's clock)
}

const fpVariantsDefault = "mdbf,mdbf-routed,classic,blocked,chain,scalable"

func runBenchFP(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("bench fp", "bench fp (--store DIR | --urls FILE | --synthetic N) [--bits LIST] [--fp LIST] [--json] [--report DIR]", stderr)
	store := fs.String("store", "", "crawl store whose recorded URL trace is replayed")
	urls := fs.String("urls", "", "file of URLs, one per line, in discovery order (repeats included)")
	synthetic := fs.Int("synthetic", 0, "replay a generated stream of N URL tests (about 1 in 3 distinct)")
	bitsList := fs.String("bits", "4,6,8,10,12,16", "memory budgets in bits per distinct URL (empty = none)")
	fpList := fs.String("fp", "", "target false-positive rates to size the filters for, e.g. 0.01,0.001")
	variants := fs.String("variants", fpVariantsDefault, "filter variants to replay")
	asJSON := fs.Bool("json", false, "print one JSON object per variant and budget")
	report := fs.String("report", "", "directory to write report.md, fp.svg and fp.png into")
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
	budgets, err := parseFloatList("--bits", *bitsList, 0.5, 1024)
	if err != nil {
		return err
	}
	targets, err := parseFloatList("--fp", *fpList, 1e-12, 0.4999)
	if err != nil {
		return err
	}
	if len(budgets) == 0 && len(targets) == 0 {
		return usagef("--bits and --fp are both empty: nothing to measure")
	}
	vs := splitList(*variants)
	for _, v := range vs {
		if !isFPVariant(v) {
			return usagef("--variants: unknown variant %q (want some of %s)", v, fpVariantsDefault)
		}
	}

	var stream []string
	var source string
	switch {
	case *store != "":
		source = "store " + *store
		stream, err = traceFromStore(*store)
	case *urls != "":
		source = "urls " + *urls
		stream, err = readLines(*urls)
	default:
		source = fmt.Sprintf("synthetic %d", *synthetic)
		fmt.Fprintf(stderr, "bench fp: generating a synthetic stream of %d URL tests\n", *synthetic)
		stream = syntheticStream(*synthetic)
	}
	if err != nil {
		return err
	}
	if len(stream) == 0 {
		return fmt.Errorf("bench fp: %s: the URL stream is empty", source)
	}
	distinct := urlfilter.CountDistinct(stream)
	fmt.Fprintf(stderr, "bench fp: %s: %d URL tests, %d distinct\n", source, len(stream), distinct)

	var rows []fpRow
	emit := func(rs []urlfilter.ReplayResult, budget, target float64) {
		for _, r := range rs {
			row := fpRow{Source: source, Variant: r.Name, BudgetBits: budget, BitsPerURL: r.BitsPerKey, TargetFP: target,
				Tested: r.Tested, Distinct: r.Distinct, FalsePositives: r.FalsePositives, Forgotten: r.Forgotten,
				MeasuredFP: r.MeasuredFP, TheoreticalFP: r.PredictedFP, TestNs: r.TestNs}
			rows = append(rows, row)
			if *asJSON {
				b, _ := json.Marshal(row)
				fmt.Fprintln(stdout, string(b))
			}
		}
	}
	for _, b := range budgets {
		fmt.Fprintf(stderr, "bench fp: %g bits per URL\n", b)
		fl, err := fpFilters(vs, distinct, urlfilter.Options{BitsPerKey: b})
		if err != nil {
			return err
		}
		rs, err := replayPinned(ctx, stream, fl)
		if err != nil {
			return err
		}
		emit(rs, b, 0)
	}
	for _, t := range targets {
		fmt.Fprintf(stderr, "bench fp: target FP %g\n", t)
		fl, err := fpFilters(vs, distinct, urlfilter.Options{TargetFP: t})
		if err != nil {
			return err
		}
		rs, err := replayPinned(ctx, stream, fl)
		if err != nil {
			return err
		}
		emit(rs, 0, t)
	}
	if !*asJSON {
		writeFPTable(stdout, rows, false)
	}
	if *report != "" {
		if err := writeFPReport(*report, source, len(stream), distinct, rows); err != nil {
			return err
		}
		fmt.Fprintf(stderr, "bench fp: report written to %s (report.md, fp.svg, fp.png)\n", *report)
	}
	return nil
}

// replayPinned replays on one locked OS thread, timing with its CPU clock.
func replayPinned(ctx context.Context, stream []string, fl []urlfilter.ReplayFilter) ([]urlfilter.ReplayResult, error) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	return urlfilter.ReplayClock(ctx, stream, fl, clock)
}

func isFPVariant(v string) bool {
	for _, x := range strings.Split(fpVariantsDefault, ",") {
		if v == x {
			return true
		}
	}
	return false
}

// fpFilters builds one fresh filter per variant for a stream of distinct
// URLs, at base.BitsPerKey bits per distinct URL or at base.TargetFP:
//   - mdbf, mdbf-routed, classic, blocked: sized for exactly distinct keys;
//   - chain: Window = distinct (nothing needs forgetting), 5 generations,
//     per-generation bits scaled by 4/5 so the ring totals the budget;
//   - scalable: starts at a quarter of the stream and grows twice, so the
//     growth path is measured; its bits per URL come out above the budget.
func fpFilters(variants []string, distinct uint64, base urlfilter.Options) ([]urlfilter.ReplayFilter, error) {
	var out []urlfilter.ReplayFilter
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
		out = append(out, urlfilter.ReplayFilter{Name: v, Filter: f})
	}
	return out, nil
}

func traceFromStore(dir string) ([]string, error) {
	db, err := storage.Open(dir, &storage.Options{ReadOnly: true})
	if err != nil {
		return nil, err
	}
	defer db.Close()
	var out []string
	if err := db.ForEachTrace(context.Background(), func(u string) error { out = append(out, u); return nil }); err != nil {
		return nil, fmt.Errorf("bench fp: read trace of %s: %w", dir, err)
	}
	return out, nil
}

// readLines returns the non-empty lines of path, in order, repeats kept.
func readLines(path string) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("bench fp: read URLs: %w", err)
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	for sc.Scan() {
		if l := strings.TrimSpace(sc.Text()); l != "" {
			out = append(out, l)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("bench fp: read URLs %s: line %d: %w", path, len(out)+1, err)
	}
	return out, nil
}

// syntheticStream mimics a crawl's discovery order: each test is a new URL
// with probability 1/3, otherwise a link to an already discovered URL,
// chosen with a bias to recent ones (navigation links repeat locally).
func syntheticStream(n int) []string {
	rng := rand.New(rand.NewPCG(3, 4))
	fresh := generateURLKeys(n/3 + 1)
	out := make([]string, 0, n)
	next := 0
	for len(out) < n {
		if next == 0 || (rng.IntN(3) == 0 && next < len(fresh)) {
			out = append(out, fresh[next])
			next++
			continue
		}
		// Half the repeats are recent (the last 1000 URLs), half anywhere.
		var i int
		if rng.IntN(2) == 0 {
			i = next - 1 - rng.IntN(min(next, 1000))
		} else {
			i = rng.IntN(next)
		}
		out = append(out, fresh[i])
	}
	return out
}

func splitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

func parseFloatList(flag, s string, lo, hi float64) ([]float64, error) {
	var out []float64
	for _, p := range splitList(s) {
		v, err := strconv.ParseFloat(p, 64)
		if err != nil || !(v >= lo && v <= hi) {
			return nil, usagef("%s: %q is not a number in [%g, %g]", flag, p, lo, hi)
		}
		out = append(out, v)
	}
	return out, nil
}

func writeFPTable(w io.Writer, rows []fpRow, markdown bool) {
	head := []string{"variant", "budget", "bits/URL", "tested", "distinct", "false pos.", "forgotten", "measured FP", "predicted FP", "ns/test"}
	line := func(r fpRow) []string {
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

// writeFPReport writes report.md (the table) and fp.svg / fp.png (measured
// and predicted FP against bits per URL, log y, one colour per variant).
func writeFPReport(dir, source string, tested int, distinct uint64, rows []fpRow) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("bench fp: report: %w", err)
	}
	p := plot.New()
	p.Title.Text = fmt.Sprintf("URL filter false positives — %s (%d distinct URLs)", filepath.Base(source), distinct)
	p.X.Label.Text = "bits per distinct URL"
	p.Y.Label.Text = "false-positive rate (log)"
	p.Y.Scale = plot.LogScale{}
	p.Y.Tick.Marker = plot.LogTicks{Prec: -1}
	p.Legend.Top = true
	floor := 0.5 / float64(distinct) // where a measured 0 is drawn
	hasSized := false
	for _, r := range rows {
		hasSized = hasSized || r.BudgetBits == 0
	}
	byVariant := map[string][]fpRow{}
	var names []string
	for _, r := range rows {
		if _, ok := byVariant[r.Variant]; !ok {
			names = append(names, r.Variant)
		}
		byVariant[r.Variant] = append(byVariant[r.Variant], r)
	}
	zeros := 0
	for i, v := range names {
		rs := byVariant[v]
		sort.Slice(rs, func(a, b int) bool { return rs[a].BitsPerURL < rs[b].BitsPerURL })
		var meas, pred, sized plotter.XYs // sized: rows sized by --fp, drawn as lone points
		for _, r := range rs {
			m := r.MeasuredFP
			if m == 0 {
				m = floor
				zeros++
			}
			if r.BudgetBits == 0 {
				sized = append(sized, plotter.XY{X: r.BitsPerURL, Y: m})
				continue
			}
			meas = append(meas, plotter.XY{X: r.BitsPerURL, Y: m})
			pred = append(pred, plotter.XY{X: r.BitsPerURL, Y: math.Max(r.TheoreticalFP, floor/10)})
		}
		c := plotutil.Color(i)
		if len(meas) > 0 {
			ml, mp, err := plotter.NewLinePoints(meas)
			if err != nil {
				return fmt.Errorf("bench fp: chart: %w", err)
			}
			ml.Color, mp.Color, mp.Shape = c, c, plotutil.Shape(i)
			ml.Width = vg.Points(1.5)
			pl, err := plotter.NewLine(pred)
			if err != nil {
				return fmt.Errorf("bench fp: chart: %w", err)
			}
			pl.Color, pl.Dashes, pl.Width = withAlpha(c, 0xb0), []vg.Length{vg.Points(4), vg.Points(3)}, vg.Points(1)
			p.Add(ml, mp, pl)
			p.Legend.Add(v+" measured", ml, mp)
			p.Legend.Add(v+" predicted", pl)
		}
		if len(sized) > 0 {
			sp, err := plotter.NewScatter(sized)
			if err != nil {
				return fmt.Errorf("bench fp: chart: %w", err)
			}
			sp.Color, sp.Shape, sp.Radius = c, plotutil.Shape(i), vg.Points(4.5)
			p.Add(sp)
			if len(meas) == 0 {
				p.Legend.Add(v+" measured (sized by --fp)", sp)
			}
		}
	}
	// Leave the right part of the chart free for the legend.
	dataMax := p.X.Max
	p.X.Max = p.X.Min + (dataMax-p.X.Min)*1.55
	var ticks []plot.Tick
	for x := 0.0; x <= dataMax+2; x += 4 {
		ticks = append(ticks, plot.Tick{Value: x, Label: strconv.FormatFloat(x, 'f', -1, 64)})
	}
	p.X.Tick.Marker = plot.ConstantTicks(ticks)
	fl, _ := plotter.NewLine(plotter.XYs{{X: p.X.Min, Y: floor}, {X: p.X.Max, Y: floor}})
	fl.Color, fl.Dashes = color.Gray{Y: 0xa0}, []vg.Length{vg.Points(1), vg.Points(2)}
	p.Add(fl)
	p.Legend.Add("measured 0 (drawn at 1/(2·distinct))", fl)
	if hasSized {
		mark, err := plotter.NewScatter(plotter.XYs{{X: 0, Y: 1}}) // legend thumbnail only
		if err != nil {
			return fmt.Errorf("bench fp: chart: %w", err)
		}
		mark.Color, mark.Radius = color.Gray{Y: 0x60}, vg.Points(4.5)
		p.Legend.Add("lone large marks: sized by --fp target", mark)
	}
	p.Legend.ThumbnailWidth = vg.Points(24)
	for _, ext := range []string{"svg", "png"} {
		if err := p.Save(26*vg.Centimeter, 18*vg.Centimeter, filepath.Join(dir, "fp."+ext)); err != nil {
			return fmt.Errorf("bench fp: save chart: %w", err)
		}
	}
	f, err := os.Create(filepath.Join(dir, "report.md"))
	if err != nil {
		return fmt.Errorf("bench fp: report: %w", err)
	}
	fmt.Fprintf(f, "# URL filter false positives: %s\n\n", source)
	fmt.Fprintf(f, "Generated by `bloomcrawl bench fp` on %s. The stream has %d URL tests, %d distinct URLs. "+
		"Every filter replays it in order; the exact set is the ground truth. A false positive is a distinct URL the filter "+
		"called seen: a page this crawl would have silently lost. Predicted FP is the formula at each distinct URL's fill, "+
		"averaged over the stream.\n\n", time.Now().UTC().Format(time.RFC3339), tested, distinct)
	fmt.Fprintf(f, "How the filters are built for a stream of D distinct URLs: mdbf (seed 002 read faithfully: S = 2 groups, "+
		"every key in every group, present if any group matches), mdbf-routed (the key's hash picks one group), classic and "+
		"blocked are sized for exactly D keys; chain is a ring of 5 generations with a window of D (nothing needs forgetting), "+
		"its per-generation budget scaled by 4/5 so the ring totals the budget; scalable starts at D/4 and grows (Growth 2, "+
		"error ratio 0.5), so it spends more bits than the budget: its x position is what it really used. "+
		"ns/test is this thread's CPU time per TestAndAdd.\n\n")
	fmt.Fprintf(f, "![measured vs predicted FP](fp.svg)\n\n")
	writeFPTable(f, rows, true)
	if zeros > 0 {
		fmt.Fprintf(f, "\n%d points measured no false positive at all; the chart draws them on the dotted floor line at 1/(2·distinct).\n", zeros)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("bench fp: report: %w", err)
	}
	return nil
}

func withAlpha(c color.Color, a uint8) color.Color {
	r, g, b, _ := c.RGBA()
	return color.NRGBA{R: uint8(r >> 8), G: uint8(g >> 8), B: uint8(b >> 8), A: a}
}
