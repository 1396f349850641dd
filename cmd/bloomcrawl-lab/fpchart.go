package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"image/color"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"

	"github.com/bloomcrawl/bloomcrawl/urlfilter/filterbench"
)

func init() {
	register(command{
		Name:    "fpchart",
		Summary: "draw fp.svg and fp.png from DIR/fp.jsonl (bloomcrawl bench fp --report DIR)",
		Run:     runFPChart,
	})
}

// runFPChart reads DIR/fp.jsonl, the rows of 'bloomcrawl bench fp --report
// DIR', and writes DIR/fp.svg and DIR/fp.png: measured and predicted FP
// against bits per URL, log y, one colour per variant; the chart report.md
// shows.
func runFPChart(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) != 1 {
		return usagef("want one directory")
	}
	dir := args[0]
	rows, err := readFPRows(filepath.Join(dir, "fp.jsonl"))
	if err != nil {
		return err
	}
	if len(rows) == 0 {
		return fmt.Errorf("%s: no rows", filepath.Join(dir, "fp.jsonl"))
	}
	p, err := fpChart(rows)
	if err != nil {
		return err
	}
	for _, ext := range []string{"svg", "png"} {
		if err := p.Save(26*vg.Centimeter, 18*vg.Centimeter, filepath.Join(dir, "fp."+ext)); err != nil {
			return fmt.Errorf("save chart: %w", err)
		}
	}
	fmt.Fprintf(stderr, "bloomcrawl-lab fpchart: %s/fp.svg and fp.png written\n", dir)
	return nil
}

func readFPRows(path string) ([]filterbench.FPRow, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var rows []filterbench.FPRow
	sc := bufio.NewScanner(f)
	for line := 1; sc.Scan(); line++ {
		var r filterbench.FPRow
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", path, line, err)
		}
		rows = append(rows, r)
	}
	return rows, sc.Err()
}

// fpChart draws measured and predicted FP against bits per URL, log y, one
// colour per variant; rows sized by a target FP are lone large marks, and a
// measured 0 is drawn on a floor line at 1/(2·distinct).
func fpChart(rows []filterbench.FPRow) (*plot.Plot, error) {
	source, distinct := rows[0].Source, rows[0].Distinct
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
	byVariant := map[string][]filterbench.FPRow{}
	var names []string
	for _, r := range rows {
		if _, ok := byVariant[r.Variant]; !ok {
			names = append(names, r.Variant)
		}
		byVariant[r.Variant] = append(byVariant[r.Variant], r)
	}
	for i, v := range names {
		rs := byVariant[v]
		sort.Slice(rs, func(a, b int) bool { return rs[a].BitsPerURL < rs[b].BitsPerURL })
		var meas, pred, sized plotter.XYs // sized: rows sized by --fp, drawn as lone points
		for _, r := range rs {
			m := r.MeasuredFP
			if m == 0 {
				m = floor
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
				return nil, fmt.Errorf("chart: %w", err)
			}
			ml.Color, mp.Color, mp.Shape = c, c, plotutil.Shape(i)
			ml.Width = vg.Points(1.5)
			pl, err := plotter.NewLine(pred)
			if err != nil {
				return nil, fmt.Errorf("chart: %w", err)
			}
			pl.Color, pl.Dashes, pl.Width = withAlpha(c, 0xb0), []vg.Length{vg.Points(4), vg.Points(3)}, vg.Points(1)
			p.Add(ml, mp, pl)
			p.Legend.Add(v+" measured", ml, mp)
			p.Legend.Add(v+" predicted", pl)
		}
		if len(sized) > 0 {
			sp, err := plotter.NewScatter(sized)
			if err != nil {
				return nil, fmt.Errorf("chart: %w", err)
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
			return nil, fmt.Errorf("chart: %w", err)
		}
		mark.Color, mark.Radius = color.Gray{Y: 0x60}, vg.Points(4.5)
		p.Legend.Add("lone large marks: sized by --fp target", mark)
	}
	p.Legend.ThumbnailWidth = vg.Points(24)
	return p, nil
}

func withAlpha(c color.Color, a uint8) color.Color {
	r, g, b, _ := c.RGBA()
	return color.NRGBA{R: uint8(r >> 8), G: uint8(g >> 8), B: uint8(b >> 8), A: a}
}
