package archive

import (
	"archive/zip"
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/bloomcrawl/bloomcrawl/storage"
)

// WACZVersion is the version of the WACZ specification WriteWACZ follows.
const WACZVersion = "1.1.1"

// WACZOptions configures WriteWACZ.
type WACZOptions struct {
	// Pages lists the pages of pages/pages.jsonl: every stored document
	// (not the URLs mapped to another URL's document), with its URL (the
	// final URL after redirects), fetch time and title. nil writes the
	// header line only.
	Pages Store
	// Text adds each page's extracted text ("text") to pages.jsonl.
	Text bool
	// Software names the producer in datapackage.json. Default "bloomcrawl".
	Software string
	// Title of the collection. Default "bloomcrawl crawl".
	Title string
	// Created is the package's creation time. Default time.Now().
	Created time.Time
	// ZipNumAbove: an index of more lines than this is written as a
	// ZipNum index (indexes/index.cdx.gz, blocks of ZipNumBlock lines each
	// a gzip member, and indexes/index.idx naming each block's first key
	// and its offset and length), which a replay tool loads block by block
	// instead of whole; a smaller one as one indexes/index.cdxj. 0 means
	// DefaultZipNumAbove; negative, never.
	ZipNumAbove int64
	// ZipNumBlock is the number of index lines per ZipNum block. 0 means
	// DefaultZipNumBlock.
	ZipNumBlock int
}

// Defaults of WACZOptions' ZipNum fields: a replay tool (wabac.js) loads a
// plain index whole when it opens the package; 3,000 lines per block is
// what pywb and py-wacz write.
const (
	DefaultZipNumAbove = 10_000
	DefaultZipNumBlock = 3000
)

// WACZStats counts what WriteWACZ packaged.
type WACZStats struct {
	WARCs      int   `json:"warcs"`
	WARCBytes  int64 `json:"warc_bytes"`
	IndexLines int64 `json:"index_lines"`
	Pages      int64 `json:"pages"`
	Bytes      int64 `json:"bytes"` // of the .wacz
}

// WACZResource is a datapackage.json resource.
type WACZResource struct {
	Name  string `json:"name"`
	Path  string `json:"path"`
	Hash  string `json:"hash"` // "sha256:" + hex
	Bytes int64  `json:"bytes"`
}

// WACZPackage is datapackage.json.
type WACZPackage struct {
	Profile     string         `json:"profile"`
	WACZVersion string         `json:"wacz_version"`
	Title       string         `json:"title"`
	Created     string         `json:"created"`
	Software    string         `json:"software"`
	Resources   []WACZResource `json:"resources"`
}

