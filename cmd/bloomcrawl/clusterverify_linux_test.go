//go:build linux

package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/bloomcrawl/bloomcrawl/crawler"
	"github.com/bloomcrawl/bloomcrawl/lab/redistest"
)

// TestClusterVerifyLosesNothing runs three nodes with a seen-state sized
// for one URL (dedup.capacity 1: its partitions add fingerprint levels all
// the way) and dedup.target_fp 0.4 (which the exact seen-state ignores):
// every page must still be fetched exactly once (counted by the site),
// the nodes' stores must hold every page, and the summaries count no
// false positive (filter_false_positives 0: the seen-state answers
// exactly; cluster's TestSeenStateExact checks it with the nodes' local
// caches cleared over and over).
func TestClusterVerifyLosesNothing(t *testing.T) {
	redisAddr := redistest.Start(t)
	const hosts, pages, nodes = 4, 100, 3
	site := newClusterSite(t, hosts, pages)
	var kids []*started
	var stores []string
	for n := range nodes {
		cfg := clusterConfig(t, site, n)
		f, err := os.OpenFile(cfg, os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(f, "dedup:\n  capacity: 1\n  target_fp: 0.4\n")
		f.Close()
		store := filepath.Join(t.TempDir(), "s")
		stores = append(stores, store)
		kids = append(kids, startChild(t, "crawl", cfg, "--store", store, "--json", "--mem-limit-mb", "0",
			"--cluster", "redis://"+redisAddr+"/0", "--node", fmt.Sprintf("node%d", n), "--lease-ttl", "2s"))
	}
	var fps uint64
	for n, k := range kids {
		if code := k.wait(t); code != 0 {
			t.Fatalf("node%d: exit %d; stderr:\n%s", n, code, tail(k.err.String(), 30))
		}
		var st crawler.Stats
		if err := json.Unmarshal([]byte(k.out.String()), &st); err != nil {
			t.Fatalf("node%d: summary %q: %v", n, k.out.String(), err)
		}
		if st.FalsePositives == nil {
			t.Fatalf("node%d: no filter_false_positives in the summary", n)
		}
		t.Logf("node%d: fetched %d, false positives %d", n, st.Fetched, *st.FalsePositives)
		fps += *st.FalsePositives
	}
	site.mu.Lock()
	defer site.mu.Unlock()
	for _, h := range site.hosts {
		for i := range pages {
			key := strings.TrimPrefix(h.URL, "http://") + "/p/" + strconv.Itoa(i)
			if c := site.count[key]; c != 1 {
				t.Errorf("%s fetched %d times, want 1", key, c)
			}
		}
	}
	if fps != 0 {
		t.Errorf("%d false positives counted; the seen-state is exact", fps)
	}
	all := map[string]bool{}
	for _, s := range stores {
		for u := range storeURLs(t, s) {
			all[u] = true
		}
	}
	if len(all) != hosts*pages {
		t.Errorf("the stores hold %d URLs together, want %d", len(all), hosts*pages)
	}
	t.Logf("%d pages, each fetched once", hosts*pages)
}
