// Package warccheck reads WARC files back with gowarc's reader and checks
// what bloomcrawl's archive package promises about them: every file starts
// with a warcinfo naming it; record ids are unique; block and payload
// digests match the bytes; each request is followed by its response or
// revisit (WARC-Concurrent-To); revisits refer to an earlier response with
// the same payload digest, target URI and date; metadata records follow the
// response they are concurrent to and name an earlier response as the
// original. The tests of archive, crawler and cmd/bloomcrawl share it.
package warccheck

import (
	"bufio"
	"bytes"
	"crypto/sha1"
	"encoding/base32"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httputil"
	"os"
	"path/filepath"
	"strings"

	gowarc "github.com/internetarchive/gowarc"
)

// Record is one record read back.
type Record struct {
	File    string // base name of its file
	Offset  int64  // where its gzip member starts in the file
	Type    string // WARC-Type
	ID      string // WARC-Record-ID
	URI     string // WARC-Target-URI
	Date    string // WARC-Date
	Header  gowarc.Header
	Block   []byte
	Payload []byte            // HTTP body of a response ("" for other types)
	Fields  map[string]string // application/warc-fields blocks (warcinfo, metadata)
	Status  int               // HTTP status of a response or revisit
}

// Read reads every record of files, in order.
func Read(files []string) ([]*Record, error) {
	var out []*Record
	for _, name := range files {
		recs, err := readFile(name)
		if err != nil {
			return out, err
		}
		out = append(out, recs...)
	}
	return out, nil
}

func readFile(name string) ([]*Record, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r, err := gowarc.NewReader(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	defer r.Close()
	var out []*Record
	for {
		rec, err := r.ReadRecord()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return out, fmt.Errorf("%s: record %d: %w", name, len(out), err)
		}
		if rec.Version != "WARC/1.1" {
			return out, fmt.Errorf("%s: record %d: version %q", name, len(out), rec.Version)
		}
		block, err := io.ReadAll(rec.Content)
		rec.Content.Close()
		if err != nil {
			return out, fmt.Errorf("%s: record %d: %w", name, len(out), err)
		}
		x := &Record{File: filepath.Base(name), Offset: rec.Offset, Type: rec.Header.Get("WARC-Type"), ID: rec.Header.Get("WARC-Record-ID"),
			URI: rec.Header.Get("WARC-Target-URI"), Date: rec.Header.Get("WARC-Date"), Header: rec.Header, Block: block}
		switch x.Type {
		case "response", "revisit":
			resp, err := http.ReadResponse(bufio.NewReader(bytes.NewReader(block)), nil)
			if err != nil {
				return out, fmt.Errorf("%s: %s %s: HTTP response: %w", name, x.Type, x.URI, err)
			}
			x.Status = resp.StatusCode
			if i := bytes.Index(block, []byte("\r\n\r\n")); i >= 0 {
				x.Payload = block[i+4:]
			}
			if len(resp.TransferEncoding) > 0 && len(x.Payload) > 0 {
				// A chunked body as received: the payload is after transfer decoding.
				p, err := io.ReadAll(httputil.NewChunkedReader(bytes.NewReader(x.Payload)))
				if err != nil {
					return out, fmt.Errorf("%s: %s %s: chunked body: %w", name, x.Type, x.URI, err)
				}
				x.Payload = p
			}
		case "warcinfo", "metadata":
			x.Fields = map[string]string{}
			for _, line := range strings.Split(string(block), "\r\n") {
				if k, v, ok := strings.Cut(line, ": "); ok {
					x.Fields[k] = v
				}
			}
		}
		out = append(out, x)
	}
}

// Digest is a WARC SHA-1 digest of b ("sha1:" + base32).
func Digest(b []byte) string {
	s := sha1.Sum(b)
	return "sha1:" + base32.StdEncoding.EncodeToString(s[:])
}

