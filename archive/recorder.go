package archive

import (
	"bytes"
	"compress/gzip"
	"io"
	"net/http"
	"net/http/httptrace"
	"strings"
	"sync"
	"time"
)

// Exchange is one HTTP request and the response to it, as a Recorder saw
// them. See the package documentation for how they differ from the bytes
// on the wire.
type Exchange struct {
	URL      string    // request URL (WARC-Target-URI)
	Date     time.Time // when the request was sent (UTC)
	IP       string    // the server's IP address ("" if unknown)
	Request  []byte    // request line and header block, ending in CRLF CRLF
	Response []byte    // status line and header block, ending in CRLF CRLF
	Body     []byte    // the response body as read: after transfer decoding, before content decoding
	// RawBody is the body as received when it differs from Body (a
	// chunked body, chunk framing included, when the connection was
	// tapped); nil otherwise.
	RawBody []byte
	// Truncated is the WARC-Truncated reason when Body is not the whole
	// entity: "length" (refused for its size), "unspecified" (the reader
	// stopped early, e.g. a response aborted after its headers); "" when
	// Body was read to its end.
	Truncated string
	// Status is the HTTP status code.
	Status int
	// Protocol is the WARC-Protocol values of the exchange's records,
	// highest layer first: "h2" and the TLS version ("tls/1.3") for
	// HTTP/2, whose heads are then written as HTTP/1.1 messages; nil for
	// HTTP/1.x, which the heads state.
	Protocol []string
}

// Recorder is an http.RoundTripper that captures every exchange made
// through it. It asks for gzip itself (as http.Transport does when a
// request names no Accept-Encoding) so that it can keep the compressed
// bytes as received, and decompresses for its caller exactly as
// http.Transport would (Content-Encoding and Content-Length removed,
// Response.Uncompressed set): the caller sees what it would see without a
// Recorder.
type Recorder struct {
	// Next makes the requests. Required.
	Next http.RoundTripper
	// Done is called once per exchange with a response, when its body is
	// closed, from the goroutine that closes it. origin is the request
	// that started the redirect chain the exchange belongs to (the
	// exchange's own request if it is the first). Required.
	Done func(origin *http.Request, ex *Exchange)

	once sync.Once
	next http.RoundTripper // Next, tapped (see tap.go) when it can be
}

// RoundTrip implements http.RoundTripper.
func (r *Recorder) RoundTrip(req *http.Request) (*http.Response, error) {
	r.once.Do(func() { r.next = tapped(r.Next) })
	ex := &Exchange{URL: req.URL.String(), Date: time.Now().UTC()}
	var ipMu sync.Mutex
	var wire *exchangeTap
	var wire2 *h2Conn
	trace := &httptrace.ClientTrace{GotConn: func(ci httptrace.GotConnInfo) {
		ipMu.Lock()
		defer ipMu.Unlock()
		if a := ci.Conn.RemoteAddr(); a != nil {
			ex.IP = hostOnly(a.String())
		}
		switch c := ci.Conn.(type) {
		case *tapConn:
			wire = c.begin()
		case *h2Conn:
			wire2 = c
		}
	}}
	out := req.Clone(httptrace.WithClientTrace(req.Context(), trace))
	askedGzip := false
	if out.Header.Get("Accept-Encoding") == "" && out.Header.Get("Range") == "" && out.Method != http.MethodHead && !disablesCompression(r.Next) {
		out.Header.Set("Accept-Encoding", "gzip")
		askedGzip = true
	}
	ex.Request = requestHead(out)
	resp, err := r.next.RoundTrip(out)
	if err != nil {
		return resp, err
	}
	ipMu.Lock()
	ex.Status = resp.StatusCode
	ex.Response = responseHead(resp)
	var raw func() []byte
	if resp.ProtoMajor == 2 {
		ex.Request, ex.Response = h2Heads(out, resp)
		if wire2 != nil {
			if rq, rs := wire2.heads(out); rs != nil {
				ex.Request, ex.Response = rq, rs
			}
		}
		ex.Protocol = []string{"h2"}
		if resp.TLS != nil && tlsName(resp.TLS.Version) != "" {
			ex.Protocol = append(ex.Protocol, tlsName(resp.TLS.Version))
		}
	} else if wire != nil && resp.ProtoMajor == 1 {
		chunked := len(resp.TransferEncoding) > 0 && resp.TransferEncoding[0] == "chunked"
		rq, rs, at := wire.heads(resp.StatusCode, chunked)
		if rq != nil {
			ex.Request = rq
		}
		if rs != nil {
			ex.Response = rs
			if chunked {
				w := wire
				raw = func() []byte { return w.rest(at) }
			}
		}
	}
	ipMu.Unlock()
	origin := req
	for origin.Response != nil && origin.Response.Request != nil {
		origin = origin.Response.Request
	}
	body := &recBody{rc: resp.Body, ex: ex, empty: resp.ContentLength == 0, raw: raw, done: func(ex *Exchange) { r.Done(origin, ex) }}
	resp.Body = body
	if askedGzip && strings.EqualFold(resp.Header.Get("Content-Encoding"), "gzip") {
		resp.Header.Del("Content-Encoding")
		resp.Header.Del("Content-Length")
		resp.ContentLength = -1
		resp.Uncompressed = true
		resp.Body = &gunzipBody{body: body}
	}
	return resp, nil
}

