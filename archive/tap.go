package archive

import (
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"sync"
	"time"

	"golang.org/x/net/http2"
)

// Capture of the bytes on the wire. Go's net/http parses a response before
// anyone sees it, so a Recorder whose Next is an *http.Transport uses a
// clone of it whose connections are tapped: plain TCP connections, and TLS
// connections that negotiated HTTP/1.x (the Recorder then does the TLS
// handshake itself, with the transport's TLS configuration). For each
// exchange the tap keeps the request as written and the response's bytes
// from its status line on: the final status line and header block exactly
// as received (order, case, repeated fields; interim 1xx responses
// skipped), and for a chunked body the body as received (chunk framing
// included). HTTP/2 connections are tapped too (h2tap.go: their header
// blocks decoded, in order). Transports that are not an *http.Transport,
// or that use a proxy or their own dialers, are not tapped: their records
// are rebuilt from what net/http kept (see the package documentation).

// exchangeTap holds one exchange's bytes on one connection.
type exchangeTap struct {
	mu      sync.Mutex
	r, w    bytes.Buffer
	reading bool // keep what is read
	writing bool // keep what is written
}

func (x *exchangeTap) read(p []byte) {
	x.mu.Lock()
	if x.reading {
		x.r.Write(p)
	}
	x.mu.Unlock()
}

func (x *exchangeTap) wrote(p []byte) {
	x.mu.Lock()
	if x.writing {
		x.w.Write(p)
	}
	x.mu.Unlock()
}

// heads returns the request head as written and the final response head
// as read (ending in CRLF CRLF), or nil for either when the bytes do not
// parse as that (status must be the response's status code); keep tells
// whether to go on keeping what is read (a chunked body), else reading
// stops. The offset of the body in what is read is returned too.
func (x *exchangeTap) heads(status int, keep bool) (req, resp []byte, bodyAt int) {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.writing = false
	w := x.w.Bytes()
	if i := bytes.Index(w, []byte("\r\n\r\n")); i > 0 && bytes.IndexByte(w[:i], ' ') > 0 {
		req = bytes.Clone(w[:i+4])
	}
	x.w = bytes.Buffer{}
	r := x.r.Bytes()
	at := 0
	for {
		i := bytes.Index(r[at:], []byte("\r\n\r\n"))
		if i < 0 {
			break
		}
		head := r[at : at+i+4]
		code := statusOf(head)
		if code >= 100 && code < 200 && code != http.StatusSwitchingProtocols && code != status {
			at += i + 4 // an interim response
			continue
		}
		if code == status {
			resp = bytes.Clone(head)
			bodyAt = at + i + 4
		}
		break
	}
	if resp == nil || !keep {
		x.reading = false
		x.r = bytes.Buffer{}
	}
	return req, resp, bodyAt
}

// rest returns what was read from offset on and stops keeping.
func (x *exchangeTap) rest(at int) []byte {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.reading = false
	if at > x.r.Len() {
		return nil
	}
	return x.r.Bytes()[at:]
}

// statusOf is the status code of an HTTP/1.x status line, or 0.
func statusOf(head []byte) int {
	if !bytes.HasPrefix(head, []byte("HTTP/1.")) || len(head) < 12 || head[8] != ' ' {
		return 0
	}
	code, err := strconv.Atoi(string(head[9:12]))
	if err != nil {
		return 0
	}
	return code
}

// tapConn is a connection whose bytes go to the current exchange's tap.
type tapConn struct {
	net.Conn
	mu  sync.Mutex
	cur *exchangeTap
}

// begin starts a new exchange on c: what is written and read from now on
// is kept in the returned tap. The transport calls it (through
// httptrace's GotConn) before writing a request; the previous exchange's
// bytes were all read before the connection was handed out again.
func (c *tapConn) begin() *exchangeTap {
	x := &exchangeTap{reading: true, writing: true}
	c.mu.Lock()
	c.cur = x
	c.mu.Unlock()
	return x
}

func (c *tapConn) tap() *exchangeTap {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.cur
}

func (c *tapConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	if n > 0 {
		if x := c.tap(); x != nil {
			x.read(p[:n])
		}
	}
	return n, err
}

// Write keeps p before writing it: once written, the response may be
// read and the exchange recorded before a Write returns.
func (c *tapConn) Write(p []byte) (int, error) {
	if x := c.tap(); x != nil {
		x.wrote(p)
	}
	return c.Conn.Write(p)
}