// Check verifies the invariants listed in the package comment and returns
// every violation found.
func Check(recs []*Record) []error {
	var errs []error
	bad := func(r *Record, f string, a ...any) {
		errs = append(errs, fmt.Errorf("%s %s %s %s: %s", r.File, r.Type, r.ID, r.URI, fmt.Sprintf(f, a...)))
	}
	byID := map[string]*Record{}
	index := map[string]int{}
	firstOf := map[string]string{} // payload digest → id of its first response
	file := ""
	for i, r := range recs {
		if r.ID == "" || r.Date == "" {
			bad(r, "missing WARC-Record-ID or WARC-Date")
		}
		if _, dup := byID[r.ID]; dup {
			bad(r, "record id used twice")
		}
		byID[r.ID], index[r.ID] = r, i
		if got := r.Header.Get("WARC-Block-Digest"); got != Digest(r.Block) {
			bad(r, "WARC-Block-Digest %s, recomputed %s", got, Digest(r.Block))
		}
		if r.File != file {
			file = r.File
			if r.Type != "warcinfo" {
				bad(r, "first record of the file is not a warcinfo")
			} else if name := r.Header.Get("WARC-Filename"); strings.TrimSuffix(r.File, ".open") != name {
				bad(r, "WARC-Filename %q", name)
			}
		}
		switch r.Type {
		case "request":
			if i+1 >= len(recs) || recs[i+1].ID != r.Header.Get("WARC-Concurrent-To") {
				bad(r, "not followed by the record it is concurrent to (%s)", r.Header.Get("WARC-Concurrent-To"))
			} else if next := recs[i+1]; next.URI != r.URI || (next.Type != "response" && next.Type != "revisit") {
				bad(r, "followed by %s %s", next.Type, next.URI)
			}
		case "response":
			if i == 0 || recs[i-1].Type != "request" || recs[i-1].Header.Get("WARC-Concurrent-To") != r.ID {
				bad(r, "not preceded by its request")
			}
			d := r.Header.Get("WARC-Payload-Digest")
			if d != Digest(r.Payload) {
				bad(r, "WARC-Payload-Digest %s, recomputed %s", d, Digest(r.Payload))
			}
			if len(r.Payload) > 0 && r.Header.Get("WARC-Truncated") == "" {
				if first, ok := firstOf[d]; ok {
					bad(r, "payload identical to %s but written as a response, not a revisit", first)
				} else {
					firstOf[d] = r.ID
				}
			}
		case "revisit":
			if r.Header.Get("WARC-Profile") != "http://netpreserve.org/warc/1.1/revisit/identical-payload-digest" {
				bad(r, "WARC-Profile %q", r.Header.Get("WARC-Profile"))
			}
			ref := r.Header.Get("WARC-Refers-To")
			o, ok := byID[ref]
			switch {
			case !ok:
				bad(r, "WARC-Refers-To %s: no earlier record", ref)
			case o.Type != "response":
				bad(r, "refers to a %s", o.Type)
			case o.Header.Get("WARC-Payload-Digest") != r.Header.Get("WARC-Payload-Digest"):
				bad(r, "payload digest %s differs from the original's %s", r.Header.Get("WARC-Payload-Digest"), o.Header.Get("WARC-Payload-Digest"))
			case r.Header.Get("WARC-Refers-To-Target-URI") != o.URI || r.Header.Get("WARC-Refers-To-Date") != o.Date:
				bad(r, "WARC-Refers-To-Target-URI/Date %s %s, original has %s %s", r.Header.Get("WARC-Refers-To-Target-URI"), r.Header.Get("WARC-Refers-To-Date"), o.URI, o.Date)
			}
			if len(r.Payload) != 0 {
				bad(r, "revisit carries %d payload bytes", len(r.Payload))
			}
		case "metadata":
			if c := r.Header.Get("WARC-Concurrent-To"); c != "" {
				if o, ok := byID[c]; !ok || o.Type != "response" || o.URI != r.URI {
					bad(r, "WARC-Concurrent-To %s: not an earlier response for the same URI", c)
				}
			}
			if c := r.Header.Get("WARC-Refers-To"); c != "" {
				if o, ok := byID[c]; !ok || o.URI != r.URI {
					bad(r, "WARC-Refers-To %s: not an earlier record for the same URI", c)
				}
			}
		case "resource":
			if d := r.Header.Get("WARC-Payload-Digest"); d != "" && d != Digest(r.Block) {
				bad(r, "WARC-Payload-Digest %s, recomputed %s", d, Digest(r.Block))
			}
		}
	}
	// A near-duplicate's original: a response (crawl) or resource (export)
	// record for the URI the metadata names.
	for _, r := range recs {
		if id := r.Fields["bloomcrawl-original-record-id"]; r.Type == "metadata" && id != "" {
			o, ok := byID[id]
			if !ok || (o.Type != "response" && o.Type != "resource") {
				bad(r, "original record %s: no response or resource record", id)
			} else if o.URI != r.Fields["bloomcrawl-original-uri"] {
				bad(r, "original record %s has URI %s, metadata names %s", id, o.URI, r.Fields["bloomcrawl-original-uri"])
			}
		}
	}
	return errs
}
