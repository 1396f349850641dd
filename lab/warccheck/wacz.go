package warccheck

import (
	"archive/zip"
	"bufio"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// WACZ is what CheckWACZ read of a package.
type WACZ struct {
	Package struct {
		Profile     string `json:"profile"`
		WACZVersion string `json:"wacz_version"`
		Created     string `json:"created"`
		Software    string `json:"software"`
		Resources   []struct {
			Name  string `json:"name"`
			Path  string `json:"path"`
			Hash  string `json:"hash"`
			Bytes int64  `json:"bytes"`
		} `json:"resources"`
	}
	Entries map[string]*zip.File
	Index   []string         // indexes/index.cdxj lines (or the ZipNum index's)
	ZipNum  bool             // the index is index.idx + index.cdx.gz
	Pages   []map[string]any // pages/pages.jsonl lines after the header
}

// CheckWACZ reads the WACZ file name and checks it against the WACZ 1.1.1
// specification: datapackage.json (profile, wacz_version, created,
// software) lists every other entry with its sha256 hash and size, and
// datapackage-digest.json the hash of datapackage.json; the WARC files
// (archive/) are stored uncompressed;
// indexes/index.cdxj is sorted and each of its lines, read by range at its
// file's data offset in the ZIP as a replay tool reads it, is a gzip member
// holding a WARC record of that URL (a ZipNum index, index.idx and
// index.cdx.gz, is read block by block through index.idx, each block by
// range, and checked the same way); pages/pages.jsonl starts with the
// json-pages-1.0 header and every page has a url and an RFC 3339 ts.
func CheckWACZ(name string) (*WACZ, []error) {
	raw, err := os.ReadFile(name)
	if err != nil {
		return nil, []error{err}
	}
	zr, err := zip.NewReader(bytes.NewReader(raw), int64(len(raw)))
	if err != nil {
		return nil, []error{err}
	}
	c := &waczCheck{raw: raw, w: &WACZ{Entries: map[string]*zip.File{}}, content: map[string][]byte{}}
	if err := c.readEntries(zr); err != nil {
		return c.w, append(c.errs, err)
	}
	dp, err := c.datapackage()
	if err != nil {
		return c.w, append(c.errs, err)
	}
	c.resources()
	c.digest(dp)
	c.index()
	c.pages()
	return c.w, c.errs
}

// waczCheck is one run of CheckWACZ: the package's bytes, what was read of
// it so far, its entries' contents, and the problems found.
type waczCheck struct {
	raw     []byte
	w       *WACZ
	content map[string][]byte // entry name → uncompressed bytes
	errs    []error
}

// bad records a problem.
func (c *waczCheck) bad(f string, a ...any) { c.errs = append(c.errs, fmt.Errorf(f, a...)) }

// readEntries reads every entry of zr, checking its CRC, and checks that
// the WARC files are stored at their data offsets. An entry that cannot be
// read is returned as an error: the check stops there.
func (c *waczCheck) readEntries(zr *zip.Reader) error {
	for _, f := range zr.File {
		c.w.Entries[f.Name] = f
		rc, err := f.Open()
		if err != nil {
			return fmt.Errorf("%s: %w", f.Name, err)
		}
		b, err := io.ReadAll(rc) // checks the CRC
		rc.Close()
		if err != nil {
			return fmt.Errorf("%s: %w", f.Name, err)
		}
		c.content[f.Name] = b
		if strings.HasPrefix(f.Name, "archive/") {
			if f.Method != zip.Store {
				c.bad("%s: method %d, want stored (0)", f.Name, f.Method)
			}
			if off, err := f.DataOffset(); err != nil || !bytes.Equal(c.raw[off:off+int64(len(b))], b) {
				c.bad("%s: its bytes are not at its data offset (%v)", f.Name, err)
			}
		}
	}
	return nil
}

// datapackage reads datapackage.json into w.Package, checks its profile,
// version, software and created, and returns its bytes. A missing or
// unreadable datapackage.json is returned as an error: the check stops
// there.
func (c *waczCheck) datapackage() ([]byte, error) {
	dp, ok := c.content["datapackage.json"]
	if !ok {
		return nil, fmt.Errorf("no datapackage.json")
	}
	if err := json.Unmarshal(dp, &c.w.Package); err != nil {
		return nil, fmt.Errorf("datapackage.json: %w", err)
	}
	p := c.w.Package
	if p.Profile != "data-package" || p.WACZVersion != "1.1.1" || p.Software == "" {
		c.bad("datapackage.json: profile %q, wacz_version %q, software %q", p.Profile, p.WACZVersion, p.Software)
	}
	if _, err := time.Parse(time.RFC3339, p.Created); err != nil {
		c.bad("datapackage.json: created %q: %v", p.Created, err)
	}
	return dp, nil
}

// resources checks that datapackage.json lists every other entry, each
// with its hash, size and name.
func (c *waczCheck) resources() {
	listed := map[string]bool{}
	for _, r := range c.w.Package.Resources {
		listed[r.Path] = true
		b, ok := c.content[r.Path]
		if !ok {
			c.bad("resource %s: not in the ZIP", r.Path)
			continue
		}
		sum := sha256.Sum256(b)
		if r.Hash != "sha256:"+hex.EncodeToString(sum[:]) || r.Bytes != int64(len(b)) {
			c.bad("resource %s: hash %s, %d bytes; the entry has sha256:%x, %d bytes", r.Path, r.Hash, r.Bytes, sum, len(b))
		}
		if r.Name != filepath.Base(r.Path) {
			c.bad("resource %s: name %q", r.Path, r.Name)
		}
	}
	for n := range c.content {
		if n != "datapackage.json" && n != "datapackage-digest.json" && !listed[n] {
			c.bad("%s: not listed in datapackage.json", n)
		}
	}
}

// digest checks that datapackage-digest.json holds the hash of dp, the
// bytes of datapackage.json.
func (c *waczCheck) digest(dp []byte) {
	var digest struct{ Path, Hash string }
	if err := json.Unmarshal(c.content["datapackage-digest.json"], &digest); err != nil {
		c.bad("datapackage-digest.json: %v", err)
	} else if sum := sha256.Sum256(dp); digest.Path != "datapackage.json" || digest.Hash != "sha256:"+hex.EncodeToString(sum[:]) {
		c.bad("datapackage-digest.json: %+v", digest)
	}
}

// index reads the CDXJ index into w.Index, checks that it is sorted and
// that every line points to its record. A ZipNum index (index.idx and
// index.cdx.gz) is read block by block through index.idx, each block by
// range as a replay tool reads it: every block a gzip member at its
// offset and length with its sha256, its first line starting with the
// block's key, the blocks together the whole index.cdx.gz.
func (c *waczCheck) index() {
	idx, ok := c.content["indexes/index.cdxj"]
	if !ok {
		idx, ok = c.content["indexes/index.cdx"] // as js-wacz names it
	}
	if !ok {
		if _, zipnum := c.content["indexes/index.idx"]; zipnum {
			idx, ok = c.zipNum(), true
			c.w.ZipNum = true
		}
	}
	if !ok {
		c.bad("no indexes/index.cdxj")
	}
	c.w.Index = SortedLines(idx)
	if strings.Join(c.w.Index, "\n")+"\n" != string(idx) {
		c.bad("the index is not sorted")
	}
	for _, l := range c.w.Index {
		if err := checkIndexLine(c.raw, c.w.Entries, l); err != nil {
			c.bad("index line %q: %v", l, err)
		}
	}
}

// zipNum reads the ZipNum index through index.idx and returns its lines.
func (c *waczCheck) zipNum() []byte {
	idx := strings.Split(strings.TrimSuffix(string(c.content["indexes/index.idx"]), "\n"), "\n")
	if len(idx) == 0 || !strings.HasPrefix(idx[0], "!meta 0 ") || !strings.Contains(idx[0], `"cdxj-gzip-1.0"`) {
		c.bad("index.idx: first line %q, want a !meta line with format cdxj-gzip-1.0", idx[0])
	}
	cdx := c.content["indexes/index.cdx.gz"]
	var all []byte
	var next int64
	for _, l := range idx[1:] {
		prefix, js, ok := strings.Cut(l, " {")
		var b struct {
			Offset, Length   int64
			Digest, Filename string
		}
		if !ok || json.Unmarshal([]byte("{"+js), &b) != nil || b.Filename != "index.cdx.gz" {
			c.bad("index.idx line %q", l)
			continue
		}
		if b.Offset != next || b.Offset+b.Length > int64(len(cdx)) {
			c.bad("index.idx line %q: block at %d, the previous ended at %d (index.cdx.gz has %d bytes)", l, b.Offset, next, len(cdx))
			continue
		}
		next = b.Offset + b.Length
		member := cdx[b.Offset:next]
		if sum := sha256.Sum256(member); b.Digest != "sha256:"+hex.EncodeToString(sum[:]) {
			c.bad("index.idx line %q: digest of the block is sha256:%x", l, sum)
		}
		zr, err := gzip.NewReader(bytes.NewReader(member))
		if err != nil {
			c.bad("index.idx line %q: %v", l, err)
			continue
		}
		zr.Multistream(false)
		lines, err := io.ReadAll(zr)
		if err != nil {
			c.bad("index.idx line %q: %v", l, err)
			continue
		}
		if !bytes.HasPrefix(lines, []byte(prefix+" ")) {
			c.bad("index.idx line %q: its block starts %.80q", l, lines)
		}
		all = append(all, lines...)
	}
	if next != int64(len(cdx)) {
		c.bad("index.idx names %d of the %d bytes of index.cdx.gz", next, len(cdx))
	}
	return all
}

// pages reads pages/pages.jsonl into w.Pages and checks its header and
// that every page has a url and an RFC 3339 ts.
func (c *waczCheck) pages() {
	pages, ok := c.content["pages/pages.jsonl"]
	if !ok {
		c.bad("no pages/pages.jsonl")
	}
	sc := bufio.NewScanner(bytes.NewReader(pages))
	sc.Buffer(nil, 64<<20)
	for i := 0; sc.Scan(); i++ {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			c.bad("pages.jsonl line %d: %v", i+1, err)
			continue
		}
		if i == 0 {
			if m["format"] != "json-pages-1.0" || m["id"] == nil {
				c.bad("pages.jsonl header %s", sc.Text())
			}
			continue
		}
		ts, _ := m["ts"].(string)
		if _, err := time.Parse(time.RFC3339, ts); err != nil || m["url"] == nil {
			c.bad("pages.jsonl line %d: url %v ts %q", i+1, m["url"], ts)
		}
		c.w.Pages = append(c.w.Pages, m)
	}
}

