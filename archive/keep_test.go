package archive

import (
	"reflect"
	"strings"
	"testing"
	"time"
)

// A kept fetch decodes to what was kept, secrets redacted unless asked
// for; a cut value is an error, never a short fetch.
func TestFetchEncoding(t *testing.T) {
	date := time.Date(2026, 11, 27, 4, 0, 0, 123, time.UTC)
	f := Fetch{
		Verdict: &Verdict{DocID: 0xfeed, Duplicate: true, Reason: "content", Distance: 3, MatchURL: "http://h/a"},
		Exchanges: []*Exchange{
			{URL: "http://h/old", Date: date, IP: "127.0.0.1", Request: []byte("GET /old HTTP/1.1\r\nHost: h\r\nCookie: s=1\r\n\r\n"),
				Response: []byte("HTTP/1.1 301 Moved\r\nLocation: /b\r\n\r\n"), Body: []byte{}, Status: 301},
			{URL: "http://h/b", Date: date.Add(time.Millisecond), Request: []byte("GET /b HTTP/1.1\r\nHost: h\r\n\r\n"),
				Response: []byte("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"), Body: []byte("hello"),
				RawBody: []byte("5\r\nhello\r\n0\r\n\r\n"), Truncated: "length", Status: 200},
			{URL: "https://h/c", Date: date, Request: []byte("GET /c HTTP/1.1\r\nhost: h\r\ncookie: s=2\r\n\r\n"),
				Response: []byte("HTTP/1.1 200 \r\n\r\n"), Body: []byte("h2"), Status: 200, Protocol: []string{"h2", "tls/1.3"}},
		},
	}
	got, err := decodeFetch(encodeFetch(&f, true))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, f) {
		t.Errorf("round trip:\n got %+v %+v %+v\nwant %+v %+v %+v", got.Verdict, got.Exchanges[0], got.Exchanges[1], f.Verdict, f.Exchanges[0], f.Exchanges[1])
	}
	red, err := decodeFetch(encodeFetch(&f, false))
	if err != nil {
		t.Fatal(err)
	}
	if s := string(red.Exchanges[0].Request); !strings.Contains(s, "Cookie: [redacted]\r\n") || strings.Contains(s, "s=1") {
		t.Errorf("redacted request %q", s)
	}
	if s := string(red.Exchanges[2].Request); !strings.Contains(s, "cookie: [redacted]\r\n") || strings.Contains(s, "s=2") {
		t.Errorf("redacted HTTP/2 request %q", s)
	}
	plain := Fetch{Exchanges: []*Exchange{{URL: "http://h/robots.txt", Date: date, Request: []byte("GET /robots.txt HTTP/1.1\r\n\r\n"), Response: []byte("HTTP/1.1 404 Not Found\r\n\r\n"), Body: []byte("no"), Status: 404}}}
	if got, err := decodeFetch(encodeFetch(&plain, false)); err != nil || got.Verdict != nil || got.Exchanges[0].RawBody != nil {
		t.Errorf("fetch without verdict: %v %+v", err, got)
	}
	// version 1 (no Protocol) still decodes
	v2 := encodeFetch(&plain, false)
	v1 := append([]byte{1}, v2[1:len(v2)-1]...) // without the exchange's Protocol count
	if got, err := decodeFetch(v1); err != nil || !reflect.DeepEqual(got, plain) {
		t.Errorf("version 1: %v %+v", err, got)
	}
	b := encodeFetch(&f, true)
	for _, n := range []int{0, 1, 5, len(b) / 2, len(b) - 1} {
		if _, err := decodeFetch(b[:n]); err == nil {
			t.Errorf("a fetch cut to %d of %d bytes decodes", n, len(b))
		}
	}
	if _, err := decodeFetch(append(b, 0)); err == nil {
		t.Error("a fetch with a trailing byte decodes")
	}
}
