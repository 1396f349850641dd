package bench

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/bloomcrawl/bloomcrawl/contentdedup"
	"github.com/bloomcrawl/bloomcrawl/lab/dedupeval"
	"github.com/bloomcrawl/bloomcrawl/similar"
)

// DedupOptions says what Dedup measures.
type DedupOptions struct {
	Pages     []Page // the corpus (LoadCorpus); sorted into English and Chinese by Language
	MinWords  int    // skip pages with fewer ground-truth words (a Han character is a word)
	PerLang   int    // at most this many original pages per language (a seeded sample), >= 2
	Variants  int    // near-duplicate variants made of each page, >= 1
	Seed      uint64 // seed of the page sample, the variants and the order
	Threshold int    // Hamming distance for SimHash matches, 0..contentdedup.MaxThreshold (0 = exact)
	Sweep     bool   // also run the short-text sweep that sets the exact-hash length
	Verbose   bool   // list the default method's false merges and missed pairs
}

// DedupReport is what Dedup measured.
type DedupReport struct {
	English, Chinese int         // usable pages found per language
	Langs            []DedupLang // "en" then "zh"
}

// DedupLang is one language's evaluation set and every method's score.
type DedupLang struct {
	Lang     string
	Pages    int // original pages sampled; < 2 means the language was skipped
	Docs     int // pages + variants
	Bytes    int // text bytes of all documents
	Pairs    int // document pairs
	Truth    int // pairs with Jaccard >= 0.9
	Methods  []DedupMethod
	Sweep    []SweepRow // with Options.Sweep
	Distance int        // the SimHash distance used
}

// DedupMethod is one method's score against the exact ground truth.
type DedupMethod struct {
	Name    string
	Score   dedupeval.Score
	Seconds float64
	Notes   []string // with Options.Verbose, for the default method: false merges, misses, diagnostics
}

// SweepRow is one text length of the short-text sweep: the share of 2000
// random pairs SimHash merged.
type SweepRow struct {
	Words       int
	EditMerged  float64 // windows differing in one word, merged
	EditBad     float64 // of those, pairs with ground-truth Jaccard < 0.5 (precision errors)
	OtherMerged float64 // unrelated windows of the same page, merged
}

// dedupMethod is one row of the table.
type dedupMethod struct {
	name    string
	naive   bool
	minhash bool
	dflt    bool
	o       contentdedup.Options
}

// dedupMethods are the rows of the table, default cascade among them.
func dedupMethods(k int) []dedupMethod {
	optK := new(k) // 0 means exact, as in a config
	fp := func(shingle int, w contentdedup.Weighting) contentdedup.FingerprintParams {
		return contentdedup.FingerprintParams{Shingle: shingle, Weight: w}
	}
	return []dedupMethod{
		{name: "naive: word/char features, raw tf, d<=3, linear scan", naive: true},
		{name: "simhash words, log tf, content only", o: contentdedup.Options{Threshold: optK, NoTitleStep: true, NoSketch: true, NoIndexDuplicates: true, Fingerprint: fp(1, contentdedup.WeightLog)}},
		{name: "simhash words, auto tf, content only", o: contentdedup.Options{Threshold: optK, NoTitleStep: true, NoSketch: true, NoIndexDuplicates: true}},
		{name: "simhash + title step (content d<=8), no sketch", o: contentdedup.Options{Threshold: optK, NoSketch: true, NoIndexDuplicates: true}},
		{name: "no sketch + index duplicates' signatures", o: contentdedup.Options{Threshold: optK, NoSketch: true}},
		{name: "sketch J>=0.7 (d<=6; title any d), no index duplicates", o: contentdedup.Options{Threshold: optK, NoIndexDuplicates: true}},
		{name: "default: sketch J>=0.7 + index duplicates' signatures", o: contentdedup.Options{Threshold: optK}, dflt: true},
		{name: "default, but SimHash d<=3 alone merges", o: contentdedup.Options{Threshold: optK, SimHashAlone: true}},
		{name: "sketch J>=0.6", o: contentdedup.Options{Threshold: optK, SketchJaccard: 0.6}},
		{name: "sketch J>=0.8", o: contentdedup.Options{Threshold: optK, SketchJaccard: 0.8}},
		{name: "sketch d<=4", o: contentdedup.Options{Threshold: optK, SketchDistance: max(4, k)}},
		{name: "sketch d<=5", o: contentdedup.Options{Threshold: optK, SketchDistance: max(5, k)}},
		{name: "sketch, title d<=8 only", o: contentdedup.Options{Threshold: optK, SketchTitleDistance: 8}},
		{name: "sketch, content only", o: contentdedup.Options{Threshold: optK, NoTitleStep: true}},
		{name: "minhash p=4 q=6, 3-shingles, est. J>=0.7", minhash: true},
	}
}

