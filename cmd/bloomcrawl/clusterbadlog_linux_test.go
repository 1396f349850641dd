//go:build linux

package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/bloomcrawl/bloomcrawl/lab/redistest"
)

// TestClusterSkipsBadDocEntries writes malformed entries into the
// document log mid-crawl (an undecodable signature, no URL, no node): two
// nodes crawling the syndicated site (copySite) and a third joining
// after the bad entries (replaying them at start) must all skip them,
// count them (cluster_bad_doc_entries) and log each with its ID, and
// keep crawling: every URL fetched once, every article stored once.
func TestClusterSkipsBadDocEntries(t *testing.T) {
	addr := redistest.Start(t)
	const hosts, articles = 4, 30
	site := newCopySite(t, hosts, articles)
	var seeds strings.Builder
	for _, h := range site.hosts {
		fmt.Fprintf(&seeds, "  - %s/a/0\n", h.URL)
	}
	cfg := filepath.Join(t.TempDir(), "c.yaml")
	y := fmt.Sprintf("seeds:\n%sscope:\n  max_depth: 40\n  sitemaps: off\npoliteness:\n  obey_robots: false\n  per_host_parallelism: 1\n  concurrency: 2\n  delay: 20ms\n", seeds.String())
	if err := os.WriteFile(cfg, []byte(y), 0o644); err != nil {
		t.Fatal(err)
	}
	node := func(n int) *started {
		return startChild(t, "crawl", cfg, "--store", filepath.Join(t.TempDir(), "s"), "--json", "--mem-limit-mb", "0",
			"--cluster", "redis://"+addr+"/0", "--node", fmt.Sprintf("node%d", n), "--lease-ttl", "2s")
	}
	kids := []*started{node(0), node(1)}
	ctx := context.Background()
	rdb := redis.NewClient(&redis.Options{Addr: addr})
	defer rdb.Close()
	const logKey = "bloomcrawl:{docs}:log"
	for i := 0; ; i++ {
		n, _ := rdb.XLen(ctx, logKey).Result()
		if n >= 20 {
			break
		}
		if i == 1000 {
			t.Fatalf("the document log has %d entries after 20 s", n)
		}
		time.Sleep(20 * time.Millisecond)
	}
	bad := []map[string]any{
		{"n": "intruder", "u": "http://bad.example/1", "c": "", "s": "not a signature", "a": ""},
		{"n": "intruder", "d": "\x7fcut short"}, // packed documents, truncated
		{"u": "http://bad.example/3", "s": ""},
	}
	var ids []string
	for _, v := range bad {
		id, err := rdb.XAdd(ctx, &redis.XAddArgs{Stream: logKey, Values: v}).Result()
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	if n, _ := rdb.XLen(ctx, logKey).Result(); n >= int64(2*hosts*articles) {
		t.Fatalf("the crawl had logged all %d pages before the bad entries: the test shows nothing", n)
	}
	kids = append(kids, node(2))
	var stored, dups int64
	for n, st := range finishNodes(t, kids) {
		k := kids[n]
		t.Logf("node%d: fetched %d stored %d duplicates %d, bad log entries skipped %d", n, st.Fetched, st.Stored, st.Duplicates, st.ClusterBadDocEntries)
		if st.ClusterBadDocEntries != int64(len(bad)) {
			t.Errorf("node%d: cluster_bad_doc_entries %d, want %d", n, st.ClusterBadDocEntries, len(bad))
		}
		for _, id := range ids {
			if !strings.Contains(k.err.String(), "malformed entry skipped") || !strings.Contains(k.err.String(), id) {
				t.Errorf("node%d: entry %s not logged as skipped; stderr:\n%s", n, id, tail(k.err.String(), 30))
			}
		}
		stored, dups = stored+st.Stored, dups+st.Duplicates
	}
	site.mu.Lock()
	defer site.mu.Unlock()
	for u, c := range site.count {
		if c != 1 {
			t.Errorf("%s fetched %d times", u, c)
		}
	}
	if len(site.count) != 2*hosts*articles {
		t.Errorf("%d URLs fetched, want %d", len(site.count), 2*hosts*articles)
	}
	if want := int64(hosts*articles + articles); stored != want || dups != int64((hosts-1)*articles) {
		t.Errorf("summaries: %d stored, %d duplicates; want %d and %d", stored, dups, want, (hosts-1)*articles)
	}
}
