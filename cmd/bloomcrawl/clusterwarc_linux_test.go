//go:build linux

package main

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/bloomcrawl/bloomcrawl/lab/redistest"
	"github.com/bloomcrawl/bloomcrawl/lab/warccheck"
)

// TestClusterWARCRevisitsAcrossNodes: three nodes crawl four hosts that
// each serve the same byte-identical pages /same/i (besides pages of
// their own), each writing WARC files of its own. Across all nodes' files
// every payload is written once as a response; every other copy is a
// revisit record whose WARC-Refers-To names that response, with its URI
// and date, in whichever node's files it is; some revisits refer to
// another node's response.
func TestClusterWARCRevisitsAcrossNodes(t *testing.T) {
	addr := redistest.Start(t)
	const hosts, pages, nodes = 4, 30, 3
	srvs := startLoopbackHosts(t, hosts, func(w http.ResponseWriter, r *http.Request, h int) {
		kind, num, _ := strings.Cut(strings.TrimPrefix(r.URL.Path, "/"), "/")
		i, err := strconv.Atoi(num)
		if err != nil || i < 0 || i >= pages || kind != "p" && kind != "same" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		if kind == "same" { // byte-identical on every host
			fmt.Fprintf(w, "<html><head><title>Shared %d</title></head><body><p>%s</p></body></html>", i, copyText(uint64(i), 80))
			return
		}
		fmt.Fprintf(w, "<html><head><title>Host %d page %d</title></head><body><p>Host %d page %d.</p><a href=\"/same/%d\">same</a>", h, i, h, i, i)
		for _, c := range []int{2*i + 1, 2*i + 2} {
			if c < pages {
				fmt.Fprintf(w, "<a href=\"/p/%d\">p</a>", c)
			}
		}
		w.Write([]byte("</body></html>"))
	})
	var seeds strings.Builder
	for _, s := range srvs {
		fmt.Fprintf(&seeds, "  - %s/p/0\n", s.URL)
	}
	cfg := filepath.Join(t.TempDir(), "c.yaml")
	y := fmt.Sprintf("seeds:\n%sscope:\n  sitemaps: off\npoliteness:\n  obey_robots: false\n  per_host_parallelism: 1\n  concurrency: 2\n", seeds.String())
	if err := os.WriteFile(cfg, []byte(y), 0o644); err != nil {
		t.Fatal(err)
	}
	var kids []*started
	var dirs []string
	for n := range nodes {
		dir := filepath.Join(t.TempDir(), "warc")
		dirs = append(dirs, dir)
		kids = append(kids, startChild(t, "crawl", cfg, "--store", filepath.Join(t.TempDir(), "s"), "--warc", dir, "--json", "--mem-limit-mb", "0",
			"--cluster", "redis://"+addr+"/0", "--node", fmt.Sprintf("node%d", n), "--lease-ttl", "2s"))
	}
	finishNodes(t, kids)
	type rec struct {
		*warccheck.Record
		node int
	}
	byID := map[string]rec{}
	responses := map[string][]rec{} // payload digest → its responses
	var revisits []rec
	for n, dir := range dirs {
		files, err := filepath.Glob(filepath.Join(dir, "*.warc.gz"))
		if err != nil || len(files) == 0 {
			t.Fatalf("node%d: WARC files %v, %v", n, files, err)
		}
		recs, err := warccheck.Read(files)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range warccheck.Check(recs) {
			if !strings.Contains(e.Error(), "no earlier record") { // a revisit of another node's response
				t.Errorf("node%d: %v", n, e)
			}
		}
		for _, r := range recs {
			byID[r.ID] = rec{r, n}
			switch r.Type {
			case "response":
				if len(r.Payload) > 0 {
					d := r.Header.Get("WARC-Payload-Digest")
					responses[d] = append(responses[d], rec{r, n})
				}
			case "revisit":
				revisits = append(revisits, rec{r, n})
			}
		}
	}
	for d, rs := range responses {
		if len(rs) != 1 {
			t.Errorf("payload %s written as a response %d times (nodes %d and %d)", d, len(rs), rs[0].node, rs[1].node)
		}
	}
	cross := 0
	for _, r := range revisits {
		o, ok := byID[r.Header.Get("WARC-Refers-To")]
		switch {
		case !ok || o.Type != "response":
			t.Errorf("node%d: revisit of %s refers to %s: no response in any node's files", r.node, r.URI, r.Header.Get("WARC-Refers-To"))
		case o.Header.Get("WARC-Payload-Digest") != r.Header.Get("WARC-Payload-Digest") ||
			r.Header.Get("WARC-Refers-To-Target-URI") != o.URI || r.Header.Get("WARC-Refers-To-Date") != o.Date:
			t.Errorf("node%d: revisit of %s does not match the response it refers to (%s %s)", r.node, r.URI, o.URI, o.Date)
		case o.node != r.node:
			cross++
		}
	}
	if want := (hosts - 1) * pages; len(revisits) != want {
		t.Errorf("%d revisit records in all, want %d (every copy of /same/i but one)", len(revisits), want)
	}
	if cross == 0 {
		t.Error("no revisit refers to another node's response: the test shows nothing")
	}
	t.Logf("%d payloads, %d revisits, %d of them referring to another node's response", len(responses), len(revisits), cross)
}
