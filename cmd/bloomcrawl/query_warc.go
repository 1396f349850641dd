package main

import (
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
	cdxj string // --cdxj DIR-or-FILE
}

func addWARCFlags(fs *flag.FlagSet) *warcFlags {
	var f warcFlags
	fs.StringVar(&f.cdxj, "cdxj", "", "print a CDXJ index (pywb/WACZ format, sorted) of the WARC file, or of every .warc.gz file in the directory; needs no --store")
	return &f
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
