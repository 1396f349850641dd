package filterbench

import (
	"context"
	"flag"
	"io"
	"strings"

	"github.com/bloomcrawl/bloomcrawl/internal/cli"
)

// FilterCommand is the command line of a Filter run, which two commands
// share: bloomcrawl bench filter, and cmd/bloomcrawl-lab's filter, which
// adds other libraries' rows (Peers) that the product does not link.
// NewFilterCommand declares its flags; the command parses them, then calls
// Run.
type FilterCommand struct {
	n, reps         *int
	fp              *float64
	urls, variants  *string
	asJSON          *bool
	allowedVariants []string
}

// NewFilterCommand declares the flags of a Filter run on fs: --n, --fp,
// --urls, --json, --variants (default: variants, which are also the names
// --variants accepts) and --reps.
func NewFilterCommand(fs *flag.FlagSet, variants []string) *FilterCommand {
	c := &FilterCommand{allowedVariants: variants}
	c.n = fs.Int("n", 10_000_000, "distinct keys to insert (and as many fresh keys to test)")
	c.fp = fs.Float64("fp", 0.01, "target false-positive rate the filters are sized for")
	c.urls = fs.String("urls", "", "file of real URLs, one per line (default: generated URL-shaped keys)")
	c.asJSON = fs.Bool("json", false, "print one JSON object per variant")
	c.variants = fs.String("variants", strings.Join(variants, ","), "comma-separated rows to measure")
	c.reps = fs.Int("reps", 3, "timing repetitions of the test pass (the median is reported)")
	return c
}

// Run checks the parsed flags (a cli.UsageError names a bad one), reads or
// generates the keys, runs Filter with peers (nil = none) and writes its
// rows to stdout: a table, or one JSON line per row with --json. Progress
// goes to stderr.
func (c *FilterCommand) Run(ctx context.Context, peers map[string]func(n uint64, fp float64) Peer, stdout, stderr io.Writer) error {
	if *c.n < 1 {
		return cli.Usagef("--n %d: must be at least 1", *c.n)
	}
	if !(*c.fp > 0 && *c.fp < 0.5) {
		return cli.Usagef("--fp %g: must be in (0, 0.5)", *c.fp)
	}
	if *c.reps < 1 {
		return cli.Usagef("--reps %d: must be at least 1", *c.reps)
	}
	o := FilterOptions{FP: *c.fp, Variants: cli.SplitList(*c.variants), Peers: peers, Reps: *c.reps, Log: stderr}
	if err := CheckVariants(o.Variants, c.allowedVariants); err != nil {
		return cli.Usagef("--variants: %v", err)
	}
	var err error
	if o.Keys, err = FilterKeys(*c.urls, *c.n, stderr); err != nil {
		return err
	}
	rows, err := Filter(ctx, o)
	if err != nil {
		return err
	}
	if *c.asJSON {
		return cli.WriteJSONLines(stdout, rows)
	}
	WriteFilterTable(stdout, rows)
	return nil
}
