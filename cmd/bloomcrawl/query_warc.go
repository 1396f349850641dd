package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/bloomcrawl/bloomcrawl/archive"
)

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
	var files []string
	for _, d := range f.warcDirs {
		fs, err := warcFiles(d)
		if err != nil {
			return fmt.Errorf("export --wacz: %w", err)
		}
		files = append(files, fs...)
	}
	st, err := writeWACZ(ctx, f.wacz, files, archive.WACZOptions{Pages: q.db, Text: f.text})
	if err != nil {
		return err
	}
	if q.json {
		return json.NewEncoder(q.stdout).Encode(st)
	}
	fmt.Fprintf(q.stdout, "%s: %d WARC files (%d bytes), %d index lines, %d pages, %d bytes\n",
		f.wacz, st.WARCs, st.WARCBytes, st.IndexLines, st.Pages, st.Bytes)
	return nil
}

// writeWACZ writes a new file name (O_EXCL; removed on error).
func writeWACZ(ctx context.Context, name string, files []string, o archive.WACZOptions) (st archive.WACZStats, err error) {
	out, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return st, fmt.Errorf("wacz: %w", err)
	}
	defer func() {
		if cerr := out.Close(); err == nil && cerr != nil {
			err = fmt.Errorf("wacz: %w", cerr)
		}
		if err != nil {
			os.Remove(name)
		}
	}()
	bw := bufio.NewWriterSize(out, 1<<20)
	if st, err = archive.WriteWACZ(ctx, bw, files, o); err != nil {
		return st, err
	}
	if err := bw.Flush(); err != nil {
		return st, fmt.Errorf("wacz %s: %w", name, err)
	}
	return st, out.Sync()
}

// warcFiles is path's WARC files: path itself, or the closed .warc.gz and
// .warc files of the directory path (not the .open ones, being written),
// sorted by name.
func warcFiles(path string) ([]string, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !fi.IsDir() {
		return []string{path}, nil
	}
	ents, err := os.ReadDir(path)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range ents {
		if n := e.Name(); !e.IsDir() && (strings.HasSuffix(n, ".warc.gz") || strings.HasSuffix(n, ".warc")) {
			out = append(out, filepath.Join(path, n))
		}
	}
	slices.Sort(out)
	if len(out) == 0 {
		return nil, fmt.Errorf("no .warc.gz files in %s", path)
	}
	return out, nil
}

// exportCDXJ prints the CDXJ index of f.cdxj's WARC files to stdout; a
// summary goes to stderr (as JSON with --json).
func (f *warcFlags) exportCDXJ(ctx context.Context, args []string, asJSON bool, stdout, stderr io.Writer) error {
	if err := wantArgs(args, 0, ""); err != nil {
		return err
	}
	files, err := warcFiles(f.cdxj)
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
	fmt.Fprintf(stderr, "%d files, %d records, %d index lines\n", st.Files, st.Records, st.Lines)
	return nil
}