func disablesCompression(rt http.RoundTripper) bool {
	t, ok := rt.(*http.Transport)
	return ok && t.DisableCompression
}

// requestHead is the request line and headers as net/http writes them:
// Host first, then the other fields sorted by name (net/http also sends
// them sorted, but puts User-Agent right after Host).
func requestHead(req *http.Request) []byte {
	var b bytes.Buffer
	b.WriteString(req.Method + " " + req.URL.RequestURI() + " HTTP/1.1\r\n")
	host := req.Host
	if host == "" {
		host = req.URL.Host
	}
	b.WriteString("Host: " + host + "\r\n")
	_ = req.Header.Write(&b)
	b.WriteString("\r\n")
	return b.Bytes()
}

// responseHead is the status line and the header fields net/http kept:
// names canonicalized, fields sorted by name, Transfer-Encoding (already
// decoded in the body) left out.
func responseHead(resp *http.Response) []byte {
	var b bytes.Buffer
	proto := resp.Proto
	if proto == "" {
		proto = "HTTP/1.1"
	}
	code := itoa3(resp.StatusCode)
	status := resp.Status // "200 OK" as received
	if !strings.HasPrefix(status, code) {
		status = strings.TrimSpace(code + " " + http.StatusText(resp.StatusCode))
	}
	b.WriteString(proto + " " + status + "\r\n")
	_ = resp.Header.WriteSubset(&b, map[string]bool{"Transfer-Encoding": true})
	b.WriteString("\r\n")
	return b.Bytes()
}

func itoa3(code int) string {
	return string([]byte{byte('0' + code/100%10), byte('0' + code/10%10), byte('0' + code%10)})
}

func hostOnly(addr string) string {
	if i := strings.LastIndexByte(addr, ':'); i >= 0 {
		addr = addr[:i]
	}
	return strings.Trim(addr, "[]")
}

// recBody keeps a copy of every byte its reader reads and hands the
// exchange over when it is closed.
type recBody struct {
	rc    io.ReadCloser
	buf   bytes.Buffer
	ex    *Exchange
	eof   bool
	empty bool          // Content-Length: 0
	raw   func() []byte // the body as received, when it is not buf (chunked)
	once  sync.Once
	done  func(*Exchange)
}

func (b *recBody) Read(p []byte) (int, error) {
	n, err := b.rc.Read(p)
	b.buf.Write(p[:n])
	if err == io.EOF {
		b.eof = true
	}
	return n, err
}

func (b *recBody) Close() error {
	err := b.rc.Close()
	b.once.Do(func() {
		b.ex.Body = b.buf.Bytes()
		if b.raw != nil {
			b.ex.RawBody = bytes.Clone(b.raw())
		}
		if !b.eof && !(b.empty && len(b.ex.Body) == 0) {
			b.ex.Truncated = "unspecified"
		}
		b.done(b.ex)
	})
	return err
}

// gunzipBody decompresses a recorded body lazily (on first Read), as
// http.Transport's own gzip reader does.
type gunzipBody struct {
	body *recBody
	zr   *gzip.Reader
	err  error
}

func (g *gunzipBody) Read(p []byte) (int, error) {
	if g.zr == nil && g.err == nil {
		g.zr, g.err = gzip.NewReader(g.body)
	}
	if g.err != nil {
		return 0, g.err
	}
	return g.zr.Read(p)
}

func (g *gunzipBody) Close() error { return g.body.Close() }
