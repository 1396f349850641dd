package console

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/bloomcrawl/bloomcrawl/storage"
)

func TestFormat(t *testing.T) {
	for _, c := range []struct {
		got, want string
	}{
		{num(0), "0"}, {num(999), "999"}, {num(1000), "1,000"}, {num(int64(-1234567)), "-1,234,567"},
		{num(uint64(21663)), "21,663"}, {fixed(1234.56, 1), "1,234.6"}, {fixed(-0.25, 2), "-0.25"},
		{bytesText(512), "512 B"}, {bytesText(int64(1536)), "1.5 KiB"}, {bytesText(uint64(3 << 30)), "3.0 GiB"}, {bytesText(int64(-1)), "–"},
		{pct(0), "0%"}, {pct(0.015), "1.5%"}, {pct(0.00012), "0.012%"},
		{durText(0), "0s"}, {durText(80 * time.Millisecond), "80 ms"}, {durText(3500 * time.Millisecond), "3.5 s"},
		{durText(125 * time.Second), "2m 05s"}, {durText(26 * time.Hour), "26h 00m"}, {durText(73 * time.Hour), "3d 01h"},
	} {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
}

// TestStoreOnly serves the console over a store with no crawl (bloomcrawl
// serve): the status and pages views answer, the crawl's views say why
// they cannot, and a steering request from another site is refused.
func TestStoreOnly(t *testing.T) {
	db, err := storage.Open(t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	c := New(ctx, Options{Store: db})
	for _, tc := range []struct {
		method, path string
		hdr          map[string]string
		code         int
		body         string
	}{
		{"GET", "/", nil, 200, "Documents"},
		{"GET", "/console/", nil, 200, "Store"},
		{"GET", "/console/pages?q=nothing", nil, 200, "No stored page matches"},
		{"GET", "/console/pages?q=00000000000000ab", nil, 303, ""},
		{"GET", "/console/doc/00000000000000ab", nil, 404, "not found"},
		{"GET", "/console/doc/xyz", nil, 400, ""},
		{"GET", "/console/hosts", nil, 404, "no crawl is running"},
		{"GET", "/console/steer", nil, 404, "no crawl is running"},
		{"GET", "/console/cluster", nil, 404, "not a cluster node"},
		{"GET", "/console/queue.txt", nil, 200, ""},
		{"GET", "/console/assets/htmx.min.js", nil, 200, "htmx"},
		{"GET", "/console/assets/uPlot.iife.min.js", nil, 200, "uPlot"},
		{"POST", "/console/steer/pause", map[string]string{"Origin": "http://evil.example", "Sec-Fetch-Site": "cross-site"}, 403, "own pages"},
		{"POST", "/console/steer/pause", map[string]string{"Origin": "http://evil.example"}, 403, "own pages"},
		{"POST", "/console/steer/pause", map[string]string{"Sec-Fetch-Site": "same-origin"}, 404, "no crawl is running"},
	} {
		req := httptest.NewRequest(tc.method, "http://127.0.0.1:8080"+tc.path, nil)
		for k, v := range tc.hdr {
			req.Header.Set(k, v)
		}
		w := httptest.NewRecorder()
		c.ServeHTTP(w, req)
		if w.Code != tc.code || !strings.Contains(w.Body.String(), tc.body) {
			t.Errorf("%s %s: %d %.200q; want %d with %q", tc.method, tc.path, w.Code, w.Body.String(), tc.code, tc.body)
		}
		if csp := w.Header().Get("Content-Security-Policy"); !strings.Contains(csp, "default-src 'self'") {
			t.Errorf("%s %s: Content-Security-Policy %q", tc.method, tc.path, csp)
		}
	}
	// the event stream ends when the console's context does
	srv := httptest.NewServer(c)
	defer srv.Close()
	resp, err := http.Get(srv.URL + "/console/events")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Errorf("events: Content-Type %q", ct)
	}
	buf := make([]byte, 4096)
	n, _ := resp.Body.Read(buf)
	if !strings.Contains(string(buf[:n]), "retry:") {
		t.Errorf("events start %q", buf[:n])
	}
	cancel()
	done := make(chan struct{})
	go func() {
		for {
			if _, err := resp.Body.Read(buf); err != nil {
				close(done)
				return
			}
		}
	}()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Error("the event stream did not end with the console's context")
	}
}
