//go:build linux

package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bloomcrawl/bloomcrawl/lab/redistest"
)

// TestClusterPageLimits: scope.max_pages and scope.max_pages_per_host hold
// cluster-wide: three nodes crawling a four-host site of 480 pages fetch
// exactly max_pages in all (counted by the site), or max_pages_per_host
// of each host, and every node ends by itself.
func TestClusterPageLimits(t *testing.T) {
	for _, c := range []struct {
		name, yaml     string
		total, perHost int
	}{
		{"max_pages", "  max_pages: 100\n", 100, 0},
		{"max_pages_per_host", "  max_pages_per_host: 30\n", 0, 30},
		{"both", "  max_pages: 70\n  max_pages_per_host: 25\n", 70, 25},
	} {
		t.Run(c.name, func(t *testing.T) {
			addr := redistest.Start(t)
			const hosts, pages, nodes = 4, 120, 3
			site := newClusterSite(t, hosts, pages)
			var kids []*started
			for n := range nodes {
				cfg := clusterConfig(t, site, n)
				b, err := os.ReadFile(cfg)
				if err != nil {
					t.Fatal(err)
				}
				y := strings.Replace(string(b), "scope:\n", "scope:\n"+c.yaml, 1)
				if err := os.WriteFile(cfg, []byte(y), 0o644); err != nil {
					t.Fatal(err)
				}
				kids = append(kids, startChild(t, "crawl", cfg, "--store", filepath.Join(t.TempDir(), "s"), "--json", "--mem-limit-mb", "0",
					"--cluster", "redis://"+addr+"/0", "--node", fmt.Sprintf("node%d", n), "--lease-ttl", "2s"))
			}
			var fetched int64
			for _, st := range finishNodes(t, kids) {
				fetched += st.Fetched
			}
			site.mu.Lock()
			defer site.mu.Unlock()
			perHost := map[string]int{}
			total := 0
			for key, n := range site.count {
				if n != 1 {
					t.Errorf("%s fetched %d times", key, n)
				}
				perHost[strings.SplitN(key, "/", 2)[0]] += n
				total += n
			}
			t.Logf("fetched %d in all (summaries %d), per host %v", total, fetched, perHost)
			want := hosts * pages
			if c.perHost > 0 {
				want = hosts * c.perHost
				for h, n := range perHost {
					if n != c.perHost && (c.total == 0 || n > c.perHost) {
						t.Errorf("host %s: %d pages fetched, want %d", h, n, c.perHost)
					}
				}
			}
			if c.total > 0 {
				want = min(want, c.total)
			}
			if total != want {
				t.Errorf("%d pages fetched in all, want %d", total, want)
			}
		})
	}
}
