package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"

	"github.com/bloomcrawl/bloomcrawl/archive"
)

// warcFiles lists the WARC files of files and directories (archive.WARCFiles).
var warcFiles = archive.WARCFiles

// warcFlags are query export's flags for WARC indexes and packages.
type warcFlags struct {
	cdxj     string     // --cdxj DIR-or-FILE
	wacz     string     // --wacz FILE
	warcDirs stringList // --warc-dir DIR (repeatable)
	text     bool       // --text
}

func addWARCFlags(fs *flag.FlagSet) *warcFlags {
	var f warcFlags
	fs.StringVar(&f.cdxj, "cdxj", "", "print a CDXJ index (pywb/WACZ format, sorted) of the WARC file, or of every .warc.gz file in the directory; needs no --store")
	fs.StringVar(&f.wacz, "wacz", "", "write a WACZ 1.1.1 package of the WARC files of --warc-dir and the store's pages to this new file")
	fs.Var(&f.warcDirs, "warc-dir", "with --wacz: a directory (or file) of WARC files, as crawl --warc wrote them (repeatable: a cluster's nodes' directories)")
	fs.BoolVar(&f.text, "text", false, "with --wacz: add each page's extracted text to pages/pages.jsonl")
	return &f
}

// exportWACZ writes the WACZ package f.wacz (an existing file is an
// error) and prints what it holds.
func (f *warcFlags) exportWACZ(ctx context.Context, q *queryCmd, args []string) error {
	if err := wantArgs(args, 0, ""); err != nil {
		return err
	}
	if len(f.warcDirs) == 0 {
		return usagef("--wacz needs --warc-dir DIR (the WARC files to package)")
	}
	files, err := warcFiles(f.warcDirs...)
	if err != nil {
		return fmt.Errorf("export --wacz: %w", err)
	}
	st, err := archive.WriteWACZFile(ctx, f.wacz, files, archive.WACZOptions{Pages: q.db, Text: f.text})
	if err != nil {
		return err
	}
	if q.json {
		return json.NewEncoder(q.stdout).Encode(st)
	}
	return st.WriteText(q.stdout, f.wacz)
}

// exportCDXJ prints the CDXJ index of the WARC files of path (a file or
// directory: export --cdxj) to stdout; a summary goes to stderr (as JSON
// with --json).
func exportCDXJ(ctx context.Context, path string, args []string, asJSON bool, stdout, stderr io.Writer) error {
	if err := wantArgs(args, 0, ""); err != nil {
		return err
	}
	files, err := warcFiles(path)
	if err != nil {
		return fmt.Errorf("export --cdxj: %w", err)
	}
	st, err := archive.IndexFiles(ctx, files, stdout)
	if err != nil {
		return fmt.Errorf("export --cdxj: %w", err)
	}
	if asJSON {
		return json.NewEncoder(stderr).Encode(st)
	}
	return st.WriteText(stderr)
}
