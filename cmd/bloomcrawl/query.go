package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"
	"unicode/utf8"

	"github.com/bloomcrawl/bloomcrawl/archive"
	"github.com/bloomcrawl/bloomcrawl/crawler"
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
  export --warc FILE          the store as a WARC/1.1 file (pages as resource records, duplicates
                              and failures as metadata; no HTTP headers or raw bytes: see docs/warc.md)
  export --cdxj DIR|FILE      CDXJ index of WARC files (crawl --warc output), sorted; no --store needed
  export --wacz FILE --warc-dir DIR [--text]
                              a WACZ package: the WARC files, their CDXJ index, the store's pages
  check                       verify every record and index of the store (reads it all)

The store is opened read-only, so queries can run side by side, but not
while a crawl holds the store.`

func init() {
	register(command{
		name:    "query",
		summary: "query a crawl store: stats, url, doc, dups, similar, list, export, check",
		run:     runQuery,
	})
}

// queryCmd is the state shared by the query subcommands.
type queryCmd struct {
	db     *storage.DB
	json   bool
	stdout io.Writer
	stderr io.Writer
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

	// Each subcommand accepts --json and --store after its name as well.
	sfs := newFlagSet("query "+sub, queryUsage, stderr)
	sfs.StringVar(store, "store", *store, "crawl store directory")
	sfs.BoolVar(asJSON, "json", *asJSON, "print JSON")
	sfs.StringVar(clusterURL, "cluster", *clusterURL, "with stats: a cluster crawl's Redis")
	var run func(q *queryCmd, args []string) error
	wf := addWARCFlags(flag.NewFlagSet("", flag.ContinueOnError)) // export's, below
	switch sub {
	case "stats":
		top := sfs.Int("top", 10, "hosts to list in text output (0 = all)")
		run = func(q *queryCmd, args []string) error { return q.stats(ctx, args, *top) }
	case "url":
		run = func(q *queryCmd, args []string) error { return q.url(args) }
	case "doc":
		text := sfs.Bool("text", false, "print the full extracted text")
		html := sfs.Bool("html", false, "print the raw HTML only")
		version := sfs.Int("version", 0, "show version K of the page (query doc lists the versions kept; 0 = the latest)")
		md := sfs.Bool("markdown", false, "print the main content as Markdown only")
		run = func(q *queryCmd, args []string) error {
			if *md {
				return q.docMarkdown(args)
			}
			return q.doc(args, *text, *html, *version)
		}
	case "dups":
		run = func(q *queryCmd, args []string) error { return q.dups(args) }
	case "similar":
		limit := sfs.Int("limit", 10, "most pages to list (0 = all that share a band)")
		run = func(q *queryCmd, args []string) error { return q.similar(ctx, args, *limit) }
	case "list":
		var o listFlags
		sfs.StringVar(&o.host, "host", "", "only pages on this host (any port, unless host:port)")
		sfs.StringVar(&o.prefix, "prefix", "", "only pages whose URL starts with this prefix")
		sfs.StringVar(&o.since, "since", "", "only pages fetched at or after this time (RFC 3339)")
		sfs.StringVar(&o.until, "until", "", "only pages fetched before this time (RFC 3339)")
		sfs.IntVar(&o.limit, "limit", 20, "pages per call (1..10000)")
		sfs.StringVar(&o.after, "after", "", "cursor printed by the previous call")
		run = func(q *queryCmd, args []string) error { return q.list(ctx, args, o) }
	case "check":
		run = func(q *queryCmd, args []string) error { return q.check(ctx, args) }
	case "export":
		html := sfs.Bool("html", false, "include the raw HTML")
		warcFile := sfs.String("warc", "", "write a WARC/1.1 file (gzip per record) instead of JSON lines")
		wf = addWARCFlags(sfs)
		format := sfs.String("format", "json", "json (JSON lines) or markdown (one Markdown document per page)")
		run = func(q *queryCmd, args []string) error {
			if *warcFile != "" {
				return q.exportWARC(ctx, args, *warcFile)
			}
			if wf.wacz != "" {
				return wf.exportWACZ(ctx, q, args)
			}
			switch *format {
			case "json":
				return q.export(ctx, args, *html)
			case "markdown", "md":
				if err := wantArgs(args, 0, ""); err != nil {
					return err
				}
				return q.db.ExportWith(ctx, q.stdout, storage.ExportOptions{Markdown: true, Render: renderMarkdown})
			}
			return usagef("--format %q: want json or markdown", *format)
		}
	default:
		return usagef("unknown query subcommand %q (stats, url, doc, dups, similar, list, export, check)", sub)
	}
	// Flags may come before and after the arguments.
	var positional []string
	for {
		if err := parseFlags(sfs, subArgs); err != nil {
			return err
		}
		if sfs.NArg() == 0 {
			break
		}
		positional = append(positional, sfs.Arg(0))
		subArgs = sfs.Args()[1:]
	}
	if *clusterURL != "" {
		switch {
		case sub != "stats":
			return usagef("--cluster works with the stats subcommand only (the pages are in each node's --store)")
		case *store != "":
			return usagef("give --cluster or --store, not both")
		}
		if err := wantArgs(positional, 0, ""); err != nil {
			return err
		}
		return clusterStats(ctx, *clusterURL, *asJSON, stdout)
	}
	if wf.cdxj != "" {
		return wf.exportCDXJ(ctx, positional, *asJSON, stdout, stderr)
	}
	if *store == "" {
		return usagef("--store DIR is required")
	}
	db, err := openForQuery(*store)
	if err != nil {
		return err
	}
	defer db.Close()
	return run(&queryCmd{db: db, json: *asJSON, stdout: stdout, stderr: stderr}, positional)
}

// openForQuery opens the store read-only. A store that was not closed
// cleanly (a crawl was killed) is recovered by one read-write open first.
func openForQuery(dir string) (*storage.DB, error) {
	db, err := storage.Open(dir, &storage.Options{ReadOnly: true})
	if !errors.Is(err, storage.ErrNeedsRecovery) {
		return db, err
	}
	rw, err := storage.Open(dir, nil)
	if err != nil {
		return nil, err
	}
	if err := rw.Close(); err != nil {
		return nil, err
	}
	return storage.Open(dir, &storage.Options{ReadOnly: true})
}

func (q *queryCmd) printJSON(v any) error {
	enc := json.NewEncoder(q.stdout)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

func wantArgs(args []string, n int, what string) error {
	if len(args) != n {
		if n == 0 {
			return usagef("unexpected argument %q", args[0])
		}
		return usagef("want %s, got %d arguments", what, len(args))
	}
	return nil
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
	tw := tabwriter.NewWriter(q.stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "pages\t%d\n", st.Pages)
	fmt.Fprintf(tw, "urls\t%d\n", st.URLs)
	fmt.Fprintf(tw, "duplicates\t%d\n", st.Duplicates)
	fmt.Fprintf(tw, "urls without document\t%d\n", st.NoDoc)
	fmt.Fprintf(tw, "hosts\t%d\n", st.Hosts)
	fmt.Fprintf(tw, "queued\t%d\n", st.Queue)
	if st.OldVersions > 0 {
		fmt.Fprintf(tw, "old versions\t%d (of refreshed pages; 'query doc ID' lists a page's)\n", st.OldVersions)
	}
	fmt.Fprintf(tw, "disk bytes\t%d\n", st.DiskBytes)
	if hosts := st.TopHosts(top); len(hosts) > 0 {
		fmt.Fprintf(tw, "\npages per host\t\n")
		for _, h := range hosts {
			fmt.Fprintf(tw, "  %s\t%d\n", h.Host, h.Pages)
		}
		if len(hosts) < st.Hosts {
			fmt.Fprintf(tw, "  (%d more hosts; --top 0 lists all)\t\n", st.Hosts-len(hosts))
		}
	}
	return tw.Flush()
}

func (q *queryCmd) url(args []string) error {
	if err := wantArgs(args, 1, "one URL"); err != nil {
		return err
	}
	p, rec, err := q.db.PageByURL(args[0])
	if errors.Is(err, storage.ErrNotFound) && rec.URL == "" {
		return fmt.Errorf("%w: URL %q is not in the store (URLs are stored canonical; 'query list --prefix' helps find one)", storage.ErrNotFound, args[0])
	}
	noDoc := errors.Is(err, storage.ErrNotFound)
	if err != nil && !noDoc {
		return err
	}
	if q.json {
		out := struct {
			URL  storage.URLView   `json:"url_record"`
			Page *storage.PageView `json:"page,omitempty"`
		}{URL: rec.View()}
		if !noDoc {
			pv := p.View(storage.ViewOptions{})
			out.Page = &pv
		}
		return q.printJSON(out)
	}
	q.printURL(rec)
	if noDoc {
		if rec.DocID != 0 {
			fmt.Fprintf(q.stdout, "\ndocument %s is not stored (yet)\n", rec.DocID)
		}
		return nil
	}
	fmt.Fprintln(q.stdout)
	q.printPage(p, false)
	return nil
}

func (q *queryCmd) printURL(r storage.URLRecord) {
	tw := tabwriter.NewWriter(q.stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "url\t%s\n", r.URL)
	if r.DocID != 0 {
		fmt.Fprintf(tw, "doc\t%s\n", r.DocID)
	} else {
		fmt.Fprintf(tw, "doc\t(none)\n")
	}
	if r.Duplicate {
		fmt.Fprintf(tw, "duplicate\tyes (%s, distance %d)\n", r.Reason, r.Distance)
		if r.Node != "" {
			fmt.Fprintf(tw, "stored by\tnode %s (cluster: the document is in that node's store)\n", r.Node)
		}
	} else {
		fmt.Fprintf(tw, "duplicate\tno\n")
	}
	fmt.Fprintf(tw, "status\t%d\n", r.Status)
	if r.ContentType != "" {
		fmt.Fprintf(tw, "content type\t%s\n", r.ContentType)
	}
	if !r.FetchedAt.IsZero() {
		fmt.Fprintf(tw, "fetched\t%s\n", r.FetchedAt.Format(time.RFC3339))
	}
	if !r.ChangedAt.IsZero() {
		fmt.Fprintf(tw, "changed\t%s\n", r.ChangedAt.Format(time.RFC3339))
	}
	if n := r.VersionCount(); n > 1 || !r.ChangedAt.IsZero() {
		fmt.Fprintf(tw, "versions\t%d (the stored page is the latest; 'query doc %s' lists those kept)\n", n, r.DocID)
		if !r.VersionAt.IsZero() {
			fmt.Fprintf(tw, "latest version\tsince %s\n", r.VersionAt.Format(time.RFC3339))
		}
		if r.Edits > 0 {
			fmt.Fprintf(tw, "edits\t%d (near-duplicate changes made in place)\n", r.Edits)
		}
	}
	if r.Err != "" {
		fmt.Fprintf(tw, "error\t%s\n", r.Err)
	}
	switch {
	case r.Reason == "noindex":
		fmt.Fprintf(tw, "stored\tno: the page asked not to be indexed (robots meta or X-Robots-Tag noindex); its links were followed\n")
	case r.Hints.Sitemap:
		fmt.Fprintf(tw, "sitemap\tyes (read for its URLs, not stored)\n")
	}
	if h := r.Hints; h.Canonical != "" {
		fmt.Fprintf(tw, "declared canonical\t%s\n", h.Canonical)
	}
	if h := r.Hints; !h.LastMod.IsZero() {
		fmt.Fprintf(tw, "sitemap lastmod\t%s\n", h.LastMod.Format(time.RFC3339))
	}
	if h := r.Hints; !h.NewsPublished.IsZero() || h.NewsTitle != "" {
		fmt.Fprintf(tw, "news\t%s  %s\n", h.NewsPublished.Format(time.RFC3339), h.NewsTitle)
	}
	tw.Flush()
}

func (q *queryCmd) printPage(p storage.Page, fullText bool) {
	tw := tabwriter.NewWriter(q.stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "doc\t%s\n", p.DocID)
	if p.Version > 0 {
		fmt.Fprintf(tw, "version\t%d (fetched: when this version was first fetched)\n", p.Version)
	}
	fmt.Fprintf(tw, "url\t%s\n", p.URL)
	if p.FinalURL != "" && p.FinalURL != p.URL {
		fmt.Fprintf(tw, "final url\t%s\n", p.FinalURL)
	}
	fmt.Fprintf(tw, "title\t%s\n", p.Title)
	fmt.Fprintf(tw, "status\t%d\n", p.Status)
	fmt.Fprintf(tw, "content type\t%s\n", p.ContentType)
	fmt.Fprintf(tw, "fetched\t%s\n", p.FetchedAt.Format(time.RFC3339))
	fmt.Fprintf(tw, "depth\t%d\n", p.Depth)
	if p.Referrer != "" {
		fmt.Fprintf(tw, "referrer\t%s\n", p.Referrer)
	}
	fmt.Fprintf(tw, "fingerprints\ttitle %016x content %016x flags %d\n", p.TitleFP, p.ContentFP, p.FPFlags)
	fmt.Fprintf(tw, "size\ttext %d bytes, html %d bytes\n", len(p.Text), len(p.HTML))
	tw.Flush()
	text := p.Text
	if !fullText {
		text = truncateRunes(text, 300)
	}
	if text != "" {
		fmt.Fprintf(q.stdout, "\n%s\n", text)
	}
}

func truncateRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	i := 0
	for j := range s {
		if i == n {
			return s[:j] + " …"
		}
		i++
	}
	return s
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
	versions, err := q.db.Versions(id)
	if err != nil {
		return err
	}
	latest := versions[len(versions)-1].N
	var p storage.Page
	if version == 0 {
		p, err = q.db.Page(id) // the stored page, as always
		version = latest
	} else {
		p, err = q.db.PageVersion(id, version)
	}
	if err != nil {
		return err
	}
	if html {
		if version != latest {
			return fmt.Errorf("version %d of %s: old versions keep their title and text, not their HTML (crawl --warc archives every response)", version, id)
		}
		_, err := q.stdout.Write(p.HTML)
		return err
	}
	if q.json {
		urls, err := q.db.URLs(id)
		if err != nil {
			return err
		}
		out := struct {
			storage.PageView
			URLs     []storage.URLView     `json:"urls"`
			Versions []storage.VersionInfo `json:"versions"`
		}{PageView: p.View(storage.ViewOptions{Text: true}), Versions: versions}
		for _, r := range urls {
			out.URLs = append(out.URLs, r.View())
		}
		return q.printJSON(out)
	}
	q.printPage(p, fullText)
	if len(versions) > 1 || latest > 1 {
		fmt.Fprintf(q.stdout, "\nversions kept (%d of %d; --version K shows one):\n", len(versions), latest)
		tw := tabwriter.NewWriter(q.stdout, 0, 0, 2, ' ', 0)
		for _, v := range versions {
			mark := ""
			if v.N == version {
				mark = "  <- shown"
			}
			fmt.Fprintf(tw, "  %d\t%s\t%d bytes\t%s%s\n", v.N, v.FetchedAt.Format(time.RFC3339), v.TextBytes, truncateRunes(v.Title, 60), mark)
		}
		tw.Flush()
	}
	return nil
}

// renderMarkdown renders a stored page's Markdown from its stored HTML
// (the crawl stores the HTML and renders Markdown on read); a page without
// HTML has none.
func renderMarkdown(p *storage.Page) (string, error) {
	if len(p.HTML) == 0 {
		return "", errors.New("no HTML stored")
	}
	u := p.FinalURL
	if u == "" {
		u = p.URL
	}
	pu, err := url.Parse(u)
	if err != nil {
		return "", err
	}
	return crawler.Markdown(p.HTML, pu)
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
	if p.Markdown == "" {
		if md, err := renderMarkdown(&p); err == nil {
			p.Markdown = md
		}
	}
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
	urls, err := q.db.URLs(id)
	if err != nil {
		return err
	}
	if len(urls) == 0 {
		return fmt.Errorf("document %s: %w", id, storage.ErrNotFound)
	}
	if q.json {
		out := struct {
			DocID storage.DocID     `json:"doc_id"`
			URLs  []storage.URLView `json:"urls"`
		}{DocID: id}
		for _, r := range urls {
			out.URLs = append(out.URLs, r.View())
		}
		return q.printJSON(out)
	}
	tw := tabwriter.NewWriter(q.stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "URL\tROLE\tREASON\tDISTANCE\n")
	for _, r := range urls {
		role := "original"
		if r.Duplicate {
			role = "duplicate"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\n", r.URL, role, r.Reason, r.Distance)
	}
	return tw.Flush()
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
	if q.json {
		return q.printJSON(struct {
			DocID   storage.DocID         `json:"doc_id"`
			Similar []storage.SimilarPage `json:"similar"`
		}{id, sims})
	}
	if len(sims) == 0 {
		fmt.Fprintf(q.stdout, "no page shares a MinHash band with %s\n", id)
		return nil
	}
	tw := tabwriter.NewWriter(q.stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "DOCID\tBANDS\tJACCARD~\tURL\tTITLE\n")
	for _, p := range sims {
		fmt.Fprintf(tw, "%s\t%d\t%.2f\t%s\t%s\n", p.DocID, p.Bands, p.Jaccard, p.URL, truncateRunes(p.Title, 60))
	}
	return tw.Flush()
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
	pages, next, err := q.db.List(ctx, o)
	if err != nil {
		return err
	}
	if q.json {
		out := struct {
			Pages []storage.PageView `json:"pages"`
			Next  string             `json:"next,omitempty"`
		}{Pages: []storage.PageView{}, Next: next}
		for _, p := range pages {
			out.Pages = append(out.Pages, p.View(storage.ViewOptions{}))
		}
		return q.printJSON(out)
	}
	tw := tabwriter.NewWriter(q.stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "DOC\tFETCHED\tURL\tTITLE\n")
	for _, p := range pages {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", p.DocID, p.FetchedAt.Format(time.RFC3339), p.URL, truncateRunes(p.Title, 60))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if next != "" {
		fmt.Fprintf(q.stdout, "next page: --after %s\n", next)
	}
	return nil
}

// exportWARC writes the store to a new file (an existing one is an error)
// and prints what it wrote.
func (q *queryCmd) exportWARC(ctx context.Context, args []string, name string) (err error) {
	if err := wantArgs(args, 0, ""); err != nil {
		return err
	}
	f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return fmt.Errorf("export --warc: %w", err)
	}
	defer func() {
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			os.Remove(name)
		}
	}()
	w := bufio.NewWriterSize(f, 1<<20)
	st, err := archive.Export(ctx, q.db, w, filepath.Base(name), map[string]string{"store": q.db.Dir()})
	if err != nil {
		return err
	}
	if err := w.Flush(); err != nil {
		return fmt.Errorf("export --warc %s: %w", name, err)
	}
	if q.json {
		return json.NewEncoder(q.stdout).Encode(st)
	}
	fmt.Fprintf(q.stdout, "%s: %d pages (resource records), %d duplicate URLs and %d other URLs (metadata records), %d bytes\n",
		name, st.Pages, st.Duplicates, st.Other, st.Bytes)
	return nil
}

func (q *queryCmd) export(ctx context.Context, args []string, html bool) error {
	if err := wantArgs(args, 0, ""); err != nil {
		return err
	}
	return q.db.ExportWith(ctx, q.stdout, storage.ExportOptions{HTML: html})
}

func (q *queryCmd) check(ctx context.Context, args []string) error {
	if err := wantArgs(args, 0, ""); err != nil {
		return err
	}
	rep, err := q.db.Check(ctx)
	if q.json {
		out := struct {
			OK          bool   `json:"ok"`
			Pages       int    `json:"pages"`
			URLs        int    `json:"urls"`
			Indexes     int    `json:"index_entries"`
			PendingRefs int    `json:"pending_refs"`
			Error       string `json:"error,omitempty"`
		}{err == nil, rep.Pages, rep.URLs, rep.Indexes, rep.PendingRefs, ""}
		if err != nil {
			out.Error = err.Error()
		}
		if jerr := q.printJSON(out); jerr != nil {
			return jerr
		}
		return err
	}
	fmt.Fprintf(q.stdout, "checked %d pages, %d URL records, %d index entries; %d URL records name a document not stored\n",
		rep.Pages, rep.URLs, rep.Indexes, rep.PendingRefs)
	if err != nil {
		return err
	}
	fmt.Fprintln(q.stdout, "store is consistent")
	return nil
}
