package crawler

import (
	"bufio"
	"context"
	"encoding/base64"
	"encoding/binary"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// Test proxies on loopback that count what passes through them. Both map
// every host name they are asked for (site.invalid, example.com) to
// 127.0.0.1, keeping the port: a crawl of such a name reaches the site only
// through the proxy (the crawler cannot resolve .invalid itself), so every
// request the site answers went through it.

// httpProxy is an HTTP proxy: plain forwarding (GET http://...) and
// CONNECT tunnels, behind basic proxy authentication.
type httpProxy struct {
	srv        *httptest.Server
	user, pass string

	mu       sync.Mutex
	forwards map[string]int // requests forwarded, by target host
	connects map[string]int // tunnels opened, by target host
	denied   int            // requests without the right credentials
}

func newHTTPProxy(t *testing.T, user, pass string) *httpProxy {
	t.Helper()
	p := &httpProxy{user: user, pass: pass, forwards: map[string]int{}, connects: map[string]int{}}
	fwd := &http.Transport{Proxy: nil, DialContext: mappedDial}
	t.Cleanup(fwd.CloseIdleConnections)
	p.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		want := "Basic " + base64.StdEncoding.EncodeToString([]byte(p.user+":"+p.pass))
		if r.Header.Get("Proxy-Authorization") != want {
			p.mu.Lock()
			p.denied++
			p.mu.Unlock()
			w.Header().Set("Proxy-Authenticate", `Basic realm="test"`)
			http.Error(w, "proxy auth", http.StatusProxyAuthRequired)
			return
		}
		if r.Method == http.MethodConnect {
			p.mu.Lock()
			p.connects[r.Host]++
			p.mu.Unlock()
			up, err := mappedDial(r.Context(), "tcp", r.Host)
			if err != nil {
				http.Error(w, err.Error(), http.StatusBadGateway)
				return
			}
			conn, brw, err := http.NewResponseController(w).Hijack()
			if err != nil {
				up.Close()
				return
			}
			io.WriteString(conn, "HTTP/1.1 200 Connection established\r\n\r\n")
			pipe(conn, brw.Reader, up)
			return
		}
		p.mu.Lock()
		p.forwards[r.URL.Host]++
		p.mu.Unlock()
		out := r.Clone(r.Context())
		out.RequestURI = ""
		out.Header.Del("Proxy-Authorization")
		resp, err := fwd.RoundTrip(out)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		defer resp.Body.Close()
		for k, v := range resp.Header {
			w.Header()[k] = v
		}
		w.WriteHeader(resp.StatusCode)
		io.Copy(w, resp.Body)
	}))
	t.Cleanup(p.srv.Close)
	return p
}

func (p *httpProxy) url() string {
	return "http://" + p.user + ":" + p.pass + "@" + strings.TrimPrefix(p.srv.URL, "http://")
}

func (p *httpProxy) counts() (forwards, connects map[string]int, denied int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	f, c := map[string]int{}, map[string]int{}
	for k, v := range p.forwards {
		f[k] = v
	}
	for k, v := range p.connects {
		c[k] = v
	}
	return f, c, p.denied
}

// mappedDial dials addr with its host name replaced by 127.0.0.1 (an IP
// address is dialled as it is).
func mappedDial(ctx context.Context, network, addr string) (net.Conn, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, err
	}
	if net.ParseIP(host) == nil {
		host = "127.0.0.1"
	}
	var d net.Dialer
	return d.DialContext(ctx, network, net.JoinHostPort(host, port))
}

// pipe copies between a client connection (whose buffered bytes are in
// br) and an upstream one until either side closes, then closes both.
func pipe(conn net.Conn, br *bufio.Reader, up net.Conn) {
	done := make(chan struct{}, 2)
	go func() {
		io.Copy(up, br)
		up.(*net.TCPConn).CloseWrite()
		done <- struct{}{}
	}()
	go func() {
		io.Copy(conn, up)
		done <- struct{}{}
	}()
	<-done
	conn.Close()
	up.Close()
	<-done
}

// socksProxy is a SOCKS5 proxy (RFC 1928, CONNECT only) that requires
// user/password authentication (RFC 1929).
type socksProxy struct {
	ln         net.Listener
	user, pass string

	mu       sync.Mutex
	connects map[string]int // tunnels opened, by target host:port
	denied   int
	conns    map[net.Conn]struct{} // open client connections
	wg       sync.WaitGroup
}

func newSOCKSProxy(t *testing.T, user, pass string) *socksProxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &socksProxy{ln: ln, user: user, pass: pass, connects: map[string]int{}, conns: map[net.Conn]struct{}{}}
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			p.mu.Lock()
			p.conns[c] = struct{}{}
			p.mu.Unlock()
			p.wg.Add(1)
			go func() {
				defer p.wg.Done()
				p.serve(c)
				p.mu.Lock()
				delete(p.conns, c)
				p.mu.Unlock()
			}()
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		p.mu.Lock()
		for c := range p.conns {
			c.Close() // the crawler's idle keep-alive connections
		}
		p.mu.Unlock()
		p.wg.Wait()
	})
	return p
}

func (p *socksProxy) url() string {
	return "socks5://" + p.user + ":" + p.pass + "@" + p.ln.Addr().String()
}

func (p *socksProxy) serve(c net.Conn) {
	defer c.Close()
	c.SetDeadline(time.Now().Add(30 * time.Second))
	br := bufio.NewReader(c)
	b := make([]byte, 2)
	if _, err := io.ReadFull(br, b); err != nil || b[0] != 5 {
		return
	}
	methods := make([]byte, b[1])
	if _, err := io.ReadFull(br, methods); err != nil || !strings.ContainsRune(string(methods), 2) {
		c.Write([]byte{5, 0xff})
		return
	}
	c.Write([]byte{5, 2})
	readStr := func() string {
		n, err := br.ReadByte()
		if err != nil {
			return ""
		}
		s := make([]byte, n)
		io.ReadFull(br, s)
		return string(s)
	}
	if v, _ := br.ReadByte(); v != 1 {
		return
	}
	if u, pw := readStr(), readStr(); u != p.user || pw != p.pass {
		p.mu.Lock()
		p.denied++
		p.mu.Unlock()
		c.Write([]byte{1, 1})
		return
	}
	c.Write([]byte{1, 0})
	head := make([]byte, 4)
	if _, err := io.ReadFull(br, head); err != nil || head[1] != 1 {
		return
	}
	var host string
	switch head[3] {
	case 1:
		ip := make([]byte, 4)
		io.ReadFull(br, ip)
		host = net.IP(ip).String()
	case 3:
		host = readStr()
	case 4:
		ip := make([]byte, 16)
		io.ReadFull(br, ip)
		host = net.IP(ip).String()
	default:
		return
	}
	pb := make([]byte, 2)
	if _, err := io.ReadFull(br, pb); err != nil {
		return
	}
	addr := net.JoinHostPort(host, strconv.Itoa(int(binary.BigEndian.Uint16(pb))))
	up, err := mappedDial(context.Background(), "tcp", addr)
	if err != nil {
		c.Write([]byte{5, 5, 0, 1, 0, 0, 0, 0, 0, 0})
		return
	}
	p.mu.Lock()
	p.connects[addr]++
	p.mu.Unlock()
	c.Write([]byte{5, 0, 0, 1, 127, 0, 0, 1, 0, 0})
	c.SetDeadline(time.Time{})
	pipe(c, br, up)
}

func (p *socksProxy) counts() (map[string]int, int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := map[string]int{}
	for k, v := range p.connects {
		out[k] = v
	}
	return out, p.denied
}
