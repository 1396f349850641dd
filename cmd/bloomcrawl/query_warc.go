package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"

	"github.com/bloomcrawl/bloomcrawl/archive"
)

// warcFiles lists the WARC files of files and directories (archive.WARCFiles).
var warcFiles = archive.WARCFiles

// exportWACZ writes the WACZ package name (an existing file is an error)
// of the WARC files of dirs (export --warc-dir) and prints what it holds;
// text adds the pages' text.
func (q *queryCmd) exportWACZ(ctx context.Context, args []string, name string, dirs []string, text bool) error {
	if err := wantArgs(args, 0, ""); err != nil {
		return err
	}
	if len(dirs) == 0 {
		return usagef("--wacz needs --warc-dir DIR (the WARC files to package)")
	}
	files, err := warcFiles(dirs...)
	if err != nil {
		return fmt.Errorf("export --wacz: %w", err)
	}
	st, err := archive.WriteWACZFile(ctx, name, files, archive.WACZOptions{Pages: q.db, Text: text})
	if err != nil {
		return err
	}
	if q.json {
		return json.NewEncoder(q.stdout).Encode(st)
	}
	return st.WriteText(q.stdout, name)
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
