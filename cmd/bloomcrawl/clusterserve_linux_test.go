//go:build linux

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bloomcrawl/bloomcrawl/cluster"
	"github.com/bloomcrawl/bloomcrawl/lab/redistest"
	"github.com/bloomcrawl/bloomcrawl/storage"
)

// gateSite is two loopback hosts whose seed pages link to /hold, which
// answers only once the test opens the gate (30 s at most): the nodes of
// a cluster crawl stay up, serving their API, until then.
type gateSite struct {
	hosts []string
	gate  chan struct{}
	once  sync.Once
}

func newGateSite(t *testing.T) *gateSite {
	s := &gateSite{gate: make(chan struct{})}
	srvs := startLoopbackHosts(t, 2, func(w http.ResponseWriter, r *http.Request, h int) {
		if r.URL.Path == "/hold" {
			select {
			case <-s.gate:
			case <-time.After(30 * time.Second):
			}
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, "<html><head><title>host %d %s</title></head><body><p>Host %d page %s.</p><a href=\"/hold\">hold</a></body></html>", h, r.URL.Path, h, r.URL.Path)
	})
	t.Cleanup(s.open)
	for _, srv := range srvs {
		s.hosts = append(s.hosts, srv.URL)
	}
	return s
}

func (s *gateSite) open() { s.once.Do(func() { close(s.gate) }) }

