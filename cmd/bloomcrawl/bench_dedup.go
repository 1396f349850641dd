package main

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"
	"time"
	"unicode"

	"github.com/bloomcrawl/bloomcrawl/configs"
	"github.com/bloomcrawl/bloomcrawl/contentdedup"
	"github.com/bloomcrawl/bloomcrawl/contentdedup/dedupeval"
	"github.com/bloomcrawl/bloomcrawl/crawler"
)

func init() {
	registerBench(command{
		name:    "dedup",
		summary: "near-duplicate precision/recall (en, zh) vs exact Jaccard ground truth, SimHash vs naive baseline",
		run:     runBenchDedup,
	})
}

// defaultDedupCorpora are the lab corpora the accuracy figures come from.
const defaultDedupCorpora = "/tmp/corpora/python311,/tmp/corpora/rust,/tmp/corpora/handbook/zh-CN,/tmp/corpora/handbook/zh-TW,/tmp/corpora/lilypond,/tmp/corpora/faq,/tmp/corpora/maintguide,/tmp/corpora/kicad,/tmp/corpora/edu"

func runBenchDedup(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fset := newFlagSet("bench dedup", "bench dedup [--corpus DIR[,DIR...]] [--pages N] [--variants V] [--seed S] [-v]", stderr)
	corpus := fset.String("corpus", defaultDedupCorpora, "comma-separated HTML trees to take pages from (walked recursively, *.html)")
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
	if *pages < 2 || *variants < 1 {
		return usagef("--pages must be >= 2 and --variants >= 1")
	}
	if *threshold < 0 || *threshold > contentdedup.MaxThreshold {
		return usagef("--threshold %d: must be 0..%d", *threshold, contentdedup.MaxThreshold)
	}
	start := time.Now()
	en, zh, err := loadDedupPages(ctx, strings.Split(*corpus, ","), *minWords, *maxFiles, *seed)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "bench dedup: %d English and %d Chinese pages with >= %d words in %s (%.1fs)\n",
		len(en), len(zh), *minWords, *corpus, time.Since(start).Seconds())
	if err := contentdedup.LoadDictionary(); err != nil {
		return err
	}
	k := *threshold
	optK := crawler.DedupOptions(configs.Dedup{SimHashThreshold: k}).Threshold
	fp := func(shingle int, w contentdedup.Weighting) contentdedup.FingerprintParams {
		return contentdedup.FingerprintParams{Shingle: shingle, Weight: w}
	}
	methods := []dedupMethod{
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
	for _, lang := range []struct {
		name  string
		pages []dedupeval.Doc
	}{{"en", en}, {"zh", zh}} {
		if err := ctx.Err(); err != nil {
			return err
		}
		if len(lang.pages) < 2 {
			fmt.Fprintf(stdout, "\n%s: fewer than 2 pages, skipped\n", lang.name)
			continue
		}
		r := rand.New(rand.NewPCG(*seed, 1))
		ps := slices.Clone(lang.pages)
		r.Shuffle(len(ps), func(i, j int) { ps[i], ps[j] = ps[j], ps[i] })
		ps = ps[:min(*pages, len(ps))]
		docs := dedupeval.NewGenerator(lang.name, *seed).Generate(ps, *variants)
		sets := make([][]uint64, len(docs))
		bytes := 0
		for i, d := range docs {
			sets[i] = dedupeval.Shingles(d.Text, 4)
			bytes += len(d.Text)
		}
		truth := dedupeval.PairsAbove(sets, 0.9)
		fmt.Fprintf(stdout, "\n%s: %d pages + %d variants = %d documents (%.1f MB), %d pairs, %d with Jaccard >= 0.9\n",
			lang.name, len(ps), len(docs)-len(ps), len(docs), float64(bytes)/1e6, len(docs)*(len(docs)-1)/2, len(truth))
		tw := tabwriter.NewWriter(stdout, 2, 8, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, "method\tprecision\trecall\tmerged pairs\tJ<0.5 merged\tJ>=0.9 missed\tclusters\tseconds\t")
		for _, m := range methods {
			t0 := time.Now()
			labels, err := m.run(docs, k)
			if err != nil {
				return err
			}
			s := dedupeval.Evaluate(m.name, labels, sets, truth)
			fmt.Fprintf(tw, "%s\t%.4f\t%.4f\t%d\t%d\t%d\t%d\t%.2f\t\n", m.name, s.Precision, s.Recall,
				s.Merged, s.Merged-s.MergedGood, s.Truth-s.TruthMerged, s.Clusters, time.Since(t0).Seconds())
			if *verbose && m.dflt {
				tw.Flush()
				for _, p := range s.FalseMerges {
					fmt.Fprintf(stdout, "  false merge J=%.3f: %s [%s] ~ %s [%s]\n", p.Jaccard, docs[p.I].URL, docs[p.I].Ops, docs[p.J].URL, docs[p.J].Ops)
				}
				missedDiag(stdout, docs, labels, truth)
				truthComponents(stdout, docs, sets, truth)
				for _, p := range s.MissedTruths {
					fmt.Fprintf(stdout, "  missed J=%.3f: %s [%s] ~ %s [%s]\n", p.Jaccard, docs[p.I].URL, docs[p.I].Ops, docs[p.J].URL, docs[p.J].Ops)
				}
			}
		}
		tw.Flush()
		if *sweep {
			if err := shortTextSweep(stdout, lang.name, ps, *seed, k); err != nil {
				return err
			}
		}
	}
	return nil
}

