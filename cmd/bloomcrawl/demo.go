package main

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/bloomcrawl/bloomcrawl/crawler"
	"github.com/bloomcrawl/bloomcrawl/internal/cli"
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
	cfg, err := site.DemoConfig(base, dir, *warcDir)
	if err != nil {
		return err
	}
	if !*asJSON {
		site.WriteIntro(stdout, base)
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
		return cli.WriteJSON(stdout, rep)
	}
	st.WriteSummary(stdout, "")
	rep.WriteText(stdout, dir, *store != "")
	return nil
}