// WriteWACZ packages the WARC files warcs as a WACZ 1.1.1 file written to
// w (https://specs.webrecorder.net/wacz/1.1.1/): a ZIP holding
// archive/NAME for each WARC file (names must be distinct), indexes/index.cdxj
// (their CDXJ index, merged and sorted, as IndexFiles writes it),
// pages/pages.jsonl (a header line, then one line per page of o.Pages),
// datapackage.json (profile "data-package", wacz_version, created,
// software, and each file's path, sha256 hash and size) and
// datapackage-digest.json (the hash of datapackage.json). Every entry is
// stored uncompressed (ZIP method Store, as the specification requires
// for the WARCs so that replay tools can read records by range), with its
// CRC and sizes in the local header. The WARC files are read twice (hash,
// then copy); pages.jsonl is spooled to a temporary file. It stops with
// ctx.Err() when ctx is done.
func WriteWACZ(ctx context.Context, w io.Writer, warcs []string, o WACZOptions) (WACZStats, error) {
	var st WACZStats
	if o.Software == "" {
		o.Software = "bloomcrawl"
	}
	if o.Title == "" {
		o.Title = "bloomcrawl crawl"
	}
	if o.Created.IsZero() {
		o.Created = time.Now()
	}
	seen := map[string]bool{}
	for _, f := range warcs {
		if b := filepath.Base(f); seen[b] {
			return st, fmt.Errorf("archive: wacz: two WARC files named %s", b)
		} else {
			seen[b] = true
		}
	}
	cw := &countWriter{w: w}
	zw := zip.NewWriter(cw)
	var res []WACZResource
	for _, f := range warcs {
		r, err := zipFile(ctx, zw, f, "archive/"+filepath.Base(f), o.Created)
		if err != nil {
			return st, err
		}
		res = append(res, r)
		st.WARCs++
		st.WARCBytes += r.Bytes
	}
	var index bytes.Buffer
	is, err := IndexFiles(ctx, warcs, &index)
	if err != nil {
		return st, err
	}
	st.IndexLines = is.Lines
	above := o.ZipNumAbove
	if above == 0 {
		above = DefaultZipNumAbove
	}
	if above >= 0 && is.Lines > above {
		block := o.ZipNumBlock
		if block <= 0 {
			block = DefaultZipNumBlock
		}
		cdx, idx, err := zipNum(index.Bytes(), block)
		if err != nil {
			return st, err
		}
		for _, e := range []struct {
			name string
			b    []byte
		}{{"indexes/index.cdx.gz", cdx}, {"indexes/index.idx", idx}} {
			r, err := zipBytes(zw, e.name, e.b, o.Created)
			if err != nil {
				return st, err
			}
			res = append(res, r)
		}
	} else {
		r, err := zipBytes(zw, "indexes/index.cdxj", index.Bytes(), o.Created)
		if err != nil {
			return st, err
		}
		res = append(res, r)
	}

	pages, err := os.CreateTemp("", "bloomcrawl-pages-*.jsonl")
	if err != nil {
		return st, fmt.Errorf("archive: wacz: %w", err)
	}
	defer os.Remove(pages.Name())
	defer pages.Close()
	if st.Pages, err = writePages(ctx, pages, o); err != nil {
		return st, err
	}
	r, err := zipFile(ctx, zw, pages.Name(), "pages/pages.jsonl", o.Created)
	if err != nil {
		return st, err
	}
	res = append(res, r)

	dp, err := json.MarshalIndent(WACZPackage{Profile: "data-package", WACZVersion: WACZVersion, Title: o.Title,
		Created: o.Created.UTC().Format(time.RFC3339), Software: o.Software, Resources: res}, "", "  ")
	if err != nil {
		return st, fmt.Errorf("archive: wacz: %w", err)
	}
	if _, err := zipBytes(zw, "datapackage.json", dp, o.Created); err != nil {
		return st, err
	}
	sum := sha256.Sum256(dp)
	digest, _ := json.MarshalIndent(map[string]string{"path": "datapackage.json", "hash": "sha256:" + hex.EncodeToString(sum[:])}, "", "  ")
	if _, err := zipBytes(zw, "datapackage-digest.json", digest, o.Created); err != nil {
		return st, err
	}
	if err := zw.Close(); err != nil {
		return st, fmt.Errorf("archive: wacz: %w", err)
	}
	st.Bytes = cw.n
	return st, nil
}

// zipNum splits a sorted CDXJ index into blocks of block lines, each
// gzipped on its own (cdx: the members one after another), and writes the
// secondary index idx: a "!meta" line naming the format (cdxj-gzip-1.0)
// and the blocks' file, then per block its first line's key and timestamp
// and {"offset", "length", "digest" (sha256 of the member), "filename"},
// as py-wacz writes them and wabac.js reads them.
func zipNum(index []byte, block int) (cdx, idx []byte, err error) {
	var out, side bytes.Buffer
	side.WriteString(`!meta 0 {"format": "cdxj-gzip-1.0", "filename": "index.cdx.gz"}` + "\n")
	lines := bytes.SplitAfter(index, []byte("\n"))
	if n := len(lines); n > 0 && len(lines[n-1]) == 0 {
		lines = lines[:n-1]
	}
	for i := 0; i < len(lines); i += block {
		start := out.Len()
		zw := gzip.NewWriter(&out)
		for _, l := range lines[i:min(i+block, len(lines))] {
			zw.Write(l)
		}
		if err := zw.Close(); err != nil {
			return nil, nil, fmt.Errorf("archive: wacz: index block: %w", err)
		}
		member := out.Bytes()[start:]
		sum := sha256.Sum256(member)
		key, ts, _ := bytes.Cut(lines[i], []byte(" "))
		ts, _, _ = bytes.Cut(ts, []byte(" "))
		meta, _ := json.Marshal(struct {
			Offset   int    `json:"offset"`
			Length   int    `json:"length"`
			Digest   string `json:"digest"`
			Filename string `json:"filename"`
		}{start, len(member), "sha256:" + hex.EncodeToString(sum[:]), "index.cdx.gz"})
		fmt.Fprintf(&side, "%s %s %s\n", key, ts, meta)
	}
	return out.Bytes(), side.Bytes(), nil
}

