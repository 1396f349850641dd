//go:build linux

package main

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/bloomcrawl/bloomcrawl/lab/redistest"
)

// TestClusterJoinAfterTrim: a crawl's only node finishes and exits,
// leaving the document log trimmed to nothing (its history is in the
// node's store). Started again on its store, the node replays its own
// copy and exits 0 with no other node live; a new node on an empty store
// finds no live node to send it the history and exits 1 saying what to
// start.
func TestClusterJoinAfterTrim(t *testing.T) {
	addr := redistest.Start(t)
	site := newCopySite(t, 2, 10)
	cfg := writeConfig(t, fmt.Sprintf("seeds:\n  - %s/a/0\n  - %s/a/0\nscope:\n  max_depth: 40\n  sitemaps: off\npoliteness:\n  obey_robots: false\n", site.hosts[0].URL, site.hosts[1].URL))
	store0 := filepath.Join(t.TempDir(), "s")
	node := func(n int, store string) *started {
		return startChild(t, "crawl", cfg, "--store", store, "--json", "--mem-limit-mb", "0",
			"--cluster", "redis://"+addr+"/0", "--node", fmt.Sprintf("node%d", n), "--lease-ttl", "1s")
	}
	first := finishNodes(t, []*started{node(0, store0)})
	if first[0].Fetched == 0 {
		t.Fatal("the first node fetched nothing")
	}
	rdb := redis.NewClient(&redis.Options{Addr: addr})
	defer rdb.Close()
	ctx := context.Background()
	if l, err := rdb.XLen(ctx, "bloomcrawl:{docs}:log").Result(); err != nil || l != 0 {
		t.Fatalf("the log holds %d entries (%v) after the crawl's only node exited, want 0", l, err)
	}
	again := node(0, store0)
	if code := again.wait(t); code != 0 {
		t.Fatalf("node0 again on its store: exit %d; stderr:\n%s", code, tail(again.err.String(), 20))
	}
	if !strings.Contains(again.err.String(), fmt.Sprintf("entries=%d", first[0].Fetched)) && !strings.Contains(again.err.String(), fmt.Sprintf(`"entries":%d`, first[0].Fetched)) {
		t.Errorf("node0 again did not replay its %d entries from its store; stderr:\n%s", first[0].Fetched, tail(again.err.String(), 20))
	}
	late := node(1, filepath.Join(t.TempDir(), "s"))
	code := late.wait(t)
	if code != 1 || !strings.Contains(late.err.String(), "start a node that has this crawl's store") {
		t.Fatalf("a new node on an empty store, the log trimmed and no node live: exit %d; stderr:\n%s", code, tail(late.err.String(), 20))
	}
	for _, l := range strings.Split(late.err.String(), "\n") {
		if strings.Contains(l, "start a node") {
			t.Logf("the new node: exit %d: %s", code, l)
		}
	}
}
