package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"

	"strings"
	"time"

	"github.com/bloomcrawl/bloomcrawl/archive"
	"github.com/bloomcrawl/bloomcrawl/crawler"
	"github.com/bloomcrawl/bloomcrawl/internal/cli"
	"github.com/bloomcrawl/bloomcrawl/storage"
)

const queryUsage = `query --store DIR [--json] <subcommand> [flags] [args]
       query --cluster REDIS_URL [--json] stats    (a cluster crawl's state in Redis)

subcommands:
  stats                       counts: pages, URLs, duplicates, hosts, pages per host
  url URL                     the page stored for URL (a duplicate URL shows its original)
  doc ID [--version K]        the page with docId ID (16 hex digits as printed, or 0x-hex), and
                              its kept versions; --version K shows version K (continuous crawl);
                              --markdown prints its main content as Markdown only
  dups ID|URL                 every URL mapped to a docId (the original and its duplicates)
  similar ID|URL [--limit N]  pages similar to it (MinHash bands shared, estimated Jaccard)
  list [--host H] [--prefix P] [--since T] [--until T] [--limit N] [--after CURSOR]
                              pages by host, URL prefix or fetch time (RFC 3339), paginated
  export [--html]             every page as JSON lines (docId order)
  export --format markdown    every page as a Markdown document (front matter, then its content)
  export --warc FILE          the store as a WARC/1.1 file: the crawl's own records if it ran with
                              store.keep_raw, else pages as resource records (lossy: see docs/warc.md)
  export --cdxj DIR|FILE      CDXJ index of WARC files (crawl --warc output), sorted; no --store needed
  export --wacz FILE --warc-dir DIR [--text]
                              a WACZ package: the WARC files, their CDXJ index, the store's pages
  check                       verify every record and index of the store (reads it all)

The store is opened read-only, so queries can run side by side, but not
while a crawl holds the store.`

func init() {
	register(command{
		Name:    "query",
		Summary: "query a crawl store: stats, url, doc, dups, similar, list, export, check",
		Run:     runQuery,
	})
}

// queryCmd is the state shared by the query subcommands.
type queryCmd struct {
	db     *storage.DB
	json   bool
	stdout io.Writer
	stderr io.Writer
}

// queryRun runs a query subcommand with its arguments.
type queryRun func(q *queryCmd, args []string) error

// wantArgs returns a usage error unless there are n args (cli.WantArgs).
var wantArgs = cli.WantArgs

// querySubs adds each subcommand's own flags to its flag set and returns
// what runs it.
var querySubs = map[string]func(ctx context.Context, fs *flag.FlagSet) queryRun{
	"stats": func(ctx context.Context, fs *flag.FlagSet) queryRun {
		top := fs.Int("top", 10, "hosts to list in text output (0 = all)")
		return func(q *queryCmd, args []string) error { return q.stats(ctx, args, *top) }
	},
	"url":  func(context.Context, *flag.FlagSet) queryRun { return (*queryCmd).url },
	"doc":  docFlags,
	"dups": func(context.Context, *flag.FlagSet) queryRun { return (*queryCmd).dups },
	"similar": func(ctx context.Context, fs *flag.FlagSet) queryRun {
		limit := fs.Int("limit", 10, "most pages to list (0 = all that share a band)")
		return func(q *queryCmd, args []string) error { return q.similar(ctx, args, *limit) }
	},
	"list": addListFlags,
	"check": func(ctx context.Context, _ *flag.FlagSet) queryRun {
		return func(q *queryCmd, args []string) error { return q.check(ctx, args) }
	},
	"export": exportFlags,
}

func runQuery(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("query", queryUsage, stderr)
	store := fs.String("store", "", "crawl store directory (required)")
	asJSON := fs.Bool("json", false, "print JSON")
	clusterURL := fs.String("cluster", "", "with stats: read a cluster crawl's state from this Redis (as crawl --cluster) instead of a store")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	rest := fs.Args()
	if len(rest) == 0 {
		fs.Usage()
		return usagef("missing subcommand (stats, url, doc, dups, similar, list, export, check)")
	}
	sub, subArgs := rest[0], rest[1:]
	addFlags, ok := querySubs[sub]
	if !ok {
		return usagef("unknown query subcommand %q (stats, url, doc, dups, similar, list, export, check)", sub)
	}
	// Each subcommand accepts --json and --store after its name as well.
	sfs := newFlagSet("query "+sub, queryUsage, stderr)
	sfs.StringVar(store, "store", *store, "crawl store directory")
	sfs.BoolVar(asJSON, "json", *asJSON, "print JSON")
	sfs.StringVar(clusterURL, "cluster", *clusterURL, "with stats: a cluster crawl's Redis")
	run := addFlags(ctx, sfs)
	positional, err := cli.ParseInterspersed(sfs, subArgs) // flags may come before and after the arguments
	if err != nil {
		return err
	}
	if *clusterURL != "" {
		return clusterStats(ctx, *clusterURL, sub, *store, positional, *asJSON, stdout)
	}
	if f := sfs.Lookup("cdxj"); f != nil && f.Value.String() != "" {
		return exportCDXJ(ctx, f.Value.String(), positional, *asJSON, stdout, stderr)
	}
	if *store == "" {
		return usagef("--store DIR is required")
	}
	db, err := storage.OpenReadOnly(*store)
	if err != nil {
		return err
	}
	defer db.Close()
	return run(&queryCmd{db: db, json: *asJSON, stdout: stdout, stderr: stderr}, positional)
}

