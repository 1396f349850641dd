//go:build linux

package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/bloomcrawl/bloomcrawl/crawler"
	"github.com/bloomcrawl/bloomcrawl/lab/redistest"
)

// TestClusterContinuousLastMod: two nodes crawl three hosts continuously,
// each host's /sitemap.xml (declared in robots.txt) listing pages /o/0 …
// /o/9 with a lastmod, and a rule re-reading the sitemaps every 200 ms.
// Once every page is fetched, the sitemaps give pages 3 and 7 of each host
// a newer lastmod: each of them is fetched once more (a conditional GET)
// by the owner of its partition, and not again at the sitemaps' later
// reads (the new lastmod is recorded); the other pages are fetched once.
// The nodes' summaries count the 6 refreshes lastmod_due. With
// scope.max_pages set, the refreshes do not count against it.
func TestClusterContinuousLastMod(t *testing.T) {
	addr := redistest.Start(t)
	const hosts, pages, nodes = 3, 10, 2
	var mu sync.Mutex
	count := map[string]int{} // host index/path → requests
	bumped := time.Time{}     // the new lastmod of pages 3 and 7 (zero: not yet)
	var srvs []string
	servers := startLoopbackHosts(t, hosts, func(w http.ResponseWriter, r *http.Request, h int) {
		key := fmt.Sprintf("%d%s", h, r.URL.Path)
		mu.Lock()
		count[key]++
		newer := bumped
		mu.Unlock()
		base := srvs[h]
		switch {
		case r.URL.Path == "/robots.txt":
			fmt.Fprintf(w, "User-agent: *\nAllow: /\nSitemap: %s/sitemap.xml\n", base)
		case r.URL.Path == "/sitemap.xml":
			writeURLSet(w, base, 0, pages, func(i int) string {
				if (i == 3 || i == 7) && !newer.IsZero() {
					return newer.Format(time.RFC3339)
				}
				return "2026-01-01T00:00:00Z"
			})
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
	// max_pages leaves room for the 36 first fetches (seeds, sitemaps,
	// pages) and not for the refreshes, which do not count against it
	y.WriteString("scope:\n  sitemaps: auto\n  max_pages: 40\npoliteness:\n  concurrency: 4\n")
	y.WriteString("recrawl:\n  continuous: true\n  rules:\n    - match: '/sitemap\\.xml$'\n      every: 200ms\n")
	cfg := filepath.Join(t.TempDir(), "c.yaml")
	if err := os.WriteFile(cfg, []byte(y.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	var kids []*started
	for n := range nodes {
		kids = append(kids, startChild(t, "crawl", cfg, "--store", filepath.Join(t.TempDir(), "db"), "--json",
			"--cluster", "redis://"+addr+"/0", "--node", fmt.Sprintf("node%d", n), "--lease-ttl", "3s"))
	}
	hits := func(h int, path string) int {
		mu.Lock()
		defer mu.Unlock()
		return count[fmt.Sprintf("%d%s", h, path)]
	}
	waitFor := func(what string, cond func() bool) {
		t.Helper()
		for deadline := time.Now().Add(20 * time.Second); !cond(); time.Sleep(50 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("timed out waiting for %s", what)
			}
		}
	}
	waitFor("every page and a sitemap read again", func() bool {
		for h := range hosts {
			if hits(h, "/sitemap.xml") < 2 {
				return false
			}
			for i := range pages {
				if hits(h, fmt.Sprintf("/o/%d", i)) == 0 {
					return false
				}
			}
		}
		return true
	})
	mu.Lock()
	bumped = time.Now().Add(time.Second).Truncate(time.Second)
	reads := count["0/sitemap.xml"]
	mu.Unlock()
	waitFor("pages 3 and 7 fetched again", func() bool {
		for h := range hosts {
			if hits(h, "/o/3") < 2 || hits(h, "/o/7") < 2 {
				return false
			}
		}
		return true
	})
	// two more reads of each sitemap: nothing is due again
	waitFor("two more sitemap reads", func() bool {
		for h := range hosts {
			if hits(h, "/sitemap.xml") < reads+3 {
				return false
			}
		}
		return true
	})
	time.Sleep(300 * time.Millisecond) // what those reads queued, fetched
	for h := range hosts {
		for i := range pages {
			want := 1
			if i == 3 || i == 7 {
				want = 2
			}
			if n := hits(h, fmt.Sprintf("/o/%d", i)); n != want {
				t.Errorf("host %d page %d fetched %d times, want %d", h, i, n, want)
			}
		}
	}
	var lastmodDue, refreshed int64
	for n, k := range kids {
		k.cmd.Process.Signal(syscall.SIGTERM)
		k.wait(t)
		var st crawler.Stats
		if err := json.Unmarshal([]byte(k.out.String()), &st); err != nil {
			t.Fatalf("node%d's summary: %v\n%s", n, err, k.out.String())
		}
		lastmodDue += st.LastModDue
		refreshed += st.Refreshed
	}
	t.Logf("lastmod_due %d, refreshed %d (the pages: a sitemap read is not counted)", lastmodDue, refreshed)
	if lastmodDue != 2*hosts {
		t.Errorf("lastmod_due %d in all, want %d", lastmodDue, 2*hosts)
	}
}

// writeURLSet writes a sitemap listing base/o/lo … base/o/(hi-1), each with
// lastmod(i).
func writeURLSet(w http.ResponseWriter, base string, lo, hi int, lastmod func(i int) string) {
	var b strings.Builder
	b.WriteString(`<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">`)
	for i := lo; i < hi; i++ {
		fmt.Fprintf(&b, "<url><loc>%s/o/%d</loc><lastmod>%s</lastmod></url>", base, i, lastmod(i))
	}
	b.WriteString("</urlset>")
	w.Header().Set("Content-Type", "application/xml")
	w.Write([]byte(b.String()))
}

// writeHostPage writes the small page host h serves at path.
func writeHostPage(w http.ResponseWriter, h int, path string) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	fmt.Fprintf(w, "<html><head><title>host %d %s</title></head><body><p>Host %d page %s.</p></body></html>", h, path, h, path)
}
