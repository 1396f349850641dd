package archive

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	gowarc "github.com/internetarchive/gowarc"
)

// CDXJ indexes (the format of pywb and of WACZ's indexes/index.cdxj): one
// line per record a replay tool looks up, "SURT TIMESTAMP JSON", sorted
// byte-wise. Which records get a line and how each field is computed
// follows Node warcio's `cdx-index --format cdxj` (its CDXIndexer), record
// for record:
//
//   - records are paired in file order: a request followed (or preceded)
//     by a response or revisit with the same WARC-Target-URI gives one line,
//     for the response or revisit; requests, warcinfo records, and metadata
//     and resource records of type application/warc-fields get none; every
//     other record gets its own line;
//   - SURT: see SURT; timestamp: the first 14 digits of WARC-Date;
//   - url: WARC-Target-URI; mime: "warc/revisit" for revisits, the HTTP
//     Content-Type up to its first ";" for responses (absent if none), the
//     record's Content-Type otherwise; status: the HTTP status code of a
//     response or revisit; digest: WARC-Payload-Digest without its "sha1:"
//     prefix; length and offset: the gzip member's compressed length and
//     its offset in the file; filename: the WARC file's base name; method:
//     the request's HTTP method when it is not GET. Numbers are written as
//     JSON strings, as pywb and warcio write them.

// cdxRecord is what the index needs to know of one record.
type cdxRecord struct {
	typ, uri, date  string
	contentType     string // WARC Content-Type
	digest          string // WARC-Payload-Digest as written ("sha1:...")
	hasDigest       bool
	http            bool   // the block was parsed as an HTTP message
	status          string // status code of a response or revisit ("" if none)
	httpContentType string // HTTP Content-Type ("" if absent)
	method          string // a request's method
	body            []byte // a request's body (its start)
	offset, length  int64
}

// cdxIndexer pairs records as warcio's CDXIndexer does and collects the
// lines of one file.
type cdxIndexer struct {
	filename string
	last     *cdxRecord
	lines    []string
}

// add takes the next record of the file in order; add(nil) ends the file.
func (x *cdxIndexer) add(r *cdxRecord) {
	last := x.last
	x.last = r
	if last == nil {
		return
	}
	isResp := func(t string) bool { return t == "response" || t == "revisit" }
	switch {
	case r == nil || last.uri != r.uri:
		x.emit(last, nil)
	case r.typ == "request" && isResp(last.typ):
		x.last = nil
		x.emit(last, r)
	case isResp(r.typ) && last.typ == "request":
		x.last = nil
		x.emit(r, last)
	default:
		x.emit(last, nil)
	}
}

func (x *cdxIndexer) emit(r, req *cdxRecord) {
	switch r.typ {
	case "request", "warcinfo":
		return
	case "metadata", "resource":
		if r.contentType == "application/warc-fields" {
			return
		}
	}
	key, reqBody := r.uri, ""
	nonGET := req != nil && req.http && req.method != "GET"
	if nonGET {
		key, reqBody = queryKey(r.uri, req)
	}
	var b strings.Builder
	b.WriteString(SURT(key))
	b.WriteByte(' ')
	ts := strings.NewReplacer("-", "", ":", "", "T", "").Replace(r.date)
	if len(ts) > 14 {
		ts = ts[:14]
	}
	b.WriteString(ts)
	b.WriteString(" {")
	n := 0
	field := func(k, v string) {
		if n > 0 {
			b.WriteByte(',')
		}
		n++
		jsString(&b, k)
		b.WriteByte(':')
		jsString(&b, v)
	}
	if r.uri != "" {
		field("url", r.uri)
	}
	switch r.typ {
	case "revisit":
		field("mime", "warc/revisit")
	case "response", "request":
		if mt, _, _ := strings.Cut(r.httpContentType, ";"); strings.TrimSpace(mt) != "" {
			field("mime", strings.TrimSpace(mt))
		}
	default:
		if r.contentType != "" {
			field("mime", r.contentType)
		}
	}
	if r.http && r.status != "" && isRespType(r.typ) {
		field("status", r.status)
	}
	if r.hasDigest {
		if _, d, ok := strings.Cut(r.digest, ":"); ok {
			field("digest", d)
		}
	}
	field("length", strconv.FormatInt(r.length, 10))
	field("offset", strconv.FormatInt(r.offset, 10))
	field("filename", x.filename)
	if nonGET {
		field("method", req.method)
		field("requestBody", reqBody)
	}
	b.WriteString("}")
	x.lines = append(x.lines, b.String())
}

