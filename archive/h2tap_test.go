package archive_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"

	"golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"

	"github.com/bloomcrawl/bloomcrawl/archive"
	"github.com/bloomcrawl/bloomcrawl/lab/warccheck"
)

// h2Answer is what rawH2Server sends for a request: an interim 103 block
// (padded), the final block (with a priority, split over HEADERS and
// CONTINUATION), the body in two DATA frames (the second padded).
type h2Answer struct {
	final []hpack.HeaderField // :status first
	body  string
}

// rawH2Server is an HTTP/2 server over TLS written frame by frame, so the
// test decides the order, case and repeats of the response fields and how
// they are framed; one HPACK encoder per connection, so later responses
// refer to the dynamic table. It keeps each request's fields as decoded.
// client is a transport that trusts its certificate and offers h2.
func rawH2Server(t *testing.T, answer func(path string) h2Answer) (base string, client *http.Transport, requests func() map[string][]hpack.HeaderField) {
	t.Helper()
	// borrow httptest's certificate and a client that trusts it
	cs := httptest.NewUnstartedServer(nil)
	cs.EnableHTTP2 = true
	cs.StartTLS()
	cert, client := cs.TLS.Certificates, cs.Client().Transport.(*http.Transport)
	cs.Close()
	ln, err := tls.Listen("tcp", "127.0.0.1:0", &tls.Config{Certificates: cert, NextProtos: []string{"h2"}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	var mu sync.Mutex
	got := map[string][]hpack.HeaderField{}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				preface := make([]byte, len(http2.ClientPreface))
				if _, err := io.ReadFull(c, preface); err != nil || string(preface) != http2.ClientPreface {
					return
				}
				fr := http2.NewFramer(c, c)
				fr.ReadMetaHeaders = hpack.NewDecoder(4096, nil)
				var wmu sync.Mutex // frames of one response are written together
				var hbuf bytes.Buffer
				enc := hpack.NewEncoder(&hbuf)
				block := func(f []hpack.HeaderField) []byte {
					hbuf.Reset()
					for _, h := range f {
						enc.WriteField(h)
					}
					return bytes.Clone(hbuf.Bytes())
				}
				if fr.WriteSettings() != nil {
					return
				}
				for {
					f, err := fr.ReadFrame()
					if err != nil {
						return
					}
					switch f := f.(type) {
					case *http2.SettingsFrame:
						if !f.IsAck() {
							wmu.Lock()
							fr.WriteSettingsAck()
							wmu.Unlock()
						}
					case *http2.PingFrame:
						if !f.IsAck() {
							wmu.Lock()
							fr.WritePing(true, f.Data)
							wmu.Unlock()
						}
					case *http2.MetaHeadersFrame:
						path := f.PseudoValue("path")
						mu.Lock()
						got[path] = f.Fields
						mu.Unlock()
						a := answer(path)
						id := f.StreamID
						wmu.Lock()
						fr.WriteHeaders(http2.HeadersFrameParam{StreamID: id, EndHeaders: true, PadLength: 7,
							BlockFragment: block([]hpack.HeaderField{{Name: ":status", Value: "103"}, {Name: "link", Value: "</s.css>; rel=preload"}})})
						fb := block(a.final)
						half := len(fb) / 2
						fr.WriteHeaders(http2.HeadersFrameParam{StreamID: id, BlockFragment: fb[:half],
							Priority: http2.PriorityParam{StreamDep: 0, Weight: 200}})
						fr.WriteContinuation(id, true, fb[half:])
						fr.WriteData(id, false, []byte(a.body[:len(a.body)/2]))
						fr.WriteDataPadded(id, true, []byte(a.body[len(a.body)/2:]), make([]byte, 5))
						wmu.Unlock()
					}
				}
			}()
		}
	}()
	return "https://" + ln.Addr().String(), client, func() map[string][]hpack.HeaderField {
		mu.Lock()
		defer mu.Unlock()
		return got
	}
}