// tapped returns a RoundTripper that makes rt's requests over tapped
// connections, or rt itself when it cannot be tapped (not an
// *http.Transport, or one with a proxy or its own TLS dialer).
//
// HTTP/1.x goes through a clone of rt whose connections are tapConns. A
// TLS connection that negotiates HTTP/2 cannot go back to that clone
// wrapped (net/http speaks HTTP/2 only over a *tls.Conn), so the clone's
// dialer hands it over to an HTTP/2 transport of golang.org/x/net/http2
// (which takes any net.Conn) as an h2Conn, and the host's requests go
// there from then on.
func tapped(rt http.RoundTripper) http.RoundTripper {
	t, ok := rt.(*http.Transport)
	if !ok || t.Proxy != nil || t.DialTLSContext != nil || t.DialTLS != nil || t.Dial != nil { //nolint:staticcheck // Dial and DialTLS are deprecated, not gone
		return rt
	}
	x := &tapTransport{h1: t.Clone(), spare: map[string]*tls.Conn{}}
	dial := t.DialContext
	if dial == nil {
		dial = (&net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}).DialContext
	}
	x.h1.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
		conn, err := dial(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		return &tapConn{Conn: conn}, nil
	}
	protos := []string{"http/1.1"}
	if t.ForceAttemptHTTP2 {
		protos = []string{"h2", "http/1.1"}
	}
	if t.TLSClientConfig != nil && len(t.TLSClientConfig.NextProtos) > 0 {
		protos = t.TLSClientConfig.NextProtos
	}
	x.handshake = func(ctx context.Context, network, addr string, protos []string) (*tls.Conn, error) {
		conn, err := dial(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		cfg := &tls.Config{}
		if t.TLSClientConfig != nil {
			cfg = t.TLSClientConfig.Clone()
		}
		if cfg.ServerName == "" {
			host, _, err := net.SplitHostPort(addr)
			if err != nil {
				host = addr
			}
			cfg.ServerName = host
		}
		cfg.NextProtos = protos
		if d := t.TLSHandshakeTimeout; d > 0 {
			var cancel context.CancelFunc
			ctx, cancel = context.WithTimeout(ctx, d)
			defer cancel()
		}
		tc := tls.Client(conn, cfg)
		if err := tc.HandshakeContext(ctx); err != nil {
			conn.Close()
			return nil, err
		}
		return tc, nil
	}
	x.h1.DialTLSContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
		tc, err := x.handshake(ctx, network, addr, protos)
		if err != nil {
			return nil, err
		}
		if tc.ConnectionState().NegotiatedProtocol == "h2" {
			x.handOver(addr, tc)
			return nil, errHTTP2
		}
		return &tapConn{Conn: tc}, nil
	}
	if slices.Contains(protos, "h2") {
		x.h2 = &http2.Transport{
			DisableCompression: t.DisableCompression,
			IdleConnTimeout:    t.IdleConnTimeout,
			DialTLSContext: func(ctx context.Context, network, addr string, _ *tls.Config) (net.Conn, error) {
				tc := x.takeSpare(addr)
				if tc == nil {
					var err error
					if tc, err = x.handshake(ctx, network, addr, []string{"h2"}); err != nil {
						return nil, err
					}
					if p := tc.ConnectionState().NegotiatedProtocol; p != "h2" {
						tc.Close()
						x.h2s.Delete(addr) // its next requests go to h1 again
						return nil, fmt.Errorf("archive: %s negotiated %q, not h2 any more", addr, p)
					}
				}
				return newH2Conn(tc), nil
			},
		}
		if t.MaxResponseHeaderBytes > 0 {
			x.h2.MaxHeaderListSize = uint32(min(t.MaxResponseHeaderBytes, 1<<32-1))
		}
	}
	return x
}

// errHTTP2 is what the HTTP/1.x clone's TLS dialer returns when the
// connection negotiated HTTP/2: tapTransport then sends the request (not
// yet written) to its HTTP/2 transport.
var errHTTP2 = errors.New("archive: the connection negotiated HTTP/2")

// tapTransport is tapped's RoundTripper: HTTP/1.x through h1, HTTP/2
// through h2 (nil when rt offers no HTTP/2).
type tapTransport struct {
	h1        *http.Transport
	h2        *http2.Transport
	handshake func(ctx context.Context, network, addr string, protos []string) (*tls.Conn, error)

	mu    sync.Mutex
	h2s   sync.Map             // "host:port" → true: it negotiated HTTP/2
	spare map[string]*tls.Conn // an HTTP/2 connection h1 dialed, for h2's dialer
}

func (x *tapTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if x.h2 != nil && req.URL.Scheme == "https" {
		if _, ok := x.h2s.Load(canonicalAddr(req.URL)); ok {
			return x.h2.RoundTrip(req)
		}
	}
	resp, err := x.h1.RoundTrip(req)
	if err != nil && errors.Is(err, errHTTP2) && x.h2 != nil {
		return x.h2.RoundTrip(req)
	}
	return resp, err
}

// CloseIdleConnections closes both transports' idle connections.
func (x *tapTransport) CloseIdleConnections() {
	x.h1.CloseIdleConnections()
	if x.h2 != nil {
		x.h2.CloseIdleConnections()
	}
	x.mu.Lock()
	for addr, tc := range x.spare {
		tc.Close()
		delete(x.spare, addr)
	}
	x.mu.Unlock()
}

// handOver keeps tc, an HTTP/2 connection to addr, for h2's dialer (one
// per address: another is closed) and sends addr's requests to h2.
func (x *tapTransport) handOver(addr string, tc *tls.Conn) {
	x.h2s.Store(addr, true)
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.spare[addr] != nil || x.h2 == nil {
		tc.Close()
		return
	}
	x.spare[addr] = tc
}

func (x *tapTransport) takeSpare(addr string) *tls.Conn {
	x.mu.Lock()
	defer x.mu.Unlock()
	tc := x.spare[addr]
	delete(x.spare, addr)
	return tc
}

// canonicalAddr is u's host:port, the port defaulted from the scheme, as
// the transports' dialers get it.
func canonicalAddr(u *url.URL) string {
	port := u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[u.Scheme]
	}
	return net.JoinHostPort(u.Hostname(), port)
}
