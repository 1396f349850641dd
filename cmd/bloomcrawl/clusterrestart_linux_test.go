//go:build linux

package main

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bloomcrawl/bloomcrawl/lab/redistest"
)

// waitFetched waits (30 s at most) until site has served n pages.
func waitFetched(t *testing.T, site *clusterSite, n int) {
	t.Helper()
	for i := 0; ; i++ {
		site.mu.Lock()
		got := len(site.count)
		site.mu.Unlock()
		if got >= n {
			return
		}
		if i == 1500 {
			t.Fatalf("%d pages fetched after 30 s, want %d", got, n)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestClusterRedisRestartWithoutPersistence: Redis without persistence is
// killed -9 and restarted mid-crawl, empty: the nodes must not take the
// empty counters for a finished crawl; each stops with a non-zero exit
// and a message saying the state is gone and how to resume.
func TestClusterRedisRestartWithoutPersistence(t *testing.T) {
	r := redistest.StartRestartable(t)
	const hosts, pages, nodes = 4, 120, 2
	site := newClusterSite(t, hosts, pages)
	var kids []*started
	for n := range nodes {
		kids = append(kids, startChild(t, "crawl", clusterConfig(t, site, n), "--store", filepath.Join(t.TempDir(), "s"), "--json", "--mem-limit-mb", "0",
			"--cluster", "redis://"+r.Addr+"/0", "--node", fmt.Sprintf("node%d", n), "--lease-ttl", "2s"))
	}
	waitFetched(t, site, hosts*pages/4)
	if err := r.Restart(); err != nil {
		t.Fatal(err)
	}
	for n, k := range kids {
		code := k.wait(t)
		stderr := k.err.String()
		t.Logf("node%d: exit %d: %s", n, code, tail(stderr, 2))
		if code == 0 {
			t.Errorf("node%d: exit 0 after Redis lost the crawl's state; stdout %s", n, k.out.String())
		}
		for _, want := range []string{"the crawl's state in Redis is gone", "bloomcrawl:epoch missing", "To resume"} {
			if !strings.Contains(stderr, want) {
				t.Errorf("node%d (exit %d): stderr lacks %q:\n%s", n, code, want, tail(stderr, 10))
			}
		}
	}
	site.mu.Lock()
	t.Logf("%d of %d pages fetched when the nodes stopped", len(site.count), hosts*pages)
	site.mu.Unlock()
}
