//go:build linux

package main

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/bloomcrawl/bloomcrawl/lab/redistest"
)

// TestClusterSitemaps: three nodes crawl four hosts whose pages /o/i are
// linked from nowhere, only listed in sitemaps: hosts 0 and 1 declare a
// sitemap index in robots.txt (scope.sitemaps auto), hosts 2 and 3 have
// /sitemap.xml (guessed). Every listed page is fetched exactly once, every
// sitemap is read exactly once cluster-wide, by a node that fetches its
// host's pages (the owner of the host's partition); with scope.sitemaps
// listing URLs, each listed sitemap is read once too.
func TestClusterSitemaps(t *testing.T) {
	for _, list := range []bool{false, true} {
		t.Run(map[bool]string{false: "auto", true: "list"}[list], func(t *testing.T) {
			addr := redistest.Start(t)
			const hosts, orphans, nodes = 4, 25, 3
			var mu sync.Mutex
			count := map[string]int{}              // host index/path → requests
			agents := map[string]map[string]bool{} // host index/path → user agents
			var srvs []string
			servers := startLoopbackHosts(t, hosts, func(w http.ResponseWriter, r *http.Request, h int) {
				key := strconv.Itoa(h) + r.URL.Path
				mu.Lock()
				count[key]++
				if agents[key] == nil {
					agents[key] = map[string]bool{}
				}
				agents[key][r.UserAgent()] = true
				mu.Unlock()
				base := srvs[h]
				switch {
				case r.URL.Path == "/robots.txt":
					if h < 2 {
						fmt.Fprintf(w, "User-agent: *\nAllow: /\nSitemap: %s/index.xml\n", base)
					}
				case r.URL.Path == "/index.xml" && h < 2:
					fmt.Fprintf(w, `<?xml version="1.0"?><sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><sitemap><loc>%s/sm-a.xml</loc></sitemap><sitemap><loc>%s/sm-b.xml</loc></sitemap></sitemapindex>`, base, base)
				case r.URL.Path == "/sm-a.xml" && h < 2, r.URL.Path == "/sm-b.xml" && h < 2, r.URL.Path == "/sitemap.xml" && h >= 2:
					lo, hi := 0, orphans
					if r.URL.Path == "/sm-a.xml" {
						hi = orphans / 2
					} else if r.URL.Path == "/sm-b.xml" {
						lo = orphans / 2
					}
					writeURLSet(w, base, lo, hi, func(int) string { return "2026-11-01" })
				case r.URL.Path == "/" || strings.HasPrefix(r.URL.Path, "/o/"):
					writeHostPage(w, h, r.URL.Path)
				default:
					http.NotFound(w, r)
				}
			})
			for _, s := range servers {
				srvs = append(srvs, s.URL)
			}
			var y strings.Builder
			y.WriteString("seeds:\n")
			for _, s := range srvs {
				fmt.Fprintf(&y, "  - %s/\n", s)
			}
			if list {
				y.WriteString("scope:\n  sitemaps:\n")
				for h, s := range srvs {
					if h < 2 {
						fmt.Fprintf(&y, "    - %s/index.xml\n", s)
					} else {
						fmt.Fprintf(&y, "    - %s/sitemap.xml\n", s)
					}
				}
			}
			var kids []*started
			for n := range nodes {
				cfg := filepath.Join(t.TempDir(), "c.yaml")
				c := y.String() + fmt.Sprintf("politeness:\n  obey_robots: true\n  concurrency: 4\n  user_agent: \"bloomcrawl-test node%d\"\n", n)
				if err := os.WriteFile(cfg, []byte(c), 0o644); err != nil {
					t.Fatal(err)
				}
				kids = append(kids, startChild(t, "crawl", cfg, "--store", filepath.Join(t.TempDir(), "s"), "--json", "--mem-limit-mb", "0",
					"--cluster", "redis://"+addr+"/0", "--node", fmt.Sprintf("node%d", n), "--lease-ttl", "2s"))
			}
			finishNodes(t, kids)
			mu.Lock()
			defer mu.Unlock()
			for h := range hosts {
				for i := range orphans {
					if c := count[fmt.Sprintf("%d/o/%d", h, i)]; c != 1 {
						t.Errorf("host %d /o/%d (listed in a sitemap only) fetched %d times, want 1", h, i, c)
					}
				}
				sitemaps := []string{"/sitemap.xml"}
				if h < 2 {
					sitemaps = []string{"/index.xml", "/sm-a.xml", "/sm-b.xml"}
				}
				for _, sm := range sitemaps {
					key := strconv.Itoa(h) + sm
					if count[key] != 1 {
						t.Errorf("host %d %s read %d times, want once cluster-wide", h, sm, count[key])
					}
					for ua := range agents[key] {
						if !agents[strconv.Itoa(h)+"/o/0"][ua] && !agents[strconv.Itoa(h)+"/"][ua] {
							t.Errorf("host %d %s read by %s, which fetched none of the host's pages", h, sm, ua)
						}
					}
				}
			}
		})
	}
}
