// Package similareval measures similar pages (MinHash with p
// minimums per band key and q bands) against exact truth: the Jaccard
// similarity of the documents' word sets, computed for all pairs of a
// sample. It is the engine of `go run ./cmd/bloomcrawl-lab similar`.
package similareval

import (
	"cmp"
	"context"
	"slices"
	"time"

	"github.com/cespare/xxhash/v2"

	"github.com/bloomcrawl/bloomcrawl/lab/dedupeval"
	"github.com/bloomcrawl/bloomcrawl/similar"
)

// Doc is one document of the sample: an id and its word set.
type Doc struct {
	ID    uint64
	Words []string // distinct words (contentdedup.Tokenizer.WordSet)
}

// Setting is one (p, q) of the sweep.
type Setting struct {
	Rows, Bands int // p minimums per band key, q bands
}

// Options configures [Evaluate].
type Options struct {
	// K is the size of each document's true neighbour list and of the
	// returned list. Default 10.
	K int
	// Settings to measure. Default: p in 1..6, q in 2, 4, 6, 10, 16, 25.
	Settings []Setting
	// Seed of the hash functions; default similar.PageOptions.Seed
	// (so that p = 4, q = 6 is exactly the store's index).
	Seed uint64
	// HighJaccard is the similarity of the pairs Result.HighRecall counts.
	// Default 0.5.
	HighJaccard float64
}

// Result is one setting's measurement.
type Result struct {
	Setting
	// Recall is, averaged over documents with at least one neighbour of
	// Jaccard > 0, the fraction of the true top-K found in the returned
	// list (ties at the K-th similarity count as true neighbours).
	Recall float64
	// Precision is, averaged over documents with a non-empty answer, the
	// fraction of the returned list that is in the true top-K (ties
	// included).
	Precision float64
	// Answered is the fraction of documents with a non-empty answer.
	Answered float64
	// Returned is the mean length of the returned lists (at most K).
	Returned float64
	// Candidates is the mean number of documents sharing a band with a
	// query (before the cut to K).
	Candidates float64
	// MeanJaccard is the mean exact Jaccard of the returned neighbours.
	MeanJaccard float64
	// HighRecall is the fraction of the pairs of Jaccard ≥ HighJaccard
	// that share a band (found, whatever K): what banding is built for.
	HighRecall float64
	// IndexBytes is the size of the index: Rows·Bands minimums of 8 bytes
	// per document plus a 16-byte posting (band key, docId) per band.
	IndexBytes int64
	// Time is signatures + index + every query (the signatures are
	// computed once for the largest setting and cut, and their time is
	// shared in proportion to Rows·Bands).
	Time time.Duration
}

// Report is what Evaluate measured.
type Report struct {
	Docs  int
	K     int
	Pairs int64 // pairs compared by the exact computation
	// ExactBytes is the exact computation's data: every word set as
	// 8-byte word hashes. ExactTime is all pairs' Jaccard and each
	// document's top K.
	ExactBytes int64
	ExactTime  time.Duration
	// TrueMeanJaccard is the mean Jaccard of the true top-K neighbours.
	TrueMeanJaccard float64
	// HighPairs is the number of pairs of Jaccard ≥ HighJaccard.
	HighJaccard float64
	HighPairs   int
	Results     []Result
}

// DefaultSettings is the default sweep.
func DefaultSettings() []Setting {
	var out []Setting
	for p := 1; p <= 6; p++ {
		for _, q := range []int{2, 4, 6, 10, 16, 25} {
			out = append(out, Setting{p, q})
		}
	}
	return out
}

type neighbour struct {
	i int
	j float64
}

// Evaluate computes every pair's exact Jaccard over docs and measures each
// setting's returned top-K lists against it. Cancelling ctx stops it.
func Evaluate(ctx context.Context, docs []Doc, o Options) (Report, error) {
	o = o.withDefaults()
	rep := Report{Docs: len(docs), K: o.K, HighJaccard: o.HighJaccard}

	// Exact truth.
	t0 := time.Now()
	sets := wordHashSets(docs, &rep)
	all, err := allPairs(ctx, sets, o, &rep)
	if err != nil {
		return rep, err
	}
	truth, exact := topK(all, o, &rep)
	rep.ExactTime = time.Since(t0)

	if err := measureSettings(ctx, docs, truth, exact, o, &rep); err != nil {
		return rep, err
	}
	return rep, nil
}

// withDefaults returns o with its zero fields set to their defaults.
func (o Options) withDefaults() Options {
	if o.K <= 0 {
		o.K = 10
	}
	if len(o.Settings) == 0 {
		o.Settings = DefaultSettings()
	}
	if o.Seed == 0 {
		o.Seed = similar.PageOptions.Seed
	}
	if o.HighJaccard == 0 {
		o.HighJaccard = 0.5
	}
	return o
}

// wordHashSets returns each document's word set as sorted distinct word
// hashes, and adds their size to rep.ExactBytes.
func wordHashSets(docs []Doc, rep *Report) [][]uint64 {
	sets := make([][]uint64, len(docs))
	for i, d := range docs {
		s := make([]uint64, len(d.Words))
		for k, w := range d.Words {
			s[k] = xxhash.Sum64String(w)
		}
		slices.Sort(s)
		sets[i] = slices.Compact(s)
		rep.ExactBytes += int64(8 * len(sets[i]))
	}
	return sets
}