// checkIndexLine reads the record an index line points to, by range in
// the ZIP's bytes.
func checkIndexLine(raw []byte, entries map[string]*zip.File, line string) error {
	parts := strings.SplitN(line, " ", 3)
	if len(parts) != 3 {
		return fmt.Errorf("not SURT TIMESTAMP JSON")
	}
	var j struct{ URL, Filename, Offset, Length string }
	if err := json.Unmarshal([]byte(parts[2]), &j); err != nil {
		return err
	}
	f := entries["archive/"+j.Filename]
	if f == nil {
		return fmt.Errorf("no archive/%s", j.Filename)
	}
	off, err1 := strconv.ParseInt(j.Offset, 10, 64)
	n, err2 := strconv.ParseInt(j.Length, 10, 64)
	data, err3 := f.DataOffset()
	if err1 != nil || err2 != nil || err3 != nil || off+n > int64(f.UncompressedSize64) {
		return fmt.Errorf("offset %q length %q outside the file", j.Offset, j.Length)
	}
	zr, err := gzip.NewReader(bytes.NewReader(raw[data+off : data+off+n]))
	if err != nil {
		return err
	}
	zr.Multistream(false)
	rec, err := io.ReadAll(zr)
	if err != nil {
		return fmt.Errorf("gzip member: %w", err)
	}
	if !bytes.HasPrefix(rec, []byte("WARC/1.1\r\n")) || !bytes.Contains(rec, []byte("\r\nWARC-Target-URI: "+j.URL+"\r\n")) {
		return fmt.Errorf("the member is not a WARC record of %s", j.URL)
	}
	return nil
}

// ExtractWARCs writes the archive/ entries of the WACZ file name into dir
// and returns their paths, sorted.
func ExtractWARCs(name, dir string) ([]string, error) {
	zr, err := zip.OpenReader(name)
	if err != nil {
		return nil, err
	}
	defer zr.Close()
	var out []string
	for _, f := range zr.File {
		if !strings.HasPrefix(f.Name, "archive/") {
			continue
		}
		rc, err := f.Open()
		if err != nil {
			return nil, err
		}
		b, err := io.ReadAll(rc)
		rc.Close()
		if err != nil {
			return nil, err
		}
		p := filepath.Join(dir, filepath.Base(f.Name))
		if err := os.WriteFile(p, b, 0o644); err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	slices.Sort(out)
	return out, nil
}