// TestRecorderHTTP2: an HTTP/2 exchange is recorded as the WARC HTTP/2
// proposal says: the request and the final response (not the 103) as
// HTTP/1.1 heads, "HTTP/1.1 STATUS " with no reason phrase, every field in
// the order and with the repeats the HPACK blocks carried (across
// CONTINUATION frames, padding, priority and the dynamic table of one
// connection, concurrent streams matched to their requests), the payload
// as the DATA frames carried it; the WARC records have WARC-Protocol h2
// and tls/1.3, right digests, and warcio indexes them as we do.
func TestRecorderHTTP2(t *testing.T) {
	final := func(status, path, body string) []hpack.HeaderField {
		return []hpack.HeaderField{{Name: ":status", Value: status}, {Name: "x-first", Value: "1"}, {Name: "content-type", Value: "text/html"},
			{Name: "set-cookie", Value: "a=1"}, {Name: "zz-last", Value: "z"}, {Name: "set-cookie", Value: "b=2"},
			{Name: "x-path", Value: path}, {Name: "content-length", Value: fmt.Sprint(len(body))}}
	}
	answer := func(path string) h2Answer {
		body := "<p>page " + path + "</p>"
		status := "200"
		if strings.HasPrefix(path, "/missing") {
			status = "404"
		}
		return h2Answer{final: final(status, path, body), body: body}
	}
	base, client, requests := rawH2Server(t, answer)
	var mu sync.Mutex
	got := map[string]*archive.Exchange{}
	rec := &archive.Recorder{Next: client, Done: func(_ *http.Request, ex *archive.Exchange) {
		mu.Lock()
		got[ex.URL] = ex
		mu.Unlock()
	}}
	c := &http.Client{Transport: rec}
	get := func(path string) {
		resp, err := c.Get(base + path)
		if err != nil {
			t.Error(err)
			return
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.ProtoMajor != 2 {
			t.Errorf("%s: %s, want HTTP/2", path, resp.Proto)
		}
	}
	paths := []string{"/a", "/missing"}
	get("/a")
	get("/missing")
	var wg sync.WaitGroup
	for i := range 6 {
		p := fmt.Sprintf("/c?n=%d", i)
		paths = append(paths, p)
		wg.Add(1)
		go func() { defer wg.Done(); get(p) }()
	}
	wg.Wait()

	mu.Lock()
	defer mu.Unlock()
	sent := requests()
	host := strings.TrimPrefix(base, "https://")
	for _, p := range paths {
		ex := got[base+p]
		if ex == nil {
			t.Fatalf("%s not recorded", p)
		}
		a := answer(p)
		var want bytes.Buffer
		fmt.Fprintf(&want, "HTTP/1.1 %s \r\n", a.final[0].Value)
		for _, f := range a.final[1:] {
			fmt.Fprintf(&want, "%s: %s\r\n", f.Name, f.Value)
		}
		want.WriteString("\r\n")
		if string(ex.Response) != want.String() || string(ex.Body) != a.body || ex.RawBody != nil {
			t.Errorf("%s: recorded head %q body %q raw %q; want %q %q", p, ex.Response, ex.Body, ex.RawBody, want.String(), a.body)
		}
		want.Reset()
		fmt.Fprintf(&want, "GET %s HTTP/1.1\r\nhost: %s\r\n", p, host)
		for _, f := range sent[p] {
			if !strings.HasPrefix(f.Name, ":") {
				fmt.Fprintf(&want, "%s: %s\r\n", f.Name, f.Value)
			}
		}
		want.WriteString("\r\n")
		if string(ex.Request) != want.String() {
			t.Errorf("%s: recorded request %q, the server decoded %q", p, ex.Request, want.String())
		}
		if strings.Join(ex.Protocol, ",") != "h2,tls/1.3" {
			t.Errorf("%s: protocol %q", p, ex.Protocol)
		}
	}

	// Written to WARC: digests right, WARC-Protocol on request and
	// response, and warcio indexes them as we do.
	db := mustOpen(t, t.TempDir())
	defer db.Close()
	w := open(t, t.TempDir(), db, 0)
	for _, p := range paths {
		if err := w.Write(context.Background(), archive.Fetch{Exchanges: []*archive.Exchange{got[base+p]}}); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	recs := readAll(t, w.Files()) // checks the digests
	if len(recs) != 1+2*len(paths) {
		t.Fatalf("%d records", len(recs))
	}
	if r := recs[2]; r.Type != "response" || !bytes.HasPrefix(r.Block, []byte("HTTP/1.1 200 \r\nx-first: 1\r\n")) || string(r.Payload) != answer("/a").body || r.Status != 200 {
		t.Errorf("/a response record: block %q, payload %q, status %d", r.Block, r.Payload, r.Status)
	}
	raw := gunzipAll(t, w.Files()[0])
	if n := strings.Count(raw, "\r\nWARC-Protocol: h2\r\nWARC-Protocol: tls/1.3\r\n"); n != 2*len(paths) {
		t.Errorf("%d records with WARC-Protocol h2 then tls/1.3, want %d", n, 2*len(paths))
	}
	// warcio reads the repeated WARC-Protocol fields (and joins them)
	out, err := exec.Command(warccheck.Warcio(t), "index", w.Files()[0], "--fields", "warc-type,warc-protocol").CombinedOutput()
	if err != nil {
		t.Fatalf("warcio index: %v: %s", err, out)
	}
	if n := strings.Count(string(out), `"warc-protocol":"h2, tls/1.3"`); n != 2*len(paths) {
		t.Errorf("warcio index: %d records with WARC-Protocol h2, tls/1.3, want %d:\n%s", n, 2*len(paths), out)
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
	if len(want) != len(paths) {
		t.Errorf("warcio indexed %d lines, want %d", len(want), len(paths))
	}
}

// gunzipAll is a gzipped WARC file's text.
func gunzipAll(t *testing.T, name string) string {
	t.Helper()
	f, err := os.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(zr) // multistream: every member
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// roundTripper is a RoundTripper that is not an *http.Transport: a
// Recorder cannot tap it.
type roundTripper func(*http.Request) (*http.Response, error)

func (f roundTripper) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// BenchmarkRecorderHTTP2 is the cost of recording an HTTP/2 exchange (a
// 20 KB page from Go's HTTP/2 test server) with the connection tapped
// (frames parsed, header blocks decoded, served by x/net's HTTP/2
// transport) against untapped (net/http's own HTTP/2, heads rebuilt from
// its maps).
func BenchmarkRecorderHTTP2(b *testing.B) {
	page := bytes.Repeat([]byte("<p>twenty kilobytes of text</p>\n"), 20<<10/32)
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.Header().Set("Cache-Control", "max-age=60")
		w.Write(page)
	}))
	srv.EnableHTTP2 = true
	srv.StartTLS()
	defer srv.Close()
	for _, tap := range []bool{true, false} {
		b.Run(map[bool]string{true: "tapped", false: "untapped"}[tap], func(b *testing.B) {
			tr := srv.Client().Transport.(*http.Transport).Clone()
			defer tr.CloseIdleConnections()
			var next http.RoundTripper = tr
			if !tap {
				next = roundTripper(tr.RoundTrip)
			}
			var proto string
			rec := &archive.Recorder{Next: next, Done: func(_ *http.Request, ex *archive.Exchange) { proto = strings.Join(ex.Protocol, ",") }}
			c := &http.Client{Transport: rec}
			b.SetBytes(int64(len(page)))
			for b.Loop() {
				resp, err := c.Get(srv.URL + "/")
				if err != nil {
					b.Fatal(err)
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.ProtoMajor != 2 {
					b.Fatalf("%s", resp.Proto)
				}
			}
			if proto != "h2,tls/1.3" {
				b.Fatalf("protocol %q", proto)
			}
		})
	}
}
