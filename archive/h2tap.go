package archive

import (
	"bytes"
	"crypto/tls"
	"encoding/binary"
	"net"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"sync"

	"golang.org/x/net/http2/hpack"
)

// HTTP/2 exchanges are recorded as the WARC HTTP/2 extension proposes
// (iipc/warc-specifications, "WARC Extensions for HTTP/2" and the adopted
// WARC-Protocol field): the request and the response as HTTP/1.1 messages
// — "GET /path HTTP/1.1", a host field from :authority, the other fields;
// "HTTP/1.1 200 " with an empty reason phrase, which HTTP/2 does not
// carry — with the header fields as the HPACK blocks carried them (their
// order, lower-case names, repeated fields), and WARC-Protocol: h2 plus the
// TLS version on both records. The payload is the DATA frames' bytes,
// which is also the block's body (HTTP/2 has no transfer coding).
//
// The field order is read off the connection: h2Conn passively parses
// the frames of a tapped HTTP/2 connection in both directions and decodes
// every header block with its own HPACK decoder per direction (the dynamic
// table is per connection and direction, so every block is decoded, in
// order, whether or not it is recorded). net/http's HTTP/2 client keeps
// neither the order nor an encoder hook, so without the tap (a proxy, a
// transport that cannot be tapped, a block that did not decode) the heads
// are rebuilt from Go's maps: names lower-cased, fields sorted.

// h2Conn is a TLS connection that negotiated HTTP/2, tapped.
type h2Conn struct {
	net.Conn
	tlsVersion string // "tls/1.3"

	mu      sync.Mutex
	out, in h2Parser             // client → server, server → client
	streams map[uint32]*h2Stream // by stream id, until claimed
	order   []uint32             // stream ids in the order first seen
}

// h2Stream is what the tap decoded of one stream.
type h2Stream struct {
	req, resp []hpack.HeaderField // the request's block; the final (non-1xx) response's block
}

// maxH2Streams bounds the streams an h2Conn keeps unclaimed (a request
// whose RoundTrip failed is never claimed).
const maxH2Streams = 256

func newH2Conn(c *tls.Conn) *h2Conn {
	x := &h2Conn{Conn: c, tlsVersion: tlsName(c.ConnectionState().Version), streams: map[uint32]*h2Stream{}}
	x.out.preface = len(http2Preface)
	x.out.dec = newH2Decoder()
	x.in.dec = newH2Decoder()
	x.out.block = func(id uint32, f []hpack.HeaderField) { x.stream(id).req = f }
	x.in.block = func(id uint32, f []hpack.HeaderField) {
		s := x.stream(id)
		if s.resp == nil && !interim(f) {
			s.resp = f
		}
	}
	return x
}

const http2Preface = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"

func newH2Decoder() *hpack.Decoder {
	d := hpack.NewDecoder(4096, nil) // every connection starts with a 4096-byte table
	// the peer's encoder may resize it up to what the other side's
	// SETTINGS allowed; the tap trusts the connection it watches
	d.SetAllowedMaxDynamicTableSize(1 << 24)
	return d
}

// ConnectionState is the TLS connection's: the HTTP/2 transport sets
// Response.TLS from it.
func (x *h2Conn) ConnectionState() tls.ConnectionState {
	return x.Conn.(*tls.Conn).ConnectionState()
}

func (x *h2Conn) Read(p []byte) (int, error) {
	n, err := x.Conn.Read(p)
	if n > 0 {
		x.mu.Lock()
		x.in.feed(p[:n])
		x.mu.Unlock()
	}
	return n, err
}

// Write parses p before writing it: once written, the response may be
// read before a Write returns.
func (x *h2Conn) Write(p []byte) (int, error) {
	x.mu.Lock()
	x.out.feed(p)
	x.mu.Unlock()
	return x.Conn.Write(p)
}

// stream returns the stream id's entry, adding it (and dropping the oldest
// unclaimed one past maxH2Streams). Called with mu held.
func (x *h2Conn) stream(id uint32) *h2Stream {
	if s, ok := x.streams[id]; ok {
		return s
	}
	s := &h2Stream{}
	x.streams[id] = s
	x.order = append(x.order, id)
	for len(x.streams) > maxH2Streams && len(x.order) > 0 {
		delete(x.streams, x.order[0])
		x.order = x.order[1:]
	}
	return s
}

