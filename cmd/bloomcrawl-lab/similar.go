package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"text/tabwriter"

	"github.com/bloomcrawl/bloomcrawl/contentdedup"
	"github.com/bloomcrawl/bloomcrawl/internal/cli"
	"github.com/bloomcrawl/bloomcrawl/lab/similareval"
	"github.com/bloomcrawl/bloomcrawl/storage"
)

func init() {
	register(command{
		Name:    "similar",
		Summary: "similar pages (MinHash p x q) on a store vs exact all-pairs Jaccard: recall, precision, cost, p/q sweep",
		Run:     runBenchSimilar,
	})
}

func runBenchSimilar(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("similar", "similar --store DIR [--sample N] [--k N] [--json]", stderr)
	store := fs.String("store", "", "crawl store whose pages are measured (required)")
	sample := fs.Int("sample", 1000, "pages measured (all pages of the store when fewer; else a fixed random sample)")
	k := fs.Int("k", 10, "neighbours per page: the true top-k and the returned list")
	asJSON := fs.Bool("json", false, "print the report as JSON")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usagef("unexpected argument %q", fs.Arg(0))
	}
	if *store == "" {
		return usagef("--store DIR is required")
	}
	if *sample < 2 || *k < 1 {
		return usagef("--sample %d, --k %d: want a sample of at least 2 and k ≥ 1", *sample, *k)
	}
	db, err := storage.Open(*store, &storage.Options{ReadOnly: true})
	if errors.Is(err, storage.ErrNeedsRecovery) {
		return fmt.Errorf("%w (bloomcrawl query --store %s recovers it)", err, *store)
	}
	if err != nil {
		return err
	}
	defer db.Close()
	docs, total, err := similarSample(ctx, db, *sample)
	if err != nil {
		return err
	}
	rep, err := similareval.Evaluate(ctx, docs, similareval.Options{K: *k})
	if err != nil {
		return err
	}
	if *asJSON {
		return cli.WriteJSON(stdout, rep)
	}
	printSimilarReport(stdout, rep, total)
	return nil
}

// similarSample reads the word sets of up to n pages of db (a fixed random
// sample when it has more) and the number of pages it has.
func similarSample(ctx context.Context, db *storage.DB, n int) ([]similareval.Doc, int, error) {
	var ids []storage.DocID
	if err := db.ForEachFingerprint(ctx, func(f storage.Fingerprint) error {
		ids = append(ids, f.DocID)
		return nil
	}); err != nil {
		return nil, 0, err
	}
	total := len(ids)
	if len(ids) > n {
		r := rand.New(rand.NewPCG(1, 2))
		r.Shuffle(len(ids), func(i, j int) { ids[i], ids[j] = ids[j], ids[i] })
		ids = ids[:n]
	}
	tok := contentdedup.NewTokenizer()
	docs := make([]similareval.Doc, 0, len(ids))
	for _, id := range ids {
		p, err := db.Page(id)
		if err != nil {
			return nil, 0, err
		}
		docs = append(docs, similareval.Doc{ID: uint64(id), Words: tok.WordSet(p.Text)})
	}
	return docs, total, ctx.Err()
}

func printSimilarReport(w io.Writer, rep similareval.Report, total int) {
	fmt.Fprintf(w, "similar pages: %d of the store's %d pages, word sets (gse words, stop words out); truth: exact Jaccard of all %d pairs, top %d per page (ties included)\n",
		rep.Docs, total, rep.Pairs, rep.K)
	fmt.Fprintf(w, "exact: %s, %d bytes of word hashes; mean Jaccard of the true top %d: %.3f; %d pairs of Jaccard >= %.2f\n\n",
		rep.ExactTime.Round(1e5), rep.ExactBytes, rep.K, rep.TrueMeanJaccard, rep.HighPairs, rep.HighJaccard)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "p\tq\trecall@k\tprecision\tanswered\treturned\tcandidates\tmean J returned\tfound J>=%.2f\tindex bytes\tmem vs exact\ttime\ttime vs exact\t\n", rep.HighJaccard)
	for _, r := range rep.Results {
		mark := ""
		if r.Rows == 4 && r.Bands == 6 {
			mark = " <- default"
		}
		fmt.Fprintf(tw, "%d\t%d\t%.3f\t%.3f\t%.3f\t%.1f\t%.1f\t%.3f\t%.3f\t%d\t%.3f\t%s\t%.3f\t%s\n", r.Rows, r.Bands, r.Recall, r.Precision, r.Answered,
			r.Returned, r.Candidates, r.MeanJaccard, r.HighRecall, r.IndexBytes, float64(r.IndexBytes)/float64(max(rep.ExactBytes, 1)),
			r.Time.Round(1e5), float64(r.Time)/float64(max(rep.ExactTime, 1)), mark)
	}
	tw.Flush()
}
