package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"

	"github.com/bloomcrawl/bloomcrawl/configs"
	"github.com/bloomcrawl/bloomcrawl/crawler"
	"github.com/bloomcrawl/bloomcrawl/internal/samplesite"
	"github.com/bloomcrawl/bloomcrawl/storage"
)

func init() {
	register(command{
		Name:    "demo",
		Summary: "crawl a built-in sample site on 127.0.0.1 (no network) and show where the duplicates went",
		Run:     runDemo,
	})
}

// demoReport is the demo's JSON report: the site, the store, the crawl's
// summary, and where each URL went.
type demoReport struct {
	Site    string         `json:"site"`
	Store   string         `json:"store"`
	Summary *crawler.Stats `json:"summary"`
	*samplesite.Outcomes
}

func runDemo(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("demo", "demo [--store DIR] [--warc DIR] [--json]", stderr)
	store := fs.String("store", "", "keep the crawl in this store directory (default: a temporary directory, removed afterwards)")
	asJSON := fs.Bool("json", false, "print the report as JSON")
	warcDir := fs.String("warc", "", "also write the crawl as WARC/1.1 files into this directory")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if len(fs.Args()) > 0 {
		return usagef("unexpected argument %q", fs.Args()[0])
	}
	site := samplesite.New()
	base, stop, err := site.Start(ctx)
	if err != nil {
		return err
	}
	defer stop()

	dir := *store
	if dir == "" {
		tmp, err := os.MkdirTemp("", "bloomcrawl-demo-")
		if err != nil {
			return fmt.Errorf("demo: temporary store: %w", err)
		}
		defer os.RemoveAll(tmp)
		dir = tmp
	}
	m := site.Manifest()
	cfg := configs.Default()
	cfg.Seeds = []string{base + "/"}
	cfg.Store.Dir = dir
	cfg.Store.WARCDir = *warcDir
	// The calendar is an endless URL trap; max_depth alone would bound it,
	// the exclude rule keeps the demo short.
	cfg.Scope.Exclude = []string{m.Trap.Exclude}
	cfg.Politeness.PerHostParallelism = 8
	cfg.Fetch.Timeout = configs.Duration(5e9)
	if err := cfg.Validate(); err != nil {
		return err
	}
	if !*asJSON {
		fmt.Fprintf(stdout, "bloomcrawl demo: crawling the built-in sample site at %s/ (loopback, no network)\n", base)
		fmt.Fprintf(stdout, "  English and Chinese articles, print/syndicated/edited copies, a GBK page, redirects,\n")
		fmt.Fprintf(stdout, "  a 404, a PDF, a slow page, robots.txt, and a calendar URL trap (excluded: %s)\n\n", m.Trap.Exclude)
	}
	rep := demoReport{Site: base + "/", Store: dir}
	inspect := func(db *storage.DB) (err error) {
		rep.Outcomes, err = samplesite.ReadOutcomes(ctx, db, base)
		return err
	}
	st, err := crawlStore(ctx, cfg, crawlRun{quiet: *asJSON, stderr: stderr, inspect: inspect})
	if err != nil {
		return err
	}
	rep.Summary = st
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(rep)
	}
	st.WriteSummary(stdout, "")
	rep.WriteText(stdout, dir, *store != "")
	return nil
}
