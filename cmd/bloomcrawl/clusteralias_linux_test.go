//go:build linux

package main

import (
	"fmt"
	"net/http"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bloomcrawl/bloomcrawl/lab/redistest"
)

// TestClusterRedirectAliasesSeen: a redirect's target is marked seen
// cluster-wide when the page is recorded, so a link to it found later,
// by any node, does not fetch it again. Host 0's first page links to 30
// redirects (/r/i → host 1's /t/i) and to a chain of 40 pages whose last
// links to every /t/i directly; by the time the chain's end is fetched
// the redirects have been followed. Two nodes: every /t/i must be
// fetched once, and the stores must hold each /t/i once (as the
// redirect's page) and each /r/i once.
func TestClusterRedirectAliasesSeen(t *testing.T) {
	addr := redistest.Start(t)
	const targets, chain, nodes = 30, 40, 2
	var mu sync.Mutex
	count := map[string]int{}
	var hosts []string
	srvs := startLoopbackHosts(t, 2, func(w http.ResponseWriter, r *http.Request, h int) {
		mu.Lock()
		count[fmt.Sprintf("%d%s", h, r.URL.Path)]++
		mu.Unlock()
		time.Sleep(5 * time.Millisecond)
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		var b strings.Builder
		path := r.URL.Path
		switch {
		case h == 0 && strings.HasPrefix(path, "/r/"):
			http.Redirect(w, r, hosts[1]+"/t/"+strings.TrimPrefix(path, "/r/"), http.StatusFound)
			return
		case h == 0 && strings.HasPrefix(path, "/p/"):
			i, _ := strconv.Atoi(strings.TrimPrefix(path, "/p/"))
			fmt.Fprintf(&b, "<html><head><title>chain %d</title></head><body><p>Chain page %d, text %d.</p>", i, i, i*7919)
			if i == 0 {
				for k := range targets {
					fmt.Fprintf(&b, "<a href=\"/r/%d\">r</a>\n", k)
				}
			}
			if i+1 < chain {
				fmt.Fprintf(&b, "<a href=\"/p/%d\">next</a>\n", i+1)
			} else {
				for k := range targets {
					fmt.Fprintf(&b, "<a href=\"%s/t/%d\">t</a>\n", hosts[1], k)
				}
			}
		case h == 1 && strings.HasPrefix(path, "/t/"):
			fmt.Fprintf(&b, "<html><head><title>target %s</title></head><body><p>Target %s, text %s.</p>", path, path, strings.Repeat(path, 3))
		default:
			http.NotFound(w, r)
			return
		}
		b.WriteString("</body></html>\n")
		w.Write([]byte(b.String()))
	})
	for _, s := range srvs {
		hosts = append(hosts, s.URL)
	}
	var kids []*started
	var stores []string
	for n := range nodes {
		cfg := fmt.Sprintf("seeds:\n  - %s/p/0\nscope:\n  allowed_hosts: [127.0.0.2, 127.0.0.3]\n  max_depth: 100\n  sitemaps: off\npoliteness:\n  obey_robots: false\n  per_host_parallelism: 2\n  concurrency: 4\n  user_agent: \"bloomcrawl-test node%d\"\n", hosts[0], n)
		p := writeConfig(t, cfg)
		store := filepath.Join(t.TempDir(), "s")
		stores = append(stores, store)
		kids = append(kids, startChild(t, "crawl", p, "--store", store, "--json", "--mem-limit-mb", "0",
			"--cluster", "redis://"+addr+"/0", "--node", fmt.Sprintf("node%d", n), "--lease-ttl", "2s"))
	}
	finishNodes(t, kids)
	mu.Lock()
	defer mu.Unlock()
	twice := 0
	for k := range targets {
		switch c := count[fmt.Sprintf("1/t/%d", k)]; {
		case c == 0:
			t.Errorf("/t/%d never fetched", k)
		case c > 1:
			twice++
			t.Errorf("/t/%d fetched %d times, want 1: the redirect's target was not marked seen", k, c)
		}
	}
	all := map[string]int{}
	for _, s := range stores {
		for u := range storeURLs(t, s) {
			all[u]++
		}
	}
	for k := range targets {
		for _, u := range []string{fmt.Sprintf("%s/t/%d", hosts[1], k), fmt.Sprintf("%s/r/%d", hosts[0], k)} {
			if all[u] != 1 {
				t.Errorf("%s in %d stores, want 1", u, all[u])
			}
		}
	}
	t.Logf("%d redirect targets, %d fetched twice", targets, twice)
}