func docFlags(_ context.Context, fs *flag.FlagSet) queryRun {
	text := fs.Bool("text", false, "print the full extracted text")
	html := fs.Bool("html", false, "print the raw HTML only")
	version := fs.Int("version", 0, "show version K of the page (query doc lists the versions kept; 0 = the latest)")
	md := fs.Bool("markdown", false, "print the main content as Markdown only")
	return func(q *queryCmd, args []string) error {
		if *md {
			return q.docMarkdown(args)
		}
		return q.doc(args, *text, *html, *version)
	}
}

func addListFlags(ctx context.Context, fs *flag.FlagSet) queryRun {
	var o listFlags
	fs.StringVar(&o.host, "host", "", "only pages on this host (any port, unless host:port)")
	fs.StringVar(&o.prefix, "prefix", "", "only pages whose URL starts with this prefix")
	fs.StringVar(&o.since, "since", "", "only pages fetched at or after this time (RFC 3339)")
	fs.StringVar(&o.until, "until", "", "only pages fetched before this time (RFC 3339)")
	fs.IntVar(&o.limit, "limit", 20, "pages per call (1..10000)")
	fs.StringVar(&o.after, "after", "", "cursor printed by the previous call")
	return func(q *queryCmd, args []string) error { return q.list(ctx, args, o) }
}

func exportFlags(ctx context.Context, fs *flag.FlagSet) queryRun {
	html := fs.Bool("html", false, "include the raw HTML")
	warcFile := fs.String("warc", "", "write a WARC/1.1 file (gzip per record) instead of JSON lines")
	fs.String("cdxj", "", "print a CDXJ index (pywb/WACZ format, sorted) of the WARC file, or of every .warc.gz file in the directory; needs no --store") // runQuery reads it
	wacz := fs.String("wacz", "", "write a WACZ 1.1.1 package of the WARC files of --warc-dir and the store's pages to this new file")
	var warcDirs cli.StringList
	fs.Var(&warcDirs, "warc-dir", "with --wacz: a directory (or file) of WARC files, as crawl --warc wrote them (repeatable: a cluster's nodes' directories)")
	text := fs.Bool("text", false, "with --wacz: add each page's extracted text to pages/pages.jsonl")
	format := fs.String("format", "json", "json (JSON lines) or markdown (one Markdown document per page)")
	return func(q *queryCmd, args []string) error {
		switch {
		case *warcFile != "":
			return q.exportWARC(ctx, args, *warcFile)
		case *wacz != "":
			return q.exportWACZ(ctx, args, *wacz, warcDirs, *text)
		case *format == "json":
			return q.export(ctx, args, storage.ExportOptions{HTML: *html})
		case *format == "markdown", *format == "md":
			return q.export(ctx, args, storage.ExportOptions{Markdown: true, Render: crawler.PageMarkdown})
		}
		return usagef("--format %q: want json or markdown", *format)
	}
}

// print prints v as JSON with --json, else as its text.
func (q *queryCmd) print(v interface{ WriteText(io.Writer) error }) error {
	if q.json {
		return q.printJSON(v)
	}
	return v.WriteText(q.stdout)
}

