package main

import (
	"context"
	"io"
	"os"

	"github.com/bloomcrawl/bloomcrawl/internal/cli"
	"github.com/bloomcrawl/bloomcrawl/lab/bench"
	"github.com/bloomcrawl/bloomcrawl/lab/synthsite"
)

func init() {
	register(command{
		Name:    "synthetic",
		Summary: "crawl generated sites of several sizes: pages/s, RssAnon, disk per page, loss vs the truth",
		Run:     runBenchSynthetic,
	})
}

func runBenchSynthetic(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("synthetic", "synthetic [--sizes 50000,500000,2000000] [--seed N] [--json] [--crawl-arg ARG ...]", stderr)
	sizes := fs.String("sizes", "50000,500000", "site sizes in pages, comma-separated; one crawl each, in order")
	seed := fs.Uint64("seed", 1, "generates the site's pages")
	tmp := fs.String("tmp", "", "directory for the temporary stores (default $TMPDIR)")
	lock := fs.String("lock", "/tmp/bloomcrawl-bench.lock", "flock this file around each crawl (\"\" = no lock)")
	asJSON := fs.Bool("json", false, "print one JSON object per size")
	var crawlArgs stringList
	fs.Var(&crawlArgs, "crawl-arg", "extra argument for the crawl command, repeatable (e.g. --crawl-arg=--mem-limit-mb=0)")
	// Hidden: the site helper process.
	servePages := fs.Int("site-pages", 0, "(internal) serve a site of this many pages on loopback and print its URL")
	siteSeed := fs.Uint64("site-seed", 1, "(internal) the served site's seed")
	bloomcrawl := bloomcrawlFlag(fs, stderr)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *servePages > 0 {
		site, err := synthsite.New(*servePages, *siteSeed)
		if err != nil {
			return usagef("--site-pages: %v", err)
		}
		return bench.ServeSite(ctx, site, "127.0.0.1:0", stdout)
	}
	ns, err := intList("--sizes", *sizes, 1, "a positive number of pages")
	if err != nil {
		return err
	}
	self, err := os.Executable()
	if err != nil {
		return err
	}
	exe, cleanup, err := bloomcrawl(ctx)
	if err != nil {
		return err
	}
	defer cleanup()
	rows, err := bench.Synthetic(ctx, bench.SyntheticOptions{
		Sizes: ns, Seed: *seed, TempDir: *tmp, Lock: *lock, Log: stderr,
		Serve: bench.ChildServe(self, "synthetic"),
		Crawl: bench.ChildCrawl(exe, stderr, append([]string{"crawl"}, crawlArgs...)...),
	})
	if *asJSON {
		if jerr := cli.WriteJSONLines(stdout, rows); jerr != nil {
			return jerr
		}
	} else if len(rows) > 0 {
		bench.WriteSyntheticTable(stdout, rows)
	}
	return err
}