// allPairs computes the exact Jaccard of every pair of sets and returns
// each document's neighbours of Jaccard > 0, unsorted; it counts the pairs
// and those of Jaccard ≥ o.HighJaccard into rep.
func allPairs(ctx context.Context, sets [][]uint64, o Options, rep *Report) ([][]neighbour, error) {
	all := make([][]neighbour, len(sets))
	for i := range sets {
		if i%64 == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		for j := i + 1; j < len(sets); j++ {
			rep.Pairs++
			if len(sets[i]) == 0 && len(sets[j]) == 0 {
				// Pages without words have no MinHash entry: the index
				// never lists them, so they are nobody's neighbours.
				continue
			}
			v := dedupeval.Jaccard(sets[i], sets[j])
			if v >= o.HighJaccard {
				rep.HighPairs++
			}
			if v > 0 {
				all[i] = append(all[i], neighbour{j, v})
				all[j] = append(all[j], neighbour{i, v})
			}
		}
	}
	return all, nil
}

// topK sorts each document's neighbours in all by Jaccard and returns its
// true top-K plus ties, and every neighbour's Jaccard by index; it sets
// rep.TrueMeanJaccard.
func topK(all [][]neighbour, o Options, rep *Report) (truth [][]neighbour, exact []map[int]float64) {
	truth = make([][]neighbour, len(all)) // top-K plus ties, by Jaccard
	exact = make([]map[int]float64, len(all))
	var trueSum float64
	var trueN int
	for i, ns := range all {
		slices.SortFunc(ns, func(a, b neighbour) int { return cmp.Compare(b.j, a.j) })
		exact[i] = make(map[int]float64, len(ns))
		for _, n := range ns {
			exact[i][n.i] = n.j
		}
		if len(ns) > o.K {
			cut := ns[o.K-1].j
			k := o.K
			for k < len(ns) && ns[k].j == cut {
				k++
			}
			ns = ns[:k]
		}
		truth[i] = ns
		for _, n := range ns[:min(len(ns), o.K)] {
			trueSum += n.j
			trueN++
		}
	}
	if trueN > 0 {
		rep.TrueMeanJaccard = trueSum / float64(trueN)
	}
	return truth, exact
}

// measureSettings computes the signatures once, for the largest setting,
// and appends each setting's Result to rep.Results.
func measureSettings(ctx context.Context, docs []Doc, truth [][]neighbour, exact []map[int]float64, o Options, rep *Report) error {
	maxPQ := 0
	for _, s := range o.Settings {
		maxPQ = max(maxPQ, s.Rows*s.Bands)
	}
	big, err := similar.New(similar.Options{Rows: maxPQ, Bands: 1, Shingle: 1, Seed: o.Seed})
	if err != nil {
		return err
	}
	t0 := time.Now()
	sigs := make([][]uint64, len(docs))
	for i, d := range docs {
		sigs[i] = big.Signature(d.Words)
	}
	sigTime := time.Since(t0)

	for _, s := range o.Settings {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		r, err := evalSetting(docs, sigs, truth, exact, rep.HighPairs, s, o)
		if err != nil {
			return err
		}
		r.Time += time.Duration(float64(sigTime) * float64(s.Rows*s.Bands) / float64(maxPQ))
		rep.Results = append(rep.Results, r)
	}
	return nil
}

func evalSetting(docs []Doc, sigs [][]uint64, truth [][]neighbour, exact []map[int]float64, highPairs int, s Setting, o Options) (Result, error) {
	res := Result{Setting: s}
	m, err := similar.New(similar.Options{Rows: s.Rows, Bands: s.Bands, Shingle: 1, Seed: o.Seed})
	if err != nil {
		return res, err
	}
	pq := s.Rows * s.Bands
	t0 := time.Now()
	idx := similar.NewIndex(m)
	for i := range docs {
		if sigs[i] != nil {
			idx.Add(uint64(i), sigs[i][:pq])
		}
	}
	answers := make([][]similar.Neighbor, len(docs))
	var cands float64
	high := 0 // ordered pairs (i, j), i < j, of Jaccard ≥ HighJaccard found
	for i := range docs {
		if sigs[i] == nil {
			continue
		}
		ns := idx.Similar(sigs[i][:pq], 0)
		ns = slices.DeleteFunc(ns, func(n similar.Neighbor) bool { return n.DocID == uint64(i) })
		cands += float64(len(ns))
		for _, n := range ns {
			if int(n.DocID) > i && exact[i][int(n.DocID)] >= o.HighJaccard {
				high++
			}
		}
		answers[i] = ns[:min(len(ns), o.K)]
	}
	res.Time = time.Since(t0)
	res.IndexBytes = int64(len(docs)) * int64(8*pq+16*s.Bands)

	var recall, prec, jsum float64
	var nRecall, nPrec, nRet int
	for i := range docs {
		tn := truth[i]
		ans := answers[i]
		if len(tn) > 0 {
			cut := tn[len(tn)-1].j
			want := min(len(tn), o.K)
			hit := 0
			for _, a := range ans {
				if exact[i][int(a.DocID)] >= cut {
					hit++
				}
			}
			recall += float64(min(hit, want)) / float64(want)
			nRecall++
			if len(ans) > 0 {
				prec += float64(hit) / float64(len(ans))
			}
		}
		if len(ans) > 0 {
			nPrec++ // an answer without any true neighbour has precision 0
		}
		for _, a := range ans {
			jsum += exact[i][int(a.DocID)]
			nRet++
		}
	}
	if nRecall > 0 {
		res.Recall = recall / float64(nRecall)
	}
	if nPrec > 0 {
		res.Precision = prec / float64(nPrec)
	}
	if len(docs) > 0 {
		res.Answered = float64(nPrec) / float64(len(docs))
		res.Returned = float64(nRet) / float64(len(docs))
		res.Candidates = cands / float64(len(docs))
	}
	if nRet > 0 {
		res.MeanJaccard = jsum / float64(nRet)
	}
	if highPairs > 0 {
		res.HighRecall = float64(high) / float64(highPairs)
	}
	return res, nil
}