func (q *queryCmd) printJSON(v any) error {
	enc := json.NewEncoder(q.stdout)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

func (q *queryCmd) stats(ctx context.Context, args []string, top int) error {
	if err := wantArgs(args, 0, ""); err != nil {
		return err
	}
	st, err := q.db.Stats(ctx)
	if err != nil {
		return err
	}
	if q.json {
		return q.printJSON(st)
	}
	return st.WriteText(q.stdout, top)
}

func (q *queryCmd) url(args []string) error {
	if err := wantArgs(args, 1, "one URL"); err != nil {
		return err
	}
	a, err := q.db.URLAnswer(args[0])
	if errors.Is(err, storage.ErrNotFound) {
		return fmt.Errorf("%w: URL %q is not in the store (URLs are stored canonical; 'query list --prefix' helps find one)", storage.ErrNotFound, args[0])
	}
	if err != nil {
		return err
	}
	return q.print(a)
}

// parseDocID reads a docId argument (storage.ParseDocID's syntax: the
// printed 16 hex digits, or 0x-hex); a bad one is a usage error.
func parseDocID(s string) (storage.DocID, error) {
	id, err := storage.ParseDocID(s)
	if err != nil {
		return 0, usagef("%v", err)
	}
	return id, nil
}

func (q *queryCmd) doc(args []string, fullText, html bool, version int) error {
	if err := wantArgs(args, 1, "one document id"); err != nil {
		return err
	}
	id, err := parseDocID(args[0])
	if err != nil {
		return err
	}
	if version < 0 {
		return usagef("--version %d: want a version number from 1 (0 = the latest)", version)
	}
	d, err := q.db.Doc(id, version)
	if err != nil {
		return err
	}
	if html {
		if !d.Latest() {
			return fmt.Errorf("version %d of %s: old versions keep their title and text, not their HTML (crawl --warc archives every response)", d.Shown, id)
		}
		_, err := q.stdout.Write(d.Page.HTML)
		return err
	}
	if q.json {
		a, err := q.db.DocAnswer(&d)
		if err != nil {
			return err
		}
		return q.printJSON(a)
	}
	return d.WriteText(q.stdout, fullText)
}

// docMarkdown prints the stored Markdown of a document (its text when it
// was stored before Markdown was); with --json, the page view with it.
func (q *queryCmd) docMarkdown(args []string) error {
	if err := wantArgs(args, 1, "one document id"); err != nil {
		return err
	}
	id, err := parseDocID(args[0])
	if err != nil {
		return err
	}
	p, err := q.db.Page(id)
	if err != nil {
		return err
	}
	p.FillMarkdown(crawler.PageMarkdown)
	if q.json {
		return q.printJSON(p.View(storage.ViewOptions{Text: true, Markdown: true}))
	}
	md := p.Markdown
	if md == "" {
		md = p.Text + "\n"
	}
	_, err = io.WriteString(q.stdout, md)
	return err
}

func (q *queryCmd) dups(args []string) error {
	if err := wantArgs(args, 1, "one document id or URL"); err != nil {
		return err
	}
	id, err := q.docIDOrURL(args[0])
	if err != nil {
		return err
	}
	d, err := q.db.DocURLs(id)
	if err != nil {
		return err
	}
	return q.print(d)
}

// docIDOrURL reads a docId, or the docId a URL maps to.
func (q *queryCmd) docIDOrURL(arg string) (storage.DocID, error) {
	if !strings.Contains(arg, "://") {
		return parseDocID(arg)
	}
	_, rec, err := q.db.PageByURL(arg)
	if rec.DocID == 0 {
		if err == nil {
			err = storage.ErrNotFound
		}
		return 0, fmt.Errorf("URL %q maps to no document: %w", arg, err)
	}
	return rec.DocID, nil
}

// similar lists the pages similar to a document (MinHash
// bands; the document's own near-duplicates share its docId and are not
// listed).
func (q *queryCmd) similar(ctx context.Context, args []string, limit int) error {
	if err := wantArgs(args, 1, "one document id or URL"); err != nil {
		return err
	}
	if limit < 0 {
		return usagef("--limit %d: want 0 (all) or more", limit)
	}
	id, err := q.docIDOrURL(args[0])
	if err != nil {
		return err
	}
	sims, err := q.db.Similar(ctx, id, limit)
	if err != nil {
		return err
	}
	return q.print(storage.SimilarAnswer{DocID: id, Similar: sims})
}

type listFlags struct {
	host, prefix, since, until, after string
	limit                             int
}

func (q *queryCmd) list(ctx context.Context, args []string, f listFlags) error {
	if err := wantArgs(args, 0, ""); err != nil {
		return err
	}
	if f.limit < 1 || f.limit > 10000 {
		return usagef("--limit %d out of range 1..10000", f.limit)
	}
	o := storage.ListOptions{Host: f.host, Prefix: f.prefix, Limit: f.limit, After: f.after}
	for _, t := range []struct {
		name, val string
		dst       *time.Time
	}{{"--since", f.since, &o.Since}, {"--until", f.until, &o.Until}} {
		if t.val == "" {
			continue
		}
		v, err := time.Parse(time.RFC3339, t.val)
		if err != nil {
			return usagef("%s %q: want an RFC 3339 time such as 2026-11-22T03:00:00Z", t.name, t.val)
		}
		*t.dst = v
	}
	a, err := q.db.ListAnswer(ctx, o)
	if err != nil {
		return err
	}
	return q.print(a)
}

// exportWARC writes the store to a new file (an existing one is an error)
// and prints what it wrote.
func (q *queryCmd) exportWARC(ctx context.Context, args []string, name string) error {
	if err := wantArgs(args, 0, ""); err != nil {
		return err
	}
	st, err := archive.ExportFile(ctx, q.db, name, map[string]string{"store": q.db.Dir()})
	if err != nil {
		return err
	}
	if q.json {
		return json.NewEncoder(q.stdout).Encode(st)
	}
	return st.WriteText(q.stdout, name)
}

func (q *queryCmd) export(ctx context.Context, args []string, o storage.ExportOptions) error {
	if err := wantArgs(args, 0, ""); err != nil {
		return err
	}
	return q.db.ExportWith(ctx, q.stdout, o)
}

func (q *queryCmd) check(ctx context.Context, args []string) error {
	if err := wantArgs(args, 0, ""); err != nil {
		return err
	}
	rep, err := q.db.Check(ctx)
	if perr := q.print(rep.View(err)); perr != nil {
		return perr
	}
	return err
}
