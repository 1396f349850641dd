package archive

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/bloomcrawl/bloomcrawl/storage"
)

// WARCFiles returns the WARC files of paths, in order: a path that is a
// file is itself; a directory (as crawl --warc writes them) gives its
// closed .warc.gz and .warc files, sorted by name (not the .open ones,
// being written), and a directory without any is an error.
func WARCFiles(paths ...string) ([]string, error) {
	var out []string
	for _, path := range paths {
		fi, err := os.Stat(path)
		if err != nil {
			return nil, err
		}
		if !fi.IsDir() {
			out = append(out, path)
			continue
		}
		ents, err := os.ReadDir(path)
		if err != nil {
			return nil, err
		}
		var files []string
		for _, e := range ents {
			if n := e.Name(); !e.IsDir() && (strings.HasSuffix(n, ".warc.gz") || strings.HasSuffix(n, ".warc")) {
				files = append(files, filepath.Join(path, n))
			}
		}
		slices.Sort(files)
		if len(files) == 0 {
			return nil, fmt.Errorf("no .warc.gz files in %s", path)
		}
		out = append(out, files...)
	}
	return out, nil
}

// ExportFile writes Export's WARC stream of st to the new file name (an
// existing file is an error, never overwritten), with name's base name as
// its WARC-Filename. On error the file is removed.
//
// A store that kept its fetches (store.keep_raw: st is also a RawSource
// with HasRaw true) is exported losslessly instead: ExportRaw writes the
// records a `crawl --warc` wrote, into the one file name.
func ExportFile(ctx context.Context, st Store, name string, info map[string]string) (stats ExportStats, err error) {
	if rs, ok := st.(interface {
		RawSource
		HasRaw() (bool, error)
	}); ok {
		has, err := rs.HasRaw()
		if err != nil {
			return stats, fmt.Errorf("export: %w", err)
		}
		if has {
			return exportRawFile(ctx, st, rs, name, info)
		}
	}
	err = createFile(name, "export", func(w io.Writer) (err error) {
		stats, err = Export(ctx, st, w, filepath.Base(name), info)
		return err
	})
	return stats, err
}

// WriteWACZFile writes WriteWACZ's package of warcs to the new file name
// (an existing file is an error, never overwritten). On error the file is
// removed.
func WriteWACZFile(ctx context.Context, name string, warcs []string, o WACZOptions) (st WACZStats, err error) {
	err = createFile(name, "wacz", func(w io.Writer) (err error) {
		st, err = WriteWACZ(ctx, w, warcs, o)
		return err
	})
	return st, err
}

// createFile creates the new file name (O_EXCL), writes it through a
// 1 MiB buffer with write, and syncs it; when anything fails the file is
// removed. Errors of the file itself start with op.
func createFile(name, op string, write func(io.Writer) error) (err error) {
	f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	defer func() {
		if cerr := f.Close(); err == nil && cerr != nil {
			err = fmt.Errorf("%s: %w", op, cerr)
		}
		if err != nil {
			os.Remove(name)
		}
	}()
	bw := bufio.NewWriterSize(f, 1<<20)
	if err := write(bw); err != nil {
		return err
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("%s %s: %w", op, name, err)
	}
	return f.Sync()
}

// exportRawFile writes ExportRaw's records of rs to the new file name
// and counts the URLs of st fetched with a response that no kept fetch
// holds (crawled before store.keep_raw was set); on error the file is
// removed.
func exportRawFile(ctx context.Context, st Store, rs RawSource, name string, info map[string]string) (ExportStats, error) {
	kept := map[uint64]struct{}{} // 8 bytes of FNV-1a per URL
	onURL := func(u string) { kept[urlHash(u)] = struct{}{} }
	fields := map[string]string{"description": "exported from a bloomcrawl store that kept its fetches (store.keep_raw): records as the crawl received them"}
	for k, v := range info {
		fields[k] = v
	}
	ws, err := exportRaw(ctx, rs, Options{Dir: filepath.Dir(name), Name: filepath.Base(name), Info: fields}, onURL)
	var notKept int64
	if err == nil {
		err = st.ForEachURL(ctx, func(u storage.URLRecord) error {
			if _, ok := kept[urlHash(u.URL)]; !ok && u.Status != 0 {
				notKept++
			}
			return nil
		})
	}
	if err != nil {
		if !errors.Is(err, os.ErrExist) {
			os.Remove(name)
			os.Remove(name + ".open")
			os.Remove(CDXJName(name))
		}
		return ExportStats{}, fmt.Errorf("export: %w", err)
	}
	return ExportStats{Lossless: true, NotKept: notKept, Requests: ws.Requests, Responses: ws.Responses, Revisits: ws.Revisits, Metadata: ws.Metadata, Bytes: ws.Bytes}, nil
}

func urlHash(u string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(u))
	return h.Sum64()
}

// WriteText writes what ExportFile wrote to name as `bloomcrawl query
// export --warc` reports it: one line.
func (s ExportStats) WriteText(w io.Writer, name string) error {
	if s.Lossless {
		_, err := fmt.Fprintf(w, "%s: lossless (kept fetches): %d requests, %d responses, %d revisits, %d metadata records, %d bytes\n",
			name, s.Requests, s.Responses, s.Revisits, s.Metadata, s.Bytes)
		if err == nil && s.NotKept > 0 {
			_, err = fmt.Fprintf(w, "%s: %d URLs of the store were fetched without store.keep_raw and are not in it\n", name, s.NotKept)
		}
		return err
	}
	_, err := fmt.Fprintf(w, "%s: %d pages (resource records), %d duplicate URLs and %d other URLs (metadata records), %d bytes; lossy: no HTTP headers, requests, redirects or raw bytes (crawl with store.keep_raw for a lossless export)\n",
		name, s.Pages, s.Duplicates, s.Other, s.Bytes)
	return err
}

// WriteText writes what WriteWACZFile packaged in name as `bloomcrawl
// query export --wacz` reports it: one line.
func (s WACZStats) WriteText(w io.Writer, name string) error {
	_, err := fmt.Fprintf(w, "%s: %d WARC files (%d bytes), %d index lines, %d pages, %d bytes\n",
		name, s.WARCs, s.WARCBytes, s.IndexLines, s.Pages, s.Bytes)
	return err
}

// WriteText writes what IndexFiles indexed as `bloomcrawl query export
// --cdxj` reports it: one line.
func (s IndexStats) WriteText(w io.Writer) error {
	_, err := fmt.Fprintf(w, "%d files, %d records, %d index lines\n", s.Files, s.Records, s.Lines)
	return err
}
