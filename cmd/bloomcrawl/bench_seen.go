package main

import (
	"context"
	"io"
	"os"

	"github.com/bloomcrawl/bloomcrawl/internal/cli"
	"github.com/bloomcrawl/bloomcrawl/seen"
	"github.com/bloomcrawl/bloomcrawl/storage"
)

func init() {
	registerBench(command{
		Name:    "seen",
		Summary: "seen-records: bytes and test time vs a plain id list, measured FP, the window",
		Run:     runBenchSeen,
	})
}

func runBenchSeen(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("bench seen", "bench seen [--store DIR] [--ids N] [--batch N] [--rounds N] [--probes N] [--json] [seen-record flags]", stderr)
	store := fs.String("store", "", "Badger store to measure in (default: a temporary one, removed after)")
	var mo seen.MeasureOptions
	fs.IntVar(&mo.IDs, "ids", 5000, "ids recorded under the measured key")
	fs.IntVar(&mo.IDLen, "id-len", 14, "bytes per id (the seed's article ids are 14)")
	fs.IntVar(&mo.Batch, "batch", 100, "ids per test call")
	fs.IntVar(&mo.Rounds, "rounds", 7, "timing rounds (Bloom and plain list interleaved; the median is reported)")
	fs.IntVar(&mo.Calls, "calls", 200, "test calls per timing round")
	fs.IntVar(&mo.Probes, "probes", 100_000, "ids never recorded, tested for the false-positive rate")
	asJSON := fs.Bool("json", false, "print the measurement as JSON")
	opts := seenFlags(fs, "")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usagef("unexpected argument %q", fs.Arg(0))
	}
	o, err := opts()
	if err != nil {
		return err
	}
	dir := *store
	if dir == "" {
		if dir, err = os.MkdirTemp("", "bloomcrawl-bench-seen-"); err != nil {
			return err
		}
		defer os.RemoveAll(dir)
	}
	db, err := storage.Open(dir, nil)
	if err != nil {
		return err
	}
	defer db.Close()
	m, err := seen.Measure(ctx, db, o, mo)
	if err != nil {
		return err
	}
	if *asJSON {
		return cli.WriteJSON(stdout, m)
	}
	m.WriteText(stdout)
	return nil
}