// queryKey is the URL a non-GET request is indexed under, as warcio's
// postToGetUrl makes it: the body as a query (form-encoded bodies as they
// are, empty JSON bodies as nothing, any other body base64-encoded as
// __wb_post_data=...; JSON, text/plain and multipart bodies that are not
// empty are not converted as warcio converts them), cut to 4096
// characters, appended with __wb_method=METHOD; and that query.
func queryKey(uri string, req *cdxRecord) (string, string) {
	ct, _, _ := strings.Cut(req.httpContentType, ";")
	var q string
	switch {
	case ct == "application/x-www-form-urlencoded":
		q = string(req.body)
	case (ct == "application/json" || ct == "text/plain") && len(req.body) == 0:
		q = ""
	default:
		q = "__wb_post_data=" + base64.StdEncoding.EncodeToString(req.body)
	}
	if len(q) > 4096 {
		q = q[:4096]
	}
	body := q
	q = decodeURI(q)
	sep := "?"
	if strings.IndexByte(uri, '?') > 0 {
		sep = "&"
	}
	return uri + sep + "__wb_method=" + req.method + "&" + q, body
}

// decodeURI is JavaScript's decodeURI: percent-escapes decoded except
// those of reserved characters; "" when an escape is malformed.
func decodeURI(s string) string {
	if !strings.Contains(s, "%") {
		return s
	}
	var b []byte
	for i := 0; i < len(s); i++ {
		if s[i] != '%' {
			b = append(b, s[i])
			continue
		}
		if i+2 >= len(s) || !isHex(s[i+1]) || !isHex(s[i+2]) {
			return ""
		}
		n, _ := strconv.ParseUint(s[i+1:i+3], 16, 8)
		if strings.IndexByte(";/?:@&=+$,#", byte(n)) >= 0 {
			b = append(b, s[i:i+3]...)
		} else {
			b = append(b, byte(n))
		}
		i += 2
	}
	if !utf8.Valid(b) {
		return ""
	}
	return string(b)
}

func isRespType(t string) bool { return t == "response" || t == "revisit" }

// jsString writes s as JavaScript's JSON.stringify does: only '"', '\\'
// and control characters escaped, everything else as UTF-8.
func jsString(b *strings.Builder, s string) {
	s = strings.ToValidUTF8(s, "\uFFFD")
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch c {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\b':
			b.WriteString(`\b`)
		case '\f':
			b.WriteString(`\f`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		default:
			if c < 0x20 {
				fmt.Fprintf(b, `\u%04x`, c)
			} else {
				b.WriteByte(c)
			}
		}
	}
	b.WriteByte('"')
}

// parseHTTPHead fills r's HTTP fields from the start of a request,
// response or revisit block: the status code (response) or method
// (request) from the first line, and the Content-Type fields (joined by
// ", " when repeated, as the Fetch API's Headers.get joins them).
func (r *cdxRecord) parseHTTPHead(block []byte) {
	if len(block) == 0 {
		return
	}
	head := block
	if i := bytes.Index(block, []byte("\r\n\r\n")); i >= 0 {
		head = block[:i]
	}
	if r.typ == "request" && len(head)+4 <= len(block) {
		r.body = block[len(head)+4:]
	}
	lines := strings.Split(string(head), "\r\n")
	r.http = true
	first := strings.SplitN(lines[0], " ", 3)
	if r.typ == "request" {
		r.method = first[0]
	} else if len(first) > 1 {
		if n, err := strconv.Atoi(first[1]); err == nil {
			r.status = strconv.Itoa(n)
		}
	}
	var cts []string
	for _, l := range lines[1:] {
		k, v, ok := strings.Cut(l, ":")
		if ok && strings.EqualFold(strings.TrimSpace(k), "Content-Type") {
			cts = append(cts, strings.TrimSpace(v))
		}
	}
	r.httpContentType = strings.Join(cts, ", ")
}

// sortedCDXJ returns lines sorted byte-wise, each ending in "\n".
func sortedCDXJ(lines []string) []byte {
	slices.Sort(lines)
	var b bytes.Buffer
	for _, l := range lines {
		b.WriteString(l)
		b.WriteByte('\n')
	}
	return b.Bytes()
}