// dedupPages keeps the pages with at least minWords ground-truth words and
// a text not seen before (corpora hold copies), sorted by Language.
func dedupPages(pages []Page, minWords int) (en, zh []dedupeval.Doc) {
	seen := map[string]bool{}
	for _, p := range pages {
		if seen[p.Text] {
			continue
		}
		seen[p.Text] = true
		if len(dedupeval.Words(p.Text)) < minWords {
			continue
		}
		d := dedupeval.Doc{URL: p.URL, Title: p.Title, Text: p.Text}
		switch Language(p.Text) {
		case "zh":
			zh = append(zh, d)
		case "en":
			en = append(en, d)
		}
	}
	return en, zh
}

// Dedup makes near-duplicate variants of real pages the way the web does,
// computes the exact Jaccard similarity of word 4-shingles for every pair,
// and scores each method's clustering (documents in order, one docId each)
// by precision (merged pairs with J >= 0.5) and recall (pairs with J >= 0.9
// merged), per language.
func Dedup(ctx context.Context, o DedupOptions) (DedupReport, error) {
	if o.PerLang < 2 || o.Variants < 1 {
		return DedupReport{}, fmt.Errorf("bench dedup: %d pages per language and %d variants: want >= 2 and >= 1", o.PerLang, o.Variants)
	}
	if o.Threshold < 0 || o.Threshold > contentdedup.MaxThreshold {
		return DedupReport{}, fmt.Errorf("bench dedup: threshold %d: must be 0..%d", o.Threshold, contentdedup.MaxThreshold)
	}
	en, zh := dedupPages(o.Pages, o.MinWords)
	rep := DedupReport{English: len(en), Chinese: len(zh)}
	if err := contentdedup.LoadDictionary(); err != nil {
		return rep, err
	}
	methods := dedupMethods(o.Threshold)
	for _, lang := range []struct {
		name  string
		pages []dedupeval.Doc
	}{{"en", en}, {"zh", zh}} {
		if err := ctx.Err(); err != nil {
			return rep, err
		}
		if len(lang.pages) < 2 {
			rep.Langs = append(rep.Langs, DedupLang{Lang: lang.name, Pages: len(lang.pages), Distance: o.Threshold})
			continue
		}
		r := rand.New(rand.NewPCG(o.Seed, 1))
		ps := slices.Clone(lang.pages)
		r.Shuffle(len(ps), func(i, j int) { ps[i], ps[j] = ps[j], ps[i] })
		ps = ps[:min(o.PerLang, len(ps))]
		docs := dedupeval.NewGenerator(lang.name, o.Seed).Generate(ps, o.Variants)
		l, err := evaluate(lang.name, len(ps), docs, methods, o)
		if err != nil {
			return rep, err
		}
		if o.Sweep {
			l.Sweep = shortTextSweep(ps, o.Seed, o.Threshold)
		}
		rep.Langs = append(rep.Langs, l)
	}
	return rep, nil
}

// evaluate scores each method on docs (pages originals among them) against
// the exact ground truth: pairs with word 4-shingle Jaccard >= 0.9.
func evaluate(lang string, pages int, docs []dedupeval.Doc, methods []dedupMethod, o DedupOptions) (DedupLang, error) {
	l := DedupLang{Lang: lang, Pages: pages, Docs: len(docs), Pairs: len(docs) * (len(docs) - 1) / 2, Distance: o.Threshold}
	sets := make([][]uint64, len(docs))
	for i, d := range docs {
		sets[i] = dedupeval.Shingles(d.Text, 4)
		l.Bytes += len(d.Text)
	}
	truth := dedupeval.PairsAbove(sets, 0.9)
	l.Truth = len(truth)
	for _, m := range methods {
		t0 := time.Now()
		labels, err := m.run(docs, o.Threshold)
		if err != nil {
			return l, err
		}
		dm := DedupMethod{Name: m.name, Score: dedupeval.Evaluate(m.name, labels, sets, truth), Seconds: time.Since(t0).Seconds()}
		if o.Verbose && m.dflt {
			dm.Notes = dedupNotes(docs, labels, sets, truth, dm.Score)
		}
		l.Methods = append(l.Methods, dm)
	}
	return l, nil
}

