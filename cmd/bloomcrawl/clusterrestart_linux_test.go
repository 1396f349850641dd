//go:build linux

package main

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/bloomcrawl/bloomcrawl/cluster"
	"github.com/bloomcrawl/bloomcrawl/crawler"
	"github.com/bloomcrawl/bloomcrawl/lab/redistest"
	"github.com/bloomcrawl/bloomcrawl/storage"
	"github.com/redis/go-redis/v9"
)

// finishNodes waits for every node to exit 0 (failing the test with its
// stderr otherwise) and returns their --json summaries.
func finishNodes(t *testing.T, kids []*started) []crawler.Stats {
	t.Helper()
	out := make([]crawler.Stats, len(kids))
	for n, k := range kids {
		if code := k.wait(t); code != 0 {
			t.Fatalf("node%d: exit %d; stderr:\n%s", n, code, tail(k.err.String(), 30))
		}
		if err := json.Unmarshal([]byte(k.out.String()), &out[n]); err != nil {
			t.Fatalf("node%d: summary %q: %v", n, k.out.String(), err)
		}
	}
	return out
}

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
	if err := r.Restart(0); err != nil {
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

// TestClusterRedisRestartWithAOF: Redis with persistence (appendonly yes,
// appendfsync everysec) is killed -9 a quarter into a three-node crawl
// and started again 4 s later (twice the lease TTL): the nodes
// wait for it, continue, and end with exit 0; every page is fetched
// (twice at most: a page in flight whose queue entry Redis lost in its
// last second), and the stores together hold every page exactly once:
// the previous owners take their expired leases back before any other
// node may acquire them, so no entry a node has stored, its ack still
// queued, is claimed and stored again by another.
func TestClusterRedisRestartWithAOF(t *testing.T) {
	r := redistest.StartRestartable(t, "--appendonly", "yes", "--appendfsync", "everysec")
	const hosts, pages, nodes = 4, 120, 3
	site := newClusterSite(t, hosts, pages)
	kids, stores := startClusterNodes(t, site, r.Addr, nodes)
	waitFetched(t, site, hosts*pages/4)
	if err := r.Restart(4 * time.Second); err != nil {
		t.Fatal(err)
	}
	finishNodes(t, kids)
	for n, k := range kids {
		if !strings.Contains(k.err.String(), "Redis unreachable; waiting for it") || !strings.Contains(k.err.String(), "Redis answers again") {
			t.Errorf("node%d: no message about waiting for Redis; stderr:\n%s", n, tail(k.err.String(), 30))
		}
	}
	twice, stored2, _ := checkStoredOnce(t, site, stores)
	t.Logf("%d pages, %d fetched twice, %d stored by two nodes", hosts*pages, twice, stored2)
}

// clusterLeaseTTL is the lease TTL startClusterNodes gives its nodes.
const clusterLeaseTTL = 2 * time.Second

// startClusterNodes starts nodes crawl children of site against the
// Redis at addr (lease TTL clusterLeaseTTL, waiting up to 20 s for Redis)
// and returns them and their stores.
func startClusterNodes(t *testing.T, site *clusterSite, addr string, nodes int) ([]*started, []string) {
	var kids []*started
	var stores []string
	for n := range nodes {
		store := filepath.Join(t.TempDir(), "s")
		stores = append(stores, store)
		kids = append(kids, startChild(t, "crawl", clusterConfig(t, site, n), "--store", store, "--json", "--mem-limit-mb", "0",
			"--cluster", "redis://"+addr+"/0", "--node", fmt.Sprintf("node%d", n), "--lease-ttl", clusterLeaseTTL.String(), "--redis-wait", "20s"))
	}
	return kids, stores
}

// checkStoredOnce fails t unless every page of site was fetched once or
// twice (twice: in flight when Redis died) and the stores together hold
// each page exactly once; it returns the pages fetched twice, those
// stored by two nodes, and the stores' URLs with their counts.
func checkStoredOnce(t *testing.T, site *clusterSite, stores []string) (twice, stored2 int, all map[string]int) {
	t.Helper()
	site.mu.Lock()
	defer site.mu.Unlock()
	for _, h := range site.hosts {
		for i := range site.pages {
			key := strings.TrimPrefix(h.URL, "http://") + "/p/" + strconv.Itoa(i)
			switch c := site.count[key]; {
			case c == 0 || c > 2:
				t.Errorf("%s fetched %d times, want 1 (2 if in flight when Redis died)", key, c)
			case c == 2:
				twice++
			}
		}
	}
	all = map[string]int{}
	for _, s := range stores {
		for u := range storeURLs(t, s) {
			all[u]++
		}
	}
	for u, c := range all {
		if c > 1 {
			stored2++
			if stored2 <= 10 {
				t.Errorf("%s stored by %d nodes (fetched %d times), want 1", u, c, site.count[strings.TrimPrefix(u, "http://")])
			}
		}
	}
	if want := len(site.hosts) * site.pages; len(all) != want {
		t.Errorf("the stores hold %d URLs together, want %d", len(all), want)
	}
	return twice, stored2, all
}

// TestClusterRedisLosesLastSecond: Redis with persistence (appendonly
// yes, appendfsync everysec) loses the last moments of its writes, as
// when its machine crashes: a third into a three-node crawl its
// append-only directory is copied (what an fsync would have left on
// disk), the crawl runs on 700 ms more, then redis-server is killed -9,
// the copy put back and Redis started again on the same port. What the
// nodes admitted, acknowledged and logged in those 700 ms is gone from
// Redis; the nodes must give it back: every page stored exactly once
// across the nodes and none missing, pages fetched twice only if they
// were in flight when Redis died.
func TestClusterRedisLosesLastSecond(t *testing.T) {
	r := redistest.StartRestartable(t, "--appendonly", "yes", "--appendfsync", "everysec")
	const hosts, pages, nodes = 4, 500, 3
	site := newClusterSite(t, hosts, pages)
	kids, stores := startClusterNodes(t, site, r.Addr, nodes)
	waitFetched(t, site, hosts*pages/3)
	saved, err := r.SaveAOF()
	if err != nil {
		t.Fatal(err)
	}
	site.mu.Lock()
	atSave := len(site.count)
	site.mu.Unlock()
	time.Sleep(700 * time.Millisecond)
	site.mu.Lock()
	atCrash := len(site.count)
	site.mu.Unlock()
	if err := r.RestartFrom(saved, time.Second); err != nil {
		t.Fatal(err)
	}
	t.Logf("pages fetched when the AOF was saved: %d; when Redis was killed: %d (%d in the lost moments)", atSave, atCrash, atCrash-atSave)
	if atCrash-atSave < 50 || atCrash >= hosts*pages {
		t.Fatalf("%d pages fetched in the lost moments (%d of %d in all): the crawl must be running then for the test to lose anything", atCrash-atSave, atCrash, hosts*pages)
	}
	finishNodes(t, kids)
	for n, k := range kids {
		for _, l := range strings.Split(k.err.String(), "\n") {
			if strings.Contains(l, "Redis restarted") || strings.Contains(l, "without a fetch") || strings.Contains(l, "journal of the writes") {
				t.Logf("node%d: %s", n, l)
			}
		}
		if !strings.Contains(k.err.String(), "Redis restarted (new run_id)") {
			t.Errorf("node%d: no message about re-offering the journal; stderr:\n%s", n, tail(k.err.String(), 30))
		}
	}
	twice, stored2, all := checkStoredOnce(t, site, stores)
	// the document log has every page (a node starting now would learn
	// them all): the entries Redis lost were put back. The log's history
	// is in the nodes' copies (each holds what it applied), its tail in
	// Redis: an entry counts once however many of them hold it.
	rdb := redis.NewClient(&redis.Options{Addr: r.Addr})
	defer rdb.Close()
	docs, err := cluster.ReadDocLog(context.Background(), rdb, "bloomcrawl", 10*hosts*pages)
	if err != nil {
		t.Fatal(err)
	}
	for _, st := range stores {
		db, err := storage.Open(st, &storage.Options{ReadOnly: true})
		if err != nil {
			t.Fatal(err)
		}
		h, err := cluster.ReadDocHistory(db, 10*hosts*pages)
		db.Close()
		if err != nil {
			t.Fatal(err)
		}
		docs = append(docs, h...)
	}
	type ref struct {
		id  string
		idx int
	}
	entries := map[ref]bool{}
	var uniq []cluster.DocEntry
	for _, d := range docs {
		if k := (ref{d.ID, d.Index}); !entries[k] {
			entries[k] = true
			uniq = append(uniq, d)
		}
	}
	docs = uniq
	logged := map[string]int{}
	for _, d := range docs {
		logged[d.URL]++
	}
	again := 0
	for u := range all {
		switch c := logged[u]; {
		case c == 0:
			t.Errorf("%s is stored but not in the document log", u)
		case c > 1:
			again++
		}
	}
	t.Logf("document log: %d entries, %d URLs logged more than once", len(docs), again)
	// a page in flight on a node when Redis died: at most the feeder's
	// room (24 × concurrency 4) per node
	if twice > nodes*24*4 {
		t.Errorf("%d pages fetched twice, more than the %d the nodes can have in flight", twice, nodes*24*4)
	}
	t.Logf("%d pages, %d fetched twice, %d stored by two nodes", hosts*pages, twice, stored2)
}