// CDXJName is the name of the CDXJ index written beside the WARC file
// warc: its name with ".warc.gz" (or ".warc") replaced by ".cdxj".
func CDXJName(warc string) string {
	base := strings.TrimSuffix(warc, ".open")
	for _, ext := range []string{".warc.gz", ".warc"} {
		if strings.HasSuffix(base, ext) {
			return strings.TrimSuffix(base, ext) + ".cdxj"
		}
	}
	return base + ".cdxj"
}

// IndexStats counts what an index covers.
type IndexStats struct {
	Files   int   `json:"files"`
	Records int64 `json:"records"` // records read
	Lines   int64 `json:"lines"`   // index lines
}

// IndexFiles reads the WARC files (gzip per record, as gowarc reads them)
// and writes one CDXJ index of all of them to w, sorted byte-wise. The
// filename field of each line is the file's base name, with ".open"
// dropped. It stops with ctx.Err() when ctx is done. Every line is held in
// memory (about 200 bytes per response) until all files are read.
func IndexFiles(ctx context.Context, files []string, w io.Writer) (IndexStats, error) {
	var st IndexStats
	var lines []string
	for _, name := range files {
		if err := ctx.Err(); err != nil {
			return st, err
		}
		l, n, _, err := indexFile(ctx, name, strings.TrimSuffix(filepath.Base(name), ".open"), nil)
		if err != nil {
			return st, err
		}
		st.Files++
		st.Records += n
		lines = append(lines, l...)
	}
	st.Lines = int64(len(lines))
	if _, err := w.Write(sortedCDXJ(lines)); err != nil {
		return st, fmt.Errorf("archive: write index: %w", err)
	}
	return st, nil
}

// readRecord is one record read back from a file for indexing and repair.
type readRecord struct {
	cdxRecord
	id        string
	truncated string
}

// indexFile reads name's records in order and returns its index lines,
// the number of records read, and the offset where its last complete
// record ends. With each non-nil, it is called for every record read and
// reading errors after at least one record are returned as errTruncated
// wrapped, with the lines and end of the records read before.
func indexFile(ctx context.Context, name, base string, each func(*readRecord)) (lines []string, n int64, end int64, err error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, 0, 0, fmt.Errorf("archive: index %w", err)
	}
	defer f.Close()
	r, err := gowarc.NewReader(bufio.NewReaderSize(f, 1<<16))
	if err != nil {
		return nil, 0, 0, fmt.Errorf("archive: index %s: %w", name, err)
	}
	defer r.Close()
	x := &cdxIndexer{filename: base}
	head := make([]byte, 16<<10)
	for {
		if n%1024 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, n, end, err
			}
		}
		rec, err := r.ReadRecord()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			if each != nil {
				x.add(nil)
				return x.lines, n, end, fmt.Errorf("%w: %s: after offset %d: %v", errTruncated, name, end, err)
			}
			return nil, n, end, fmt.Errorf("archive: index %s: record %d: %w", name, n, err)
		}
		h := rec.Header
		rr := &readRecord{cdxRecord: cdxRecord{typ: h.Get("WARC-Type"), uri: h.Get("WARC-Target-URI"), date: h.Get("WARC-Date"),
			contentType: h.Get("Content-Type"), offset: rec.Offset, length: rec.Size},
			id: h.Get("WARC-Record-ID"), truncated: h.Get("WARC-Truncated")}
		rr.digest = h.Get("WARC-Payload-Digest")
		rr.hasDigest = rr.digest != ""
		if rr.typ == "response" || rr.typ == "request" || rr.typ == "revisit" {
			k, _ := io.ReadFull(rec.Content, head)
			rr.parseHTTPHead(head[:k])
			rr.body = bytes.Clone(rr.body) // head is reused
		}
		rec.Content.Close()
		if rec.Offset < 0 {
			return nil, n, end, fmt.Errorf("archive: index %s: not gzip-compressed per record", name)
		}
		n++
		end = rec.Offset + rec.Size
		x.add(&rr.cdxRecord)
		if each != nil {
			each(rr)
		}
	}
	x.add(nil)
	return x.lines, n, end, nil
}

var errTruncated = errors.New("archive: file ends with an incomplete record")