// writePages writes pages.jsonl to f.
func writePages(ctx context.Context, f *os.File, o WACZOptions) (int64, error) {
	bw := bufio.NewWriterSize(f, 1<<20)
	bw.WriteString(`{"format": "json-pages-1.0", "id": "pages", "title": "All Pages"}` + "\n")
	var n int64
	if o.Pages != nil {
		enc := json.NewEncoder(bw)
		enc.SetEscapeHTML(false)
		err := o.Pages.ForEachURL(ctx, func(u storage.URLRecord) error {
			if u.DocID == 0 || u.Duplicate {
				return nil
			}
			p, err := o.Pages.Page(u.DocID)
			if errors.Is(err, storage.ErrNotFound) {
				return nil
			}
			if err != nil {
				return err
			}
			line := struct {
				ID    string `json:"id"`
				URL   string `json:"url"`
				TS    string `json:"ts"`
				Title string `json:"title,omitempty"`
				Text  string `json:"text,omitempty"`
			}{ID: p.DocID.String(), URL: pageURI(&p), TS: p.FetchedAt.UTC().Format(time.RFC3339Nano), Title: p.Title}
			if o.Text {
				line.Text = p.Text
			}
			n++
			return enc.Encode(line)
		})
		if err != nil {
			return n, fmt.Errorf("archive: wacz: pages: %w", err)
		}
	}
	if err := bw.Flush(); err != nil {
		return n, fmt.Errorf("archive: wacz: pages: %w", err)
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return n, fmt.Errorf("archive: wacz: pages: %w", err)
	}
	return n, nil
}

// zipFile stores the file src as name: a first pass computes its sha256,
// CRC-32 and size, a second copies it.
func zipFile(ctx context.Context, zw *zip.Writer, src, name string, mod time.Time) (WACZResource, error) {
	f, err := os.Open(src)
	if err != nil {
		return WACZResource{}, fmt.Errorf("archive: wacz: %w", err)
	}
	defer f.Close()
	sh, crc := sha256.New(), crc32.NewIEEE()
	n, err := copyCtx(ctx, io.MultiWriter(sh, crc), f)
	if err != nil {
		return WACZResource{}, fmt.Errorf("archive: wacz: read %s: %w", src, err)
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return WACZResource{}, fmt.Errorf("archive: wacz: %w", err)
	}
	out, err := zw.CreateRaw(storedHeader(name, n, crc.Sum32(), mod))
	if err != nil {
		return WACZResource{}, fmt.Errorf("archive: wacz: %s: %w", name, err)
	}
	check := sha256.New()
	if k, err := copyCtx(ctx, io.MultiWriter(out, check), f); err != nil || k != n {
		return WACZResource{}, fmt.Errorf("archive: wacz: copy %s (%d of %d bytes): %v", src, k, n, err)
	}
	if !bytes.Equal(check.Sum(nil), sh.Sum(nil)) {
		return WACZResource{}, fmt.Errorf("archive: wacz: %s changed while it was packaged", src)
	}
	return resource(name, sh, n), nil
}

func zipBytes(zw *zip.Writer, name string, b []byte, mod time.Time) (WACZResource, error) {
	out, err := zw.CreateRaw(storedHeader(name, int64(len(b)), crc32.ChecksumIEEE(b), mod))
	if err == nil {
		_, err = out.Write(b)
	}
	if err != nil {
		return WACZResource{}, fmt.Errorf("archive: wacz: %s: %w", name, err)
	}
	sh := sha256.New()
	sh.Write(b)
	return resource(name, sh, int64(len(b))), nil
}

func storedHeader(name string, size int64, crc uint32, mod time.Time) *zip.FileHeader {
	h := &zip.FileHeader{Name: name, Method: zip.Store, CRC32: crc, CompressedSize64: uint64(size), UncompressedSize64: uint64(size), Modified: mod}
	h.SetMode(0o644)
	h.SetModTime(mod) //nolint:staticcheck // CreateRaw takes the MS-DOS fields as they are; Modified alone is not written there
	return h
}

func resource(path string, h hash.Hash, n int64) WACZResource {
	return WACZResource{Name: filepath.Base(path), Path: path, Hash: "sha256:" + hex.EncodeToString(h.Sum(nil)), Bytes: n}
}

func copyCtx(ctx context.Context, w io.Writer, r io.Reader) (int64, error) {
	buf := make([]byte, 1<<20)
	var n int64
	for {
		if err := ctx.Err(); err != nil {
			return n, err
		}
		k, err := r.Read(buf)
		if k > 0 {
			if _, werr := w.Write(buf[:k]); werr != nil {
				return n, werr
			}
			n += int64(k)
		}
		if err == io.EOF {
			return n, nil
		}
		if err != nil {
			return n, err
		}
	}
}
