// Package archive writes a crawl's HTTP exchanges as WARC/1.1 files (ISO
// 28500), the format the web-archiving tools read (pywb, OpenWayback,
// warcio, CDX indexers). It owns the capture of exchanges (Recorder, an
// http.RoundTripper), the records written for them and their links, the
// file naming and rotation, and the payload-digest and document maps that
// make revisit and near-duplicate records possible across runs. The WARC
// format itself is written by github.com/internetarchive/gowarc.
//
// # Basics
//
//	w, err := archive.Open(archive.Options{Dir: "warc/", Index: db}) // db: the crawl's *storage.DB
//	rt := &archive.Recorder{Next: transport, Done: func(origin *http.Request, ex *archive.Exchange) { ... }}
//	err = w.Write(ctx, archive.Fetch{Exchanges: exs, Verdict: &archive.Verdict{...}})
//	err = w.Close()
//
// The crawler (crawler.Options.Archive) does this when `crawl --warc DIR`
// or store.warc_dir is set.
//
// # Files
//
// Gzip-compressed, one gzip member per record (.warc.gz), named
// PREFIX-TIMESTAMP-SERIAL-HOST-PID.warc.gz (prefix "bloomcrawl",
// TIMESTAMP = file creation time in UTC to the millisecond, SERIAL
// counting the process's files from 00000, HOST = os.Hostname with "-"
// replaced by "_"), so that several nodes and restarts never collide; a
// name that exists anyway is an error (O_EXCL), never overwritten. A file
// is written as NAME.open and renamed when it is closed: when it reached
// Options.MaxBytes (default 1 GB; checked before each exchange, so a file
// exceeds it by at most one exchange's records) or at Close. A crawl killed
// with -9 leaves its last file as .open: it is readable up to its last
// complete record, and the next Open on the directory repairs it (see
// Crash repair).
//
// # CDXJ index
//
// When a file is closed, its CDXJ index (the format of pywb and of WACZ's
// indexes/index.cdxj) is written beside it as NAME.cdxj (CDXJName): one
// line "SURT TIMESTAMP14 {url, mime, status, digest, length, offset,
// filename}" per response, revisit and non-warc-fields resource or
// metadata record, sorted byte-wise; length and offset are the record's
// gzip member's. Which records are indexed and how each field is computed
// follows Node warcio's `cdx-index --format cdxj` record for record (see
// cdxj.go and SURT). IndexFiles indexes existing files (`bloomcrawl query
// export --cdxj`); the lines of a file are kept in memory until it closes
// (about 200 bytes per response).
//
// # WACZ
//
// WriteWACZ packages WARC files as a WACZ 1.1.1 file (the ZIP replayweb.page
// and Browsertrix load): archive/ (the WARC files, stored uncompressed),
// indexes/index.cdxj (IndexFiles of them), pages/pages.jsonl (the stored
// documents of a Store, with their titles and, if asked, text) and
// datapackage.json with each file's sha256 and size
// (`bloomcrawl query export --wacz`, `crawl --wacz`). WARCFiles lists the
// WARC files of a crawl's directories; WriteWACZFile and ExportFile write
// a package or an export to a new file (never over an existing one,
// removed when writing fails).
//
// # Records
//
// Every file starts with a warcinfo record (software, format, conformsTo,
// hostname, robots policy, user agent). Every exchange that got a response
// gives, contiguously:
//
//   - a request record (application/http;msgtype=request) with
//     WARC-Concurrent-To naming the response or revisit that follows;
//   - a response record (application/http;msgtype=response) holding the
//     status line, the header block and the body, with WARC-Payload-Digest
//     (SHA-1 of the body, base32) and WARC-Block-Digest (of the whole
//     block); or, when the body is byte-identical to one already written
//     (same payload digest, in this run or an earlier run on the same store),
//     a revisit record with WARC-Profile
//     http://netpreserve.org/warc/1.1/revisit/identical-payload-digest,
//     WARC-Refers-To, WARC-Refers-To-Target-URI and WARC-Refers-To-Date
//     naming that response, and only the status line and headers as its
//     block. Empty and truncated bodies are never revisits;
//   - for the final response of a page that content dedup judged a
//     near-duplicate (same title or similar content, not byte-identical) of
//     another document: a metadata record (application/warc-fields)
//     concurrent to that response, with the fields bloomcrawl-docid,
//     bloomcrawl-duplicate-reason (url, title, content),
//     bloomcrawl-duplicate-distance (SimHash bits), bloomcrawl-original-uri,
//     bloomcrawl-original-record-id and bloomcrawl-original-date (the
//     response of the document's first page). There is no standard revisit
//     profile for "similar", so none is invented: readers see a complete
//     response.
//
// All records carry WARC-Record-ID (a random UUID URN), WARC-Date (the time
// the request was sent, RFC 3339 with nanoseconds), WARC-Target-URI, and,
// for requests and responses, WARC-IP-Address.
//
// Redirect hops are exchanges of their own (a 301 response with its short
// body), written before the final response. robots.txt fetches and the
// failed tries of a retried fetch are written as they happen, without a
// verdict. A response the crawler aborted after its headers (a non-HTML
// Content-Type it does not download, or a Content-Length over
// fetch.max_body_bytes) is written with its headers and no body, and
// WARC-Truncated: unspecified (content type) or length (size). Requests
// that got no response (connection refused, timeout before headers) are
// not written.
//
// # What a record holds, against the wire
//
// Go's net/http parses the exchange before anyone sees it. When the
// Recorder's Next is an *http.Transport (without a proxy or dialers of its
// own), the Recorder uses a clone of it whose connections are tapped
// (tap.go): plain TCP, and TLS connections (the Recorder then does the TLS
// handshake, with the transport's TLS configuration and handshake
// timeout). Over a tapped HTTP/1.x connection:
//
//   - Request header block: the request line and header fields exactly as
//     net/http wrote them, except that the values of Authorization,
//     Proxy-Authorization and Cookie are written as "[redacted]" unless
//     Options.Secrets (store.warc_secrets) is set; every warcinfo record
//     says which in its http-request-secrets field.
//   - Response header block: the final status line and header fields
//     exactly as received: order, case, repeated fields and
//     Transfer-Encoding kept; interim 1xx responses (100 Continue, 103
//     Early Hints) are not part of the record.
//   - Body: as received. A chunked body is written with its chunk framing
//     (the block is the bytes on the wire), and WARC-Payload-Digest is over
//     the de-chunked body (the payload of WARC 1.1), WARC-Block-Digest over
//     the block. Content encoding is kept (a gzip response is stored
//     gzipped) and charsets are never converted (a GBK page is stored in
//     GBK). The Recorder asks for gzip itself, as http.Transport would, so
//     that Go does not decompress behind its back; it decompresses for the
//     crawler.
//
// HTTP/2 (a TLS connection that negotiated h2; h2tap.go) is recorded as
// the WARC HTTP/2 extension proposal (iipc/warc-specifications) says, in
// the form warcio, pywb and replayweb.page read: both heads as HTTP/1.1
// messages — "GET /path HTTP/1.1", "host: " from :authority, then the
// request's fields as sent; "HTTP/1.1 200 " (HTTP/2 carries no reason
// phrase: empty, after the space), then the response's fields — with the
// fields' lower-case names, order and repeats as their HPACK blocks
// carried them (decoded from the tapped connection; the final response's
// block, interim 1xx and trailers left out), and two WARC-Protocol fields
// on the request, response and revisit records: "h2" and the TLS version
// ("tls/1.3"). The body is the DATA frames' bytes (HTTP/2 has no transfer
// coding), so the payload is the block's body. Such connections are
// served by golang.org/x/net/http2's transport (net/http's own speaks
// HTTP/2 only over an unwrapped *tls.Conn), which has no
// ResponseHeaderTimeout: the request's own timeout still applies.
//
// Otherwise (a transport that cannot be tapped, a head that does not
// parse) the blocks are rebuilt from what net/http kept: the status line
// from Go's Proto and Status, the fields with canonicalized names sorted
// by name, repeated fields in order, Transfer-Encoding dropped and the
// body de-chunked; the request line as HTTP/1.1, Host, then the fields the
// crawler set, sorted by name. An HTTP/2 exchange is then written in the
// form above with its fields sorted by name, lower-cased.
//
// # Duplicates and memory
//
// The payload-digest → (record id, URI, date) map and the docId → first
// response map live in the crawl's store (Options.Index: the meta namespace
// keys warc/digest/<digest> and warc/doc/<docId>), not in RAM, so they
// survive a resumed crawl and do not grow the heap; RAM holds the digests
// being written at this moment and at most 256 entries not yet saved
// (saved in one transaction per 256, and at Close). A response's records
// are written before its digest is recorded, and before the crawler
// commits the page, so a crash never leaves a revisit pointing at a record
// that is not in a file (a page in flight at a crash is fetched and
// archived again on resume). Each save also records, per run
// (warc/run/<host>-<pid>), the file position before which every response's
// entry is saved, so that the entries a kill -9 loses can be rebuilt.
//
// # Crash repair
//
// Open repairs the .open files in Dir whose name carries this host and
// the id of a process that no longer runs (a crawl killed with -9; files
// of other hosts or of live processes are left alone): each is cut back to
// its last whole gzip member and whole exchange (a request whose response
// was never written goes too), its CDXJ index is written, and it is
// renamed without ".open" (removed if no whole record is left). The
// payload-digest entries that run had not saved are rebuilt from the
// response records of its files past its last saved position (at most a
// batch and the responses then being written), so a resumed crawl writes
// revisits, not responses, for payloads already archived. Repaired
// reports what was done; the crawl logs it ("WARC repaired"). The
// document map is not rebuilt: a near-duplicate whose original's entry was
// lost gets a metadata record without the original's record id.
//
// # Caveats
//
//   - A near-duplicate judged while its original's response is still being
//     written waits (in memory) and its metadata record is written right
//     after the original's; if the original was stored by a crawl without
//     WARC output, its metadata record is written at Close (or when more
//     than 4096 wait) without bloomcrawl-original-record-id.
//   - The export from a store (`bloomcrawl query export --warc`) cannot
//     rebuild any of this unless the crawl kept its fetches in the store
//     (store.keep_raw: a Keeper ahead of the Writer; ExportRaw replays
//     them through a Writer and writes the same records, see keep.go);
//     otherwise the store keeps no headers and no raw bytes.
//   - A Writer serializes file writes; records are compressed in the
//     calling goroutine.
package archive