// WriteDedupReport prints rep as the tables of 'go run ./cmd/bloomcrawl-lab dedup'.
func WriteDedupReport(w io.Writer, rep DedupReport) error {
	for _, l := range rep.Langs {
		if l.Pages < 2 {
			fmt.Fprintf(w, "\n%s: fewer than 2 pages, skipped\n", l.Lang)
			continue
		}
		fmt.Fprintf(w, "\n%s: %d pages + %d variants = %d documents (%.1f MB), %d pairs, %d with Jaccard >= 0.9\n",
			l.Lang, l.Pages, l.Docs-l.Pages, l.Docs, float64(l.Bytes)/1e6, l.Pairs, l.Truth)
		tw := tabwriter.NewWriter(w, 2, 8, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, "method\tprecision\trecall\tmerged pairs\tJ<0.5 merged\tJ>=0.9 missed\tclusters\tseconds\t")
		for _, m := range l.Methods {
			s := m.Score
			fmt.Fprintf(tw, "%s\t%.4f\t%.4f\t%d\t%d\t%d\t%d\t%.2f\t\n", m.Name, s.Precision, s.Recall,
				s.Merged, s.Merged-s.MergedGood, s.Truth-s.TruthMerged, s.Clusters, m.Seconds)
			if m.Notes != nil {
				tw.Flush()
				for _, n := range m.Notes {
					fmt.Fprintln(w, n)
				}
			}
		}
		if err := tw.Flush(); err != nil {
			return err
		}
		if l.Sweep != nil {
			fmt.Fprintf(w, "%s short-text sweep (default SimHash, d<=%d; 2000 pairs per row):\n", l.Lang, l.Distance)
			tw := tabwriter.NewWriter(w, 2, 8, 2, ' ', tabwriter.AlignRight)
			fmt.Fprintln(tw, "words\tone-word edit: merged\tof which J<0.5\tunrelated windows: merged\t")
			for _, r := range l.Sweep {
				fmt.Fprintf(tw, "%d\t%.4f\t%.4f\t%.4f\t\n", r.Words, r.EditMerged, r.EditBad, r.OtherMerged)
			}
			if err := tw.Flush(); err != nil {
				return err
			}
		}
	}
	return nil
}

// run returns one docId per document, documents processed in order.
func (m dedupMethod) run(docs []dedupeval.Doc, k int) ([]uint64, error) {
	if m.naive {
		fps := make([]uint64, len(docs))
		for i, d := range docs {
			fps[i] = dedupeval.NaiveFingerprint(d.Text)
		}
		return dedupeval.LinearCluster(fps, k), nil
	}
	if m.minhash {
		return minhashCluster(docs, 0.7)
	}
	d, err := contentdedup.New(m.o)
	if err != nil {
		return nil, err
	}
	labels := make([]uint64, len(docs))
	for i, doc := range docs {
		labels[i] = d.Check(doc.URL, doc.Title, doc.Text).DocID
	}
	return labels, nil
}

// minhashCluster gives each document, in order, the label of the earlier
// cluster representative that shares a MinHash band with it and has the
// highest estimated Jaccard, if that is at least minJ; else a new label.
func minhashCluster(docs []dedupeval.Doc, minJ float64) ([]uint64, error) {
	tok := contentdedup.NewTokenizer()
	m, err := similar.New(similar.Options{})
	if err != nil {
		return nil, err
	}
	x := similar.NewIndex(m)
	labels := make([]uint64, len(docs))
	for i, d := range docs {
		sig := m.Signature(tok.Tokens(nil, d.Text))
		best, bestJ := uint64(0), minJ
		for _, n := range x.Similar(sig, 0) {
			if n.Jaccard >= bestJ {
				best, bestJ = n.DocID, n.Jaccard
			}
		}
		if best == 0 {
			labels[i] = uint64(i) + 1
			x.Add(labels[i], sig)
		} else {
			labels[i] = best
		}
	}
	return labels, nil
}

// shortTextSweep measures, for texts of n words, how often SimHash merges
// two windows that differ in one word (whose ground-truth Jaccard is below
// 0.5 for short n: a merge there is a precision error) and how often it
// merges unrelated windows of the same page: the figures that set
// contentdedup.MinSimHashTokens.
func shortTextSweep(pages []dedupeval.Doc, seed uint64, k int) []SweepRow {
	tok := contentdedup.NewTokenizer()
	r := rand.New(rand.NewPCG(seed, 2))
	p := contentdedup.FingerprintParams{MinTokens: -1}
	var rows []SweepRow
	for _, n := range []int{5, 10, 15, 20, 30, 50, 100} {
		var editMerged, editBad, otherMerged int
		for i := 0; i < 2000; i++ {
			words := tok.Tokens(nil, pages[r.IntN(len(pages))].Text)
			if len(words) < 2*n+1 {
				continue
			}
			off := r.IntN(len(words) - 2*n)
			a := slices.Clone(words[off : off+n])
			b := slices.Clone(a)
			b[r.IntN(n)] = "zzedit"
			c := words[off+n : off+2*n]
			fa, _, _ := p.Fingerprint(a)
			fb, _, _ := p.Fingerprint(b)
			fc, _, _ := p.Fingerprint(c)
			if contentdedup.Hamming(fa, fb) <= k {
				editMerged++
				if dedupeval.Jaccard(dedupeval.Shingles(strings.Join(a, " "), 4), dedupeval.Shingles(strings.Join(b, " "), 4)) < 0.5 {
					editBad++
				}
			}
			if contentdedup.Hamming(fa, fc) <= k {
				otherMerged++
			}
		}
		rows = append(rows, SweepRow{Words: n, EditMerged: float64(editMerged) / 2000, EditBad: float64(editBad) / 2000, OtherMerged: float64(otherMerged) / 2000})
	}
	return rows
}

