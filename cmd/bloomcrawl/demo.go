package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"

	"github.com/bloomcrawl/bloomcrawl/configs"
	"github.com/bloomcrawl/bloomcrawl/crawler"
	"github.com/bloomcrawl/bloomcrawl/internal/samplesite"
	"github.com/bloomcrawl/bloomcrawl/storage"
)

func init() {
	register(command{
		name:    "demo",
		summary: "crawl a built-in sample site on 127.0.0.1 (no network) and show where the duplicates went",
		run:     runDemo,
	})
}

// demoURL is one URL of the demo crawl that is not a stored page.
type demoURL struct {
	URL      string        `json:"url"`
	DocID    storage.DocID `json:"doc_id,omitempty"`
	KeptURL  string        `json:"kept_url,omitempty"` // the URL the document was stored under
	Reason   string        `json:"reason,omitempty"`
	Distance int           `json:"distance,omitempty"`
	Status   int           `json:"status,omitempty"`
	Type     string        `json:"content_type,omitempty"`
	Err      string        `json:"error,omitempty"`
}

type demoReport struct {
	Site       string         `json:"site"`
	Store      string         `json:"store"`
	Summary    *crawler.Stats `json:"summary"`
	Stored     []demoURL      `json:"stored"`
	Duplicates []demoURL      `json:"duplicates"`
	NotStored  []demoURL      `json:"not_stored"`
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
	inspect := func(db *storage.DB) error {
		return db.ForEachURL(ctx, func(r storage.URLRecord) error {
			d := demoURL{URL: strings.TrimPrefix(r.URL, base), DocID: r.DocID, Reason: r.Reason, Distance: r.Distance,
				Status: r.Status, Type: r.ContentType, Err: r.Err}
			switch {
			case r.DocID != 0 && !r.Duplicate:
				rep.Stored = append(rep.Stored, d)
			case r.DocID != 0:
				if p, err := db.Page(r.DocID); err == nil {
					d.KeptURL = strings.TrimPrefix(p.URL, base)
				}
				rep.Duplicates = append(rep.Duplicates, d)
			default:
				rep.NotStored = append(rep.NotStored, d)
			}
			return nil
		})
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
	printDemo(stdout, &rep, *store != "")
	return nil
}

func printDemo(w io.Writer, rep *demoReport, kept bool) {
	sort.Slice(rep.Duplicates, func(i, j int) bool {
		a, b := rep.Duplicates[i], rep.Duplicates[j]
		if a.KeptURL != b.KeptURL {
			return a.KeptURL < b.KeptURL
		}
		return a.URL < b.URL
	})
	fmt.Fprintf(w, "\nWhere the duplicates went: %d URLs share the document of another URL\n", len(rep.Duplicates))
	width, keptWidth := 0, 0
	for _, d := range rep.Duplicates {
		width, keptWidth = max(width, len(d.URL)), max(keptWidth, len(d.KeptURL))
	}
	for _, d := range rep.NotStored {
		width = max(width, len(d.URL))
	}
	fmt.Fprintf(w, "  %-*s    %-16s  %-*s  %s\n", width, "URL", "docId", keptWidth, "stored as", "why")
	for _, d := range rep.Duplicates {
		why := d.Reason
		switch d.Reason {
		case "content":
			why = fmt.Sprintf("content SimHash %d bits apart", d.Distance)
		case "title":
			why = fmt.Sprintf("same title, content %d bits apart", d.Distance)
		case "url":
			why = "same URL"
		case "redirect":
			why = "redirects there"
		case "canonical":
			why = fmt.Sprintf("declares it rel=canonical, content %d bits apart", d.Distance)
		}
		fmt.Fprintf(w, "  %-*s -> %s  %-*s  %s\n", width, d.URL, d.DocID, keptWidth, d.KeptURL, why)
	}
	fmt.Fprintf(w, "\nRecorded, not stored (%d URLs):\n", len(rep.NotStored))
	for _, d := range rep.NotStored {
		what := d.Err
		switch {
		case d.Reason == "noindex":
			what = "noindex: the page asked not to be stored (links followed)"
		case d.Reason == "sitemap" && what == "":
			what = "sitemap (read for its URLs)"
		case what == "" && d.Type != "":
			what = "non-HTML: " + d.Type
		case d.Status != 0:
			what = fmt.Sprintf("HTTP %d: %s", d.Status, what)
		}
		fmt.Fprintf(w, "  %-*s  %s\n", width, d.URL, what)
	}
	fmt.Fprintf(w, "\n%d documents stored.", len(rep.Stored))
	if kept {
		fmt.Fprintf(w, " Look at them with:\n  bloomcrawl query --store %s stats\n", rep.Store)
	} else {
		fmt.Fprintf(w, " (The temporary store is removed; run 'bloomcrawl demo --store DIR' to keep it for 'bloomcrawl query'.)\n")
	}
}