// heads returns the request and response heads of the earliest unclaimed
// stream whose request was req (method, authority, path) and whose final
// response has arrived, and claims it; nil if there is none (or the tap
// could not decode the connection).
func (x *h2Conn) heads(req *http.Request) (reqHead, respHead []byte) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.in.broken || x.out.broken {
		return nil, nil
	}
	host := req.Host
	if host == "" {
		host = req.URL.Host
	}
	for i, id := range x.order {
		s := x.streams[id]
		if s == nil || s.req == nil || s.resp == nil {
			continue
		}
		if pseudo(s.req, ":method") != req.Method || pseudo(s.req, ":authority") != host || pseudo(s.req, ":path") != req.URL.RequestURI() {
			continue
		}
		delete(x.streams, id)
		x.order = append(x.order[:i:i], x.order[i+1:]...)
		return h2RequestHead(s.req), h2ResponseHead(s.resp)
	}
	return nil, nil
}

func pseudo(f []hpack.HeaderField, name string) string {
	for _, h := range f {
		if h.Name == name {
			return h.Value
		}
	}
	return ""
}

// interim reports whether a response block is a 1xx response's.
func interim(f []hpack.HeaderField) bool {
	s := pseudo(f, ":status")
	return len(s) == 3 && s[0] == '1'
}

// h2RequestHead writes a request block as an HTTP/1.1 request head: the
// request line from :method and :path, a host field from :authority, then
// the other fields as sent.
func h2RequestHead(f []hpack.HeaderField) []byte {
	var b bytes.Buffer
	b.WriteString(pseudo(f, ":method") + " " + pseudo(f, ":path") + " HTTP/1.1\r\n")
	if a := pseudo(f, ":authority"); a != "" {
		b.WriteString("host: " + a + "\r\n")
	}
	writeFields(&b, f)
	b.WriteString("\r\n")
	return b.Bytes()
}

// h2ResponseHead writes a response block as an HTTP/1.1 response head:
// "HTTP/1.1 STATUS " (HTTP/2 has no reason phrase), then the fields as
// received.
func h2ResponseHead(f []hpack.HeaderField) []byte {
	var b bytes.Buffer
	b.WriteString("HTTP/1.1 " + pseudo(f, ":status") + " \r\n")
	writeFields(&b, f)
	b.WriteString("\r\n")
	return b.Bytes()
}

// writeFields writes the regular (not pseudo-header) fields of f.
func writeFields(b *bytes.Buffer, f []hpack.HeaderField) {
	for _, h := range f {
		if strings.HasPrefix(h.Name, ":") {
			continue
		}
		b.WriteString(h.Name + ": " + h.Value + "\r\n")
	}
}

// h2Parser follows one direction of an HTTP/2 connection: it skips the
// client preface, splits frames, skips their payloads except header
// blocks (HEADERS, CONTINUATION, PUSH_PROMISE), which it decodes and
// hands to block. Anything it cannot parse marks it broken: the exchanges
// of the connection are then rebuilt from net/http's maps.
type h2Parser struct {
	preface int    // bytes of the client preface still to skip
	buf     []byte // an incomplete frame header or header-block frame
	skip    int    // payload bytes of a skipped frame still to come
	dec     *hpack.Decoder
	frag    []byte // header block fragments so far
	fragID  uint32 // their stream; 0 when none is open
	push    bool   // the open block is a PUSH_PROMISE's (decoded, not kept)
	block   func(stream uint32, fields []hpack.HeaderField)
	broken  bool
}

const (
	frameHeaders, framePushPromise, frameContinuation = 1, 5, 9
	flagEndHeaders, flagPadded, flagPriority          = 0x4, 0x8, 0x20
	maxHeaderFrame                                    = 1 << 20
)

