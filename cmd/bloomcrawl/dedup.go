package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/bloomcrawl/bloomcrawl/api"
	"github.com/bloomcrawl/bloomcrawl/configs"
	"github.com/bloomcrawl/bloomcrawl/contentdedup"
	"github.com/bloomcrawl/bloomcrawl/crawler"
	"github.com/bloomcrawl/bloomcrawl/storage"
)

func init() {
	register(command{
		Name:    "dedup",
		Summary: "assign docIds to JSON-lines documents on stdin (docId service, batch form)",
		Run:     runDedup,
	})
}

// dedupStdin is where 'bloomcrawl dedup' reads from; tests replace it.
var dedupStdin io.Reader = os.Stdin

// defaultMaxLine is the longest input line 'bloomcrawl dedup' accepts.
const defaultMaxLine = 16 << 20

func runDedup(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("dedup", "dedup [--threshold K] [--store DIR [--min-free-bytes N]] [--in FILE] < requests.jsonl > answers.jsonl", stderr)
	threshold := fs.Int("threshold", contentdedup.DefaultThreshold, "largest Hamming distance between content fingerprints that counts as a near-duplicate (0..6)")
	in := fs.String("in", "-", `read requests from FILE ("-" = stdin)`)
	store := fs.String("store", "", "record documents in this store and compare with everything stored before (default: in memory only)")
	maxLine := fs.Int("max-line", defaultMaxLine, "longest accepted input line in bytes (a longer line gets an error answer)")
	minFree := minFreeFlag(fs)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usagef("unexpected argument %q (requests come on stdin or --in)", fs.Arg(0))
	}
	if *threshold < 0 || *threshold > contentdedup.MaxThreshold {
		return usagef("--threshold %d: must be 0..%d", *threshold, contentdedup.MaxThreshold)
	}
	if *minFree < -1 {
		return usagef("--min-free-bytes %d: want >= 0 (0 = default) or -1 (off)", *minFree)
	}
	if *maxLine < 1 {
		return usagef("--max-line %d: must be positive", *maxLine)
	}
	r := dedupStdin
	if *in != "-" {
		f, err := os.Open(*in)
		if err != nil {
			return err
		}
		defer f.Close()
		r = f
	}
	d, err := crawler.NewDeduper(configs.Dedup{SimHashThreshold: *threshold})
	if err != nil {
		return err
	}
	var db *storage.DB
	if *store != "" {
		db, err = storage.Open(*store, &storage.Options{MinFreeBytes: *minFree})
		if errors.Is(err, storage.ErrLocked) {
			return fmt.Errorf("open store %s: %w (one process owns a store: stop the crawl or server that holds it)", *store, err)
		}
		if err != nil {
			return fmt.Errorf("open store %s: %w", *store, err)
		}
	}
	svc, err := api.NewService(ctx, d, db, nil)
	if err == nil {
		err = svc.ServeLines(ctx, r, stdout, *maxLine)
	}
	if db != nil {
		if cerr := db.Close(); cerr != nil && err == nil {
			err = fmt.Errorf("close store %s: %w", *store, cerr)
		}
	}
	return err
}
