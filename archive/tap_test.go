package archive_test

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/bloomcrawl/bloomcrawl/archive"
	"github.com/bloomcrawl/bloomcrawl/lab/warccheck"
)

// rawServer answers each request on a connection with the next of
// answers, byte for byte, and keeps the request heads it read.
func rawServer(t *testing.T, answers map[string]string) (addr string, requests func() []string) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	var mu sync.Mutex
	var got []string
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				br := bufio.NewReader(c)
				for {
					var head strings.Builder
					for {
						line, err := br.ReadString('\n')
						if err != nil {
							return
						}
						head.WriteString(line)
						if line == "\r\n" {
							break
						}
					}
					mu.Lock()
					got = append(got, head.String())
					mu.Unlock()
					path := strings.Fields(head.String())[1]
					if _, err := io.WriteString(c, answers[path]); err != nil {
						return
					}
				}
			}()
		}
	}()
	return ln.Addr().String(), func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), got...)
	}
}

// TestRecorderRecordsAsReceived: over a tapped connection, the request head
// is recorded as written and the response head exactly as received (field
// order, case and repeats; an interim 103 skipped), a chunked body as
// received, across requests reusing one connection; over TLS with HTTP/1.1
// too; an HTTP/2 response is written as an HTTP/1.1 head with its fields
// as received (TestRecorderHTTP2 has the details).
func TestRecorderRecordsAsReceived(t *testing.T) {
	odd := "HTTP/1.1 200 Fine Thanks\r\nx-lower: a\r\nContent-TYPE: text/html\r\nSet-Cookie: a=1\r\nzz-Last: z\r\nSet-Cookie: b=2\r\nContent-Length: 5\r\n\r\n"
	interim := "HTTP/1.1 103 Early Hints\r\nLink: </s.css>; rel=preload\r\n\r\n"
	final := "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n"
	chunkedHead := "HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\nContent-Type: text/plain\r\n\r\n"
	chunkedBody := "3\r\nabc\r\n4\r\ndefg\r\n0\r\n\r\n"
	addr, requests := rawServer(t, map[string]string{
		"/odd":     odd + "hello",
		"/interim": interim + final + "ok",
		"/chunked": chunkedHead + chunkedBody,
	})
	var mu sync.Mutex
	got := map[string]*archive.Exchange{}
	rec := &archive.Recorder{Next: &http.Transport{}, Done: func(_ *http.Request, ex *archive.Exchange) {
		mu.Lock()
		got[ex.URL] = ex
		mu.Unlock()
	}}
	c := &http.Client{Transport: rec}
	for _, p := range []string{"/odd", "/interim", "/chunked", "/odd"} {
		resp, err := c.Get("http://" + addr + p)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	mu.Lock()
	defer mu.Unlock()
	sent := requests()
	if len(sent) != 4 {
		t.Fatalf("server read %d requests", len(sent))
	}
	for i, c := range []struct{ path, head, body, raw string }{
		{"/odd", odd, "hello", ""},
		{"/interim", final, "ok", ""},
		{"/chunked", chunkedHead, "abcdefg", chunkedBody},
	} {
		ex := got["http://"+addr+c.path]
		if ex == nil {
			t.Fatalf("%s not recorded", c.path)
		}
		if string(ex.Response) != c.head || string(ex.Body) != c.body || string(ex.RawBody) != c.raw {
			t.Errorf("%s: recorded head %q body %q raw %q; want %q %q %q", c.path, ex.Response, ex.Body, ex.RawBody, c.head, c.body, c.raw)
		}
		want := sent[i]
		if c.path == "/odd" {
			want = sent[3] // fetched again last, on the same connection
		}
		if string(ex.Request) != want {
			t.Errorf("%s: recorded request %q, the server read %q", c.path, ex.Request, want)
		}
	}

	// Written to WARC: the records read back (payload digests of the
	// de-chunked body) and warcio indexes them as we do.
	db := mustOpen(t, t.TempDir())
	defer db.Close()
	w := open(t, t.TempDir(), db, 0)
	for _, p := range []string{"/odd", "/interim", "/chunked"} {
		if err := w.Write(context.Background(), archive.Fetch{Exchanges: []*archive.Exchange{got["http://"+addr+p]}}); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	recs := readAll(t, w.Files())
	if recs[6].Type != "response" || !bytes.HasSuffix(recs[6].Block, []byte(chunkedHead+chunkedBody)) || string(recs[6].Payload) != "abcdefg" {
		t.Errorf("chunked response record: block %q, payload %q", recs[6].Block, recs[6].Payload)
	}
	cdxj, err := os.ReadFile(archive.CDXJName(w.Files()[0]))
	if err != nil {
		t.Fatal(err)
	}
	want, err := warccheck.CDXJ(warccheck.Warcio(t), w.Files())
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range warccheck.CompareCDXJ(warccheck.SortedLines(cdxj), want) {
		t.Error(e)
	}

	// TLS: HTTP/1.1 and HTTP/2 are tapped.
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header()["x-odd-Case"] = []string{"1"} // written as is; net/http's client canonicalizes it
		w.Write([]byte("tls"))
	})
	for _, h2 := range []bool{false, true} {
		srv := httptest.NewUnstartedServer(h)
		srv.EnableHTTP2 = h2
		srv.StartTLS()
		defer srv.Close()
		var ex *archive.Exchange
		rec := &archive.Recorder{Next: srv.Client().Transport, Done: func(_ *http.Request, e *archive.Exchange) { ex = e }}
		resp, err := (&http.Client{Transport: rec}).Get(srv.URL + "/")
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if ex == nil {
			t.Fatal("not recorded")
		}
		want := "HTTP/1.1 200 OK\r\n"
		field := "x-odd-Case: 1\r\n"
		if h2 {
			want, field = "HTTP/1.1 200 \r\nx-odd-case: 1\r\n", "x-odd-case: 1\r\n"
		}
		if resp.ProtoMajor != map[bool]int{false: 1, true: 2}[h2] || !bytes.HasPrefix(ex.Response, []byte(want)) || !bytes.Contains(ex.Response, []byte(field)) || string(ex.Body) != "tls" {
			t.Errorf("TLS (HTTP/2 %v, got %s): head %q body %q; want %q and %q", h2, resp.Proto, ex.Response, ex.Body, want, field)
		}
	}
}