func (p *h2Parser) feed(b []byte) {
	for len(b) > 0 && !p.broken {
		if p.preface > 0 {
			n := min(p.preface, len(b))
			p.preface -= n
			b = b[n:]
			continue
		}
		if p.skip > 0 {
			n := min(p.skip, len(b))
			p.skip -= n
			b = b[n:]
			continue
		}
		if len(p.buf) < 9 {
			n := min(9-len(p.buf), len(b))
			p.buf = append(p.buf, b[:n]...)
			b = b[n:]
			if len(p.buf) < 9 {
				return
			}
		}
		length := int(p.buf[0])<<16 | int(p.buf[1])<<8 | int(p.buf[2])
		typ := p.buf[3]
		if typ != frameHeaders && typ != framePushPromise && typ != frameContinuation {
			if p.fragID != 0 { // a header block is interrupted only by its CONTINUATION frames
				p.broken = true
				return
			}
			p.skip = length
			p.buf = p.buf[:0]
			continue
		}
		if length > maxHeaderFrame {
			p.broken = true
			return
		}
		n := min(9+length-len(p.buf), len(b))
		p.buf = append(p.buf, b[:n]...)
		b = b[n:]
		if len(p.buf) < 9+length {
			return
		}
		p.frame(p.buf[3], p.buf[4], binary.BigEndian.Uint32(p.buf[5:9])&(1<<31-1), p.buf[9:])
		p.buf = p.buf[:0]
	}
}

// frame handles one header-block frame.
func (p *h2Parser) frame(typ, flags byte, id uint32, payload []byte) {
	switch typ {
	case frameHeaders, framePushPromise:
		if p.fragID != 0 || id == 0 {
			p.broken = true
			return
		}
		if flags&flagPadded != 0 {
			if len(payload) < 1 || int(payload[0]) >= len(payload) {
				p.broken = true
				return
			}
			payload = payload[1 : len(payload)-int(payload[0])]
		}
		skip := 0
		if typ == frameHeaders && flags&flagPriority != 0 {
			skip = 5
		} else if typ == framePushPromise {
			skip = 4 // the promised stream id
		}
		if len(payload) < skip {
			p.broken = true
			return
		}
		p.frag = append(p.frag[:0], payload[skip:]...)
		p.fragID, p.push = id, typ == framePushPromise
	case frameContinuation:
		if id != p.fragID || id == 0 {
			p.broken = true
			return
		}
		p.frag = append(p.frag, payload...)
	}
	if flags&flagEndHeaders == 0 {
		return
	}
	fields, err := p.dec.DecodeFull(p.frag)
	if err != nil {
		p.broken = true
		return
	}
	if !p.push {
		p.block(p.fragID, fields)
	}
	p.fragID, p.frag = 0, p.frag[:0]
}

// tlsName is the WARC-Protocol name of a TLS version.
func tlsName(v uint16) string {
	switch v {
	case tls.VersionTLS10:
		return "tls/1.0"
	case tls.VersionTLS11:
		return "tls/1.1"
	case tls.VersionTLS12:
		return "tls/1.2"
	case tls.VersionTLS13:
		return "tls/1.3"
	}
	return ""
}

// h2Heads rebuilds an HTTP/2 exchange's heads from net/http's maps, as
// HTTP/1.1 messages with lower-case names (HTTP/2's), fields sorted by
// name: for when the connection was not tapped.
func h2Heads(req *http.Request, resp *http.Response) (reqHead, respHead []byte) {
	var q bytes.Buffer
	q.WriteString(req.Method + " " + req.URL.RequestURI() + " HTTP/1.1\r\n")
	host := req.Host
	if host == "" {
		host = req.URL.Host
	}
	q.WriteString("host: " + host + "\r\n")
	lowerFields(&q, req.Header)
	q.WriteString("\r\n")
	var s bytes.Buffer
	s.WriteString("HTTP/1.1 " + strconv.Itoa(resp.StatusCode) + " \r\n")
	lowerFields(&s, resp.Header)
	s.WriteString("\r\n")
	return q.Bytes(), s.Bytes()
}

func lowerFields(b *bytes.Buffer, h http.Header) {
	names := make([]string, 0, len(h))
	for k := range h {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		for _, v := range h[k] {
			b.WriteString(strings.ToLower(k) + ": " + v + "\r\n")
		}
	}
}
