//go:build linux

package main

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bloomcrawl/bloomcrawl/lab/redistest"
)

// TestClusterCrawlDelayAcrossHandOver: six hosts whose robots.txt says
// Crawl-delay: 1, crawled by one node until a second joins and takes
// about half of the partitions over (the first drains them): whichever
// node sends them, no two page requests to one host are less than 1 s
// apart, and at least one host is crawled by both nodes (a hand-over
// mid-crawl).
func TestClusterCrawlDelayAcrossHandOver(t *testing.T) {
	addr := redistest.Start(t)
	const hosts, pages = 6, 7
	var mu sync.Mutex
	at := map[int][]time.Time{}     // host → page request times
	by := map[int]map[string]bool{} // host → user agents
	srvs := startLoopbackHosts(t, hosts, func(w http.ResponseWriter, r *http.Request, h int) {
		if r.URL.Path == "/robots.txt" {
			fmt.Fprint(w, "User-agent: *\nCrawl-delay: 1\n")
			return
		}
		i, err := strconv.Atoi(strings.TrimPrefix(r.URL.Path, "/p/"))
		if err != nil || i < 0 || i >= pages {
			http.NotFound(w, r)
			return
		}
		mu.Lock()
		at[h] = append(at[h], time.Now())
		if by[h] == nil {
			by[h] = map[string]bool{}
		}
		by[h][r.UserAgent()] = true
		mu.Unlock()
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, "<html><head><title>host %d page %d</title></head><body><p>Host %d page %d, text %d.</p>", h, i, h, i, i*31+h)
		if i+1 < pages {
			fmt.Fprintf(w, "<a href=\"/p/%d\">next</a>", i+1)
		}
		w.Write([]byte("</body></html>"))
	})
	var seeds strings.Builder
	for _, s := range srvs {
		fmt.Fprintf(&seeds, "  - %s/p/0\n", s.URL)
	}
	node := func(n int) *started {
		cfg := filepath.Join(t.TempDir(), "c.yaml")
		y := fmt.Sprintf("seeds:\n%sscope:\n  sitemaps: off\npoliteness:\n  obey_robots: true\n  per_host_parallelism: 2\n  concurrency: 8\n  user_agent: \"bloomcrawl-test node%d\"\n", seeds.String(), n)
		if err := os.WriteFile(cfg, []byte(y), 0o644); err != nil {
			t.Fatal(err)
		}
		return startChild(t, "crawl", cfg, "--store", filepath.Join(t.TempDir(), "s"), "--json", "--mem-limit-mb", "0",
			"--cluster", "redis://"+addr+"/0", "--node", fmt.Sprintf("node%d", n), "--lease-ttl", "1500ms")
	}
	kids := []*started{node(0)}
	for i := 0; ; i++ { // node1 joins once every host has had two pages fetched
		mu.Lock()
		ready := len(at) == hosts
		for _, ts := range at {
			ready = ready && len(ts) >= 2
		}
		mu.Unlock()
		if ready {
			break
		}
		if i == 1000 {
			t.Fatal("node0 did not fetch two pages of every host in 20 s")
		}
		time.Sleep(20 * time.Millisecond)
	}
	kids = append(kids, node(1))
	finishNodes(t, kids)
	mu.Lock()
	defer mu.Unlock()
	handed := 0
	minGap := time.Hour
	for h := range hosts {
		ts := at[h]
		slices.SortFunc(ts, func(a, b time.Time) int { return a.Compare(b) })
		if len(ts) != pages {
			t.Errorf("host %d: %d page requests, want %d", h, len(ts), pages)
		}
		for i := 1; i < len(ts); i++ {
			d := ts[i].Sub(ts[i-1])
			minGap = min(minGap, d)
			if d < time.Second {
				t.Errorf("host %d: page requests %d and %d %v apart, want >= 1s (Crawl-delay)", h, i-1, i, d)
			}
		}
		if len(by[h]) > 1 {
			handed++
		}
	}
	t.Logf("%d of %d hosts crawled by both nodes; shortest gap between two requests to a host %v", handed, hosts, minGap)
	if handed == 0 {
		t.Error("no host was handed over mid-crawl: the test shows nothing")
	}
}