// serveNode starts a cluster node crawling site with --serve on a free
// loopback port and waits (10 s at most) until its API answers; extra
// YAML goes into its config. It returns the node, its API's base URL and
// its store.
func serveNode(t *testing.T, redisURL string, site *gateSite, n int, extra string) (*started, string, string) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	cfg := filepath.Join(t.TempDir(), "c.yaml")
	y := fmt.Sprintf("seeds:\n  - %s/\n  - %s/\nscope:\n  sitemaps: off\npoliteness:\n  obey_robots: false\n%s", site.hosts[0], site.hosts[1], extra)
	if err := os.WriteFile(cfg, []byte(y), 0o644); err != nil {
		t.Fatal(err)
	}
	store := filepath.Join(t.TempDir(), "s")
	k := startChild(t, "crawl", cfg, "--store", store, "--json", "--mem-limit-mb", "0",
		"--cluster", redisURL, "--node", fmt.Sprintf("node%d", n), "--lease-ttl", "2s", "--serve", addr)
	base := "http://" + addr
	for i := 0; ; i++ {
		resp, err := http.Get(base + "/healthz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return k, base, store
			}
		}
		if i == 200 {
			t.Fatalf("node%d: API at %s not up after 10 s: %v", n, base, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// postJSON posts body to url and decodes the answer into out; it returns
// the status code.
func postJSON(t *testing.T, url string, body, out any) int {
	t.Helper()
	b, _ := json.Marshal(body)
	resp, err := http.Post(url, "application/json", bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	if out != nil {
		if err := json.Unmarshal(raw, out); err != nil {
			t.Fatalf("POST %s: %d %s: %v", url, resp.StatusCode, raw, err)
		}
	}
	return resp.StatusCode
}

// TestClusterSeenRecordsShared: under --cluster the seen-records live in
// Redis: ids recorded through one node's API are seen through another
// node's API and through 'bloomcrawl seen --cluster', and ids recorded
// with the CLI are seen through the API.
func TestClusterSeenRecordsShared(t *testing.T) {
	addr := redistest.Start(t)
	url := "redis://" + addr + "/0"
	site := newGateSite(t)
	k0, api0, _ := serveNode(t, url, site, 0, "")
	k1, api1, _ := serveNode(t, url, site, 1, "")
	var add struct{ Added int }
	if code := postJSON(t, api0+"/v1/seen/reader-42", map[string]any{"ids": []string{"d1", "d2"}}, &add); code != 200 || add.Added != 2 {
		t.Fatalf("POST /v1/seen on node0: %d, added %d", code, add.Added)
	}
	var tst struct{ Seen, New []string }
	if code := postJSON(t, api1+"/v1/seen/reader-42:test", map[string]any{"ids": []string{"d1", "d3", "d2"}}, &tst); code != 200 ||
		fmt.Sprint(tst.Seen) != "[d1 d2]" || fmt.Sprint(tst.New) != "[d3]" {
		t.Errorf("POST /v1/seen:test on node1: %d, seen %v new %v; want [d1 d2] and [d3]", code, tst.Seen, tst.New)
	}
	var out, errb strings.Builder
	if code := run(context.Background(), []string{"seen", "--cluster", url, "test", "reader-42", "d2", "d4"}, &out, &errb); code != 0 ||
		out.String() != "seen\td2\nnew\td4\n" {
		t.Errorf("seen --cluster test: exit %d, %q %s", code, out.String(), errb.String())
	}
	out.Reset()
	if code := run(context.Background(), []string{"seen", "--cluster", url, "add", "reader-42", "d4"}, &out, &errb); code != 0 {
		t.Fatalf("seen --cluster add: exit %d: %s", code, errb.String())
	}
	if code := postJSON(t, api0+"/v1/seen/reader-42:test", map[string]any{"ids": []string{"d4"}}, &tst); code != 200 || fmt.Sprint(tst.Seen) != "[d4]" {
		t.Errorf("an id added with the CLI, tested on node0: %d, seen %v", code, tst.Seen)
	}
	errb.Reset()
	if code := run(context.Background(), []string{"seen", "--cluster", url, "--store", t.TempDir(), "show", "reader-42"}, &out, &errb); code != 2 {
		t.Errorf("seen with both --cluster and --store: exit %d, want 2 (%s)", code, errb.String())
	}
	site.open()
	finishNodes(t, []*started{k0, k1})
}

// TestClusterDocIDThroughLog: POST /v1/docid on a cluster node goes
// through the cluster's document log: a document submitted on node0 and
// its near-duplicate submitted on node1 share one docId (a duplicate by
// content, naming the first URL), the same URL again is a duplicate by
// URL on either node, the submissions are in the log (node1's copy of
// it in its store, which applied all three), and the new document is
// stored by node0.
func TestClusterDocIDThroughLog(t *testing.T) {
	addr := redistest.Start(t)
	url := "redis://" + addr + "/0"
	site := newGateSite(t)
	k0, api0, store0 := serveNode(t, url, site, 0, "")
	k1, api1, store1 := serveNode(t, url, site, 1, "")
	text := copyText(7, 300)
	type answer struct{ DocID, FilterStatus, FilterReason, MatchURL, Status, Error string }
	var a, b, c answer
	if code := postJSON(t, api0+"/v1/docid", map[string]string{"url": "http://news.example/a", "title": "Harbor lanterns", "content": text}, &a); code != 200 ||
		a.FilterStatus != "good" || a.DocID == "" {
		t.Fatalf("POST /v1/docid on node0: %d %+v; want a new document", code, a)
	}
	edited := strings.Replace(text, "river", "rivers", 1) + " One more line."
	if code := postJSON(t, api1+"/v1/docid", map[string]string{"url": "http://copy.example/a", "title": "Copied: harbor lanterns", "content": edited}, &b); code != 200 ||
		b.FilterStatus != "duplicate" || b.DocID != a.DocID || b.FilterReason != "content" || b.MatchURL != "http://news.example/a" {
		t.Errorf("near-duplicate POSTed on node1: %d %+v; want a duplicate of %s by content", code, b, a.DocID)
	}
	if code := postJSON(t, api1+"/v1/docid", map[string]string{"url": "http://news.example/a", "title": "Harbor lanterns", "content": text}, &c); code != 200 ||
		c.FilterStatus != "duplicate" || c.FilterReason != "url" || c.DocID != a.DocID {
		t.Errorf("the first URL again on node1: %d %+v; want a duplicate by url of %s", code, c, a.DocID)
	}
	site.open()
	finishNodes(t, []*started{k0, k1})
	db, err := storage.Open(store1, &storage.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	docs, err := cluster.ReadDocHistory(db, 1000)
	db.Close()
	if err != nil {
		t.Fatal(err)
	}
	logged := map[string]int{}
	for _, d := range docs {
		logged[d.URL]++
	}
	if logged["http://news.example/a"] != 2 || logged["http://copy.example/a"] != 1 {
		t.Errorf("document log (node1's copy): %v; want the submissions in it", logged)
	}
	if !storeURLs(t, store0)["http://news.example/a"] {
		t.Error("node0's store does not hold the document submitted there")
	}
}