// dedupNotes lists the default method's false merges, where its missed
// pairs come from, the largest components of the J >= 0.9 graph, and the
// missed pairs, one line each.
func dedupNotes(docs []dedupeval.Doc, labels []uint64, sets [][]uint64, truth []dedupeval.Pair, s dedupeval.Score) []string {
	notes := []string{}
	for _, p := range s.FalseMerges {
		notes = append(notes, fmt.Sprintf("  false merge J=%.3f: %s [%s] ~ %s [%s]", p.Jaccard, docs[p.I].URL, docs[p.I].Ops, docs[p.J].URL, docs[p.J].Ops))
	}
	if line, ok := missedDiag(docs, labels, truth); ok {
		notes = append(notes, line)
	}
	notes = append(notes, truthComponents(docs, sets, truth)...)
	for _, p := range s.MissedTruths {
		notes = append(notes, fmt.Sprintf("  missed J=%.3f: %s [%s] ~ %s [%s]", p.Jaccard, docs[p.I].URL, docs[p.I].Ops, docs[p.J].URL, docs[p.J].Ops))
	}
	return notes
}

// missedDiag says where the missed pairs (J >= 0.9, not merged) come from:
// pairs of variants of one page or of different pages, and their content
// distance and estimated sketch Jaccard.
func missedDiag(docs []dedupeval.Doc, labels []uint64, truth []dedupeval.Pair) (string, bool) {
	d, err := contentdedup.New(contentdedup.Options{})
	if err != nil {
		return "", false
	}
	sigs := make([]contentdedup.Signature, len(docs))
	for i, doc := range docs {
		sigs[i] = d.Sign(doc.Title, doc.Text)
	}
	same, cross := 0, 0
	dist := map[int]int{}
	jb := map[int]int{}
	for _, p := range truth {
		if labels[p.I] == labels[p.J] {
			continue
		}
		if docs[p.I].Base == docs[p.J].Base {
			same++
		} else {
			cross++
		}
		dist[min(contentdedup.Hamming(sigs[p.I].Content, sigs[p.J].Content), 20)]++
		j, _ := contentdedup.SketchJaccard(&sigs[p.I].Sketch, &sigs[p.J].Sketch)
		jb[int(j*10)]++
	}
	return fmt.Sprintf("  missed: %d same page, %d different pages; by distance %v; by sketch J decile %v", same, cross, dist, jb), true
}

// truthComponents describes the largest connected components of the
// J >= 0.9 graph: size, pairs, pairs with J >= 0.9 and with J < 0.5.
func truthComponents(docs []dedupeval.Doc, sets [][]uint64, truth []dedupeval.Pair) []string {
	parent := make([]int, len(docs))
	for i := range parent {
		parent[i] = i
	}
	find := func(i int) int {
		for parent[i] != i {
			parent[i] = parent[parent[i]]
			i = parent[i]
		}
		return i
	}
	for _, p := range truth {
		parent[find(p.I)] = find(p.J)
	}
	comp := map[int][]int{}
	for i := range docs {
		comp[find(i)] = append(comp[find(i)], i)
	}
	var cs [][]int
	for _, c := range comp {
		if len(c) > 6 {
			cs = append(cs, c)
		}
	}
	slices.SortFunc(cs, func(a, b []int) int { return len(b) - len(a) })
	var out []string
	for _, c := range cs[:min(8, len(cs))] {
		hi, lo, n := 0, 0, 0
		bases := map[int]bool{}
		for a := 0; a < len(c); a++ {
			bases[docs[c[a]].Base] = true
			for b := a + 1; b < len(c); b++ {
				n++
				j := dedupeval.Jaccard(sets[c[a]], sets[c[b]])
				if j >= 0.9 {
					hi++
				} else if j < 0.5 {
					lo++
				}
			}
		}
		out = append(out, fmt.Sprintf("  truth component: %d docs from %d pages, %d pairs, %d J>=0.9, %d J<0.5 (e.g. %s)", len(c), len(bases), n, hi, lo, docs[c[0]].URL))
	}
	return out
}