// dedupMethod is one row of the table.
type dedupMethod struct {
	name    string
	naive   bool
	minhash bool
	dflt    bool
	o       contentdedup.Options
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
	m, err := contentdedup.NewMinHash(contentdedup.MinHashOptions{})
	if err != nil {
		return nil, err
	}
	x := contentdedup.NewMinHashIndex(m)
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
func shortTextSweep(w io.Writer, lang string, pages []dedupeval.Doc, seed uint64, k int) error {
	tok := contentdedup.NewTokenizer()
	r := rand.New(rand.NewPCG(seed, 2))
	fmt.Fprintf(w, "%s short-text sweep (default SimHash, d<=%d; 2000 pairs per row):\n", lang, k)
	tw := tabwriter.NewWriter(w, 2, 8, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "words\tone-word edit: merged\tof which J<0.5\tunrelated windows: merged\t")
	p := contentdedup.FingerprintParams{MinTokens: -1}
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
		fmt.Fprintf(tw, "%d\t%.4f\t%.4f\t%.4f\t\n", n, float64(editMerged)/2000, float64(editBad)/2000, float64(otherMerged)/2000)
	}
	return tw.Flush()
}

// loadDedupPages extracts title and main text (with the crawler's own
// extraction) from every *.html under dirs, and sorts them by language: a
// page is Chinese when at least a third of its letters are Han characters,
// English when nearly all its letters are ASCII and "the" is common.
func loadDedupPages(ctx context.Context, dirs []string, minWords, maxFiles int, seed uint64) (en, zh []dedupeval.Doc, err error) {
	seen := map[string]bool{}
	for _, dir := range dirs {
		dir = strings.TrimSpace(dir)
		if dir == "" {
			continue
		}
		root, err := filepath.EvalSymlinks(dir)
		if err != nil {
			return nil, nil, fmt.Errorf("bench dedup: corpus %s: %w", dir, err)
		}
		var paths []string
		err = filepath.WalkDir(root, func(path string, de fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if !de.IsDir() && strings.HasSuffix(path, ".html") {
				paths = append(paths, path)
			}
			return nil
		})
		if err != nil {
			return nil, nil, fmt.Errorf("bench dedup: read corpus %s: %w", dir, err)
		}
		if len(paths) > maxFiles {
			r := rand.New(rand.NewPCG(seed, 3))
			r.Shuffle(len(paths), func(i, j int) { paths[i], paths[j] = paths[j], paths[i] })
			paths = paths[:maxFiles]
			slices.Sort(paths)
		}
		for _, path := range paths {
			err = func() error {
				if err := ctx.Err(); err != nil {
					return err
				}
				body, err := os.ReadFile(path)
				if err != nil {
					return err
				}
				u := &url.URL{Scheme: "file", Path: path}
				doc, err := crawler.Extract(body, "text/html", false, u)
				if err != nil {
					return nil // not a page we can use; the corpus has a few
				}
				if seen[doc.Text] {
					return nil // identical text already taken (the corpora have copies)
				}
				seen[doc.Text] = true
				words := dedupeval.Words(doc.Text)
				if len(words) < minWords {
					return nil
				}
				d := dedupeval.Doc{URL: u.String(), Title: doc.Title, Text: doc.Text}
				han, ascii, letters := 0, 0, 0
				for _, r := range doc.Text {
					if unicode.IsLetter(r) {
						letters++
						if unicode.Is(unicode.Han, r) {
							han++
						} else if r < 128 {
							ascii++
						}
					}
				}
				the := 0
				for _, w := range words {
					if w == "the" {
						the++
					}
				}
				switch {
				case han*3 >= letters:
					zh = append(zh, d)
				case ascii*100 >= letters*99 && the*50 >= len(words):
					en = append(en, d)
				}
				return nil
			}()
			if err != nil {
				break
			}
		}
		if err != nil {
			return nil, nil, fmt.Errorf("bench dedup: read corpus %s: %w", dir, err)
		}
	}
	return en, zh, nil
}

// missedDiag prints where the missed pairs (J >= 0.9, not merged) come
// from: pairs of variants of one page or of different pages, and their
// content distance and estimated sketch Jaccard.
func missedDiag(w io.Writer, docs []dedupeval.Doc, labels []uint64, truth []dedupeval.Pair) {
	d, err := contentdedup.New(contentdedup.Options{})
	if err != nil {
		return
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
	fmt.Fprintf(w, "  missed: %d same page, %d different pages; by distance %v; by sketch J decile %v\n", same, cross, dist, jb)
}

// truthComponents prints the largest connected components of the
// J >= 0.9 graph: size, pairs, pairs with J >= 0.9 and with J < 0.5.
func truthComponents(w io.Writer, docs []dedupeval.Doc, sets [][]uint64, truth []dedupeval.Pair) {
	parent := make([]int, len(docs))
	for i := range parent {
		parent[i] = i
	}
	var find func(int) int
	find = func(i int) int {
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
		fmt.Fprintf(w, "  truth component: %d docs from %d pages, %d pairs, %d J>=0.9, %d J<0.5 (e.g. %s)\n", len(c), len(bases), n, hi, lo, docs[c[0]].URL)
	}
}
