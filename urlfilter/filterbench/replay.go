package filterbench

import (
	"context"
	"fmt"
	"time"

	"github.com/bloomcrawl/bloomcrawl/urlfilter"
)

// replayResult is what replay measured for one filter.
type replayResult struct {
	Name           string  // the name given in replayFilter
	Variant        string  // Stats().Variant
	Tested         uint64  // keys tested (the whole stream)
	Distinct       uint64  // keys not seen before in the stream (exact truth)
	FalsePositives uint64  // distinct keys the filter called seen: pages a crawl would lose
	Forgotten      uint64  // repeated keys the filter called new (chains past their window)
	MeasuredFP     float64 // FalsePositives / Distinct
	PredictedFP    float64 // the formula's rate averaged over the stream (at each distinct key's fill)
	FinalFP        float64 // the formula's rate at the final fill
	Bits           uint64  // filter bits at the end
	BitsPerKey     float64 // Bits / Distinct
	TestNs         float64 // mean time of one TestAndAdd by clock, ns
}

// replayFilter names a filter for replay.
type replayFilter struct {
	Name   string
	Filter urlfilter.Filter // fresh (empty) filter; replay fills it
}

// countDistinct returns the number of distinct keys in stream, so filters
// can be sized for a stream before replay.
func countDistinct(stream []string) uint64 {
	seen := make(map[string]struct{}, len(stream)/2)
	for _, k := range stream {
		seen[k] = struct{}{}
	}
	return uint64(len(seen))
}

// replay runs the key stream, in order, through each filter's TestAndAdd
// and compares every answer with an exact set. Each filter replays it alone,
// single-threaded, so TestNs is that filter's own cost, timed with clock
// (nil = wall time; for example the calling thread's CPU time on a shared,
// loaded machine). It stops early with ctx's error when ctx is done.
func replay(ctx context.Context, stream []string, filters []replayFilter, clock func() time.Duration) ([]replayResult, error) {
	if clock == nil {
		t0 := time.Now()
		clock = func() time.Duration { return time.Since(t0) }
	}
	isNew := make([]bool, len(stream))
	truth := make(map[string]struct{}, len(stream)/2)
	for i, k := range stream {
		if _, seen := truth[k]; !seen {
			truth[k] = struct{}{}
			isNew[i] = true
		}
	}
	distinct := uint64(len(truth))
	truth = nil
	out := make([]replayResult, 0, len(filters))
	for _, rf := range filters {
		r := replayResult{Name: rf.Name, Tested: uint64(len(stream)), Distinct: distinct}
		f := rf.Filter
		var predSum float64
		prevPred := f.Stats().PredictedFP
		var elapsed time.Duration
		// Chunks: timed as a whole (the clock is read twice per chunk), and
		// the predicted rate is sampled between them, so they must be small
		// next to the stream for the average to follow the fill.
		chunk := min(max(len(stream)/1024, 256), 1<<14)
		for lo := 0; lo < len(stream); lo += chunk {
			if err := ctx.Err(); err != nil {
				return out, fmt.Errorf("bench: replay %s: %w", rf.Name, err)
			}
			hi := min(lo+chunk, len(stream))
			// Time the chunk as a whole; bookkeeping between chunks is
			// excluded, the comparison inside is a few ns.
			start := clock()
			for i := lo; i < hi; i++ {
				seen := f.TestAndAdd(stream[i])
				if isNew[i] {
					if seen {
						r.FalsePositives++
					}
				} else if !seen {
					r.Forgotten++
				}
			}
			elapsed += clock() - start
			// The predicted rate at each distinct key's fill, by the
			// trapezoid rule over the chunk.
			var fresh int
			for i := lo; i < hi; i++ {
				if isNew[i] {
					fresh++
				}
			}
			cur := f.Stats().PredictedFP
			predSum += (prevPred + cur) / 2 * float64(fresh)
			prevPred = cur
		}
		st := f.Stats()
		r.Variant = st.Variant
		r.Bits = st.Bits
		r.FinalFP = st.PredictedFP
		if distinct > 0 {
			r.MeasuredFP = float64(r.FalsePositives) / float64(distinct)
			r.PredictedFP = predSum / float64(distinct)
			r.BitsPerKey = float64(st.Bits) / float64(distinct)
		}
		if len(stream) > 0 {
			r.TestNs = float64(elapsed.Nanoseconds()) / float64(len(stream))
		}
		out = append(out, r)
	}
	return out, nil
}
