//go:build linux

package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/bloomcrawl/bloomcrawl/cluster"
	"github.com/bloomcrawl/bloomcrawl/lab/newssite"
	"github.com/bloomcrawl/bloomcrawl/lab/redistest"
	"github.com/bloomcrawl/bloomcrawl/storage"
)

// TestClusterContinuousKill runs a continuous crawl on three nodes (child
// processes, one redis-server) over a six-host news site that publishes
// an article on every host every 400 ms (every third one syndicated on the
// next host), with the hubs refreshed every 2 s (seeds_every). Halfway the
// node holding the most hosts is killed with SIGKILL: the other two take
// its partitions over after the lease TTL (3 s) and refresh its hubs from
// the schedule it left in Redis. Then: at least 99% of the articles are
// fetched (in fact all), the median delay from publication to fetch is
// at most 7 s, no article is fetched twice but those the dead node had in
// flight, each hub is on its partition's schedule (or queued) exactly
// once, `query --cluster stats` counts the refreshes cluster-wide, and a
// syndicated copy shares its original's docId exactly when it does in a
// one-node crawl of the same site.
func TestClusterContinuousKill(t *testing.T) {
	addr := redistest.Start(t)
	url := "redis://" + addr + "/0"
	const hosts, nodes = 6, 3
	site, err := newssite.Start(hosts)
	if err != nil {
		t.Fatal(err)
	}
	defer site.Close()
	site.Publish()

	var kids []*started
	var stores []string
	for n := range nodes {
		var b strings.Builder
		b.WriteString("seeds:\n")
		for _, h := range site.Hosts {
			fmt.Fprintf(&b, "  - %s\n", h.URL("/"))
		}
		fmt.Fprintf(&b, "scope:\n  max_depth: 2\n  sitemaps: off\npoliteness:\n  obey_robots: false\n  per_host_parallelism: 2\n  concurrency: 4\n  user_agent: \"bloomcrawl-test node%d\"\n", n)
		b.WriteString("recrawl:\n  continuous: true\n  seeds_every: 2s\n")
		cfg := filepath.Join(t.TempDir(), fmt.Sprintf("node%d.yaml", n))
		if err := os.WriteFile(cfg, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		store := filepath.Join(t.TempDir(), "db")
		stores = append(stores, store)
		kids = append(kids, startChild(t, "crawl", cfg, "--store", store, "--json", "--cluster", url,
			"--node", fmt.Sprintf("node%d", n), "--lease-ttl", "3s"))
	}

	// Publish for 20 s; kill the node holding the most hosts after 10.
	rdb := redis.NewClient(&redis.Options{Addr: addr})
	defer rdb.Close()
	var killedAt time.Time
	victim := -1
	for i := 0; i < 50; i++ {
		time.Sleep(400 * time.Millisecond)
		site.Publish()
		if i == 25 {
			victim = busiestNode(t, rdb, site, nodes)
			if err := kids[victim].cmd.Process.Signal(syscall.SIGKILL); err != nil {
				t.Fatal(err)
			}
			<-kids[victim].done
			killedAt = time.Now()
			t.Logf("killed node%d", victim)
		}
	}
	stopped := time.Now()

	// Every article, fetched within 15 s of the last publication.
	missing := func() (miss, total int) {
		for _, h := range site.Hosts {
			for id := 1; id <= h.Articles(); id++ {
				total++
				if h.Hits(newssite.ArticlePath(id)) == 0 {
					miss++
				}
			}
		}
		return miss, total
	}
	for time.Since(stopped) < 15*time.Second {
		if m, _ := missing(); m == 0 {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	miss, total := missing()
	if float64(total-miss) < 0.99*float64(total) {
		t.Errorf("%d of %d articles fetched, want >= 99%%", total-miss, total)
	}
	var delays []time.Duration
	twice := 0
	for hi, h := range site.Hosts {
		for id := 1; id <= h.Articles(); id++ {
			p := newssite.ArticlePath(id)
			if first := h.FirstHit(p); !first.IsZero() {
				delays = append(delays, first.Sub(h.Published(id)))
			}
			switch n := h.Hits(p); {
			case n == 2 && h.FirstHit(p).Before(killedAt):
				twice++ // in flight at the dead node
			case n > 1:
				t.Errorf("host %d article %d fetched %d times", hi, id, n)
			}
		}
	}
	// at most what the dead node had taken and not acknowledged: its
	// feeder's room, 24 × concurrency
	if twice > 24*4 {
		t.Errorf("%d articles fetched twice, want at most 96 (in flight at the dead node)", twice)
	}
	slices.Sort(delays)
	median := delays[len(delays)/2]
	t.Logf("%d of %d articles fetched; delay from publication median %v, p99 %v, max %v; %d fetched twice (in flight at the kill)",
		total-miss, total, median, delays[len(delays)*99/100], delays[len(delays)-1], twice)
	if median > 7*time.Second {
		t.Errorf("median delay from publication %v, want <= 7s", median)
	}

	// With nothing published any more, each hub's next refresh is a
	// conditional GET answered 304, also on the hosts the dead node had
	// (the new owner sends the validators of the schedule's record).
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		all := true
		for _, h := range site.Hosts {
			all = all && h.NotModified() > 0
		}
		if all {
			break
		}
		if time.Now().After(deadline) {
			for i, h := range site.Hosts {
				if h.NotModified() == 0 {
					t.Errorf("hub of host %d never answered 304", i)
				}
			}
			break
		}
	}

	// The cluster's refresh counters, while the survivors run (each
	// node publishes its counters every lease round, TTL/3).
	time.Sleep(1500 * time.Millisecond)
	out, stderr, code := runQ(t, "--cluster", url, "stats", "--json")
	var rep cluster.Report
	if err := json.Unmarshal([]byte(out), &rep); code != 0 || err != nil {
		t.Fatalf("query --cluster stats: exit %d, %v\n%s%s", code, err, out, stderr)
	}
	t.Logf("cluster: refreshed %d, not_modified %d, changed %d, behind_schedule %d; schedule %d URLs, %d due",
		rep.Total.Refreshed, rep.Total.NotModified, rep.Total.Changed, rep.Total.BehindSchedule, rep.RefreshScheduled, rep.RefreshDue)
	if rep.Total.Refreshed == 0 || rep.Total.Changed == 0 || rep.Total.NotModified == 0 || rep.RefreshScheduled == 0 {
		t.Errorf("query --cluster stats: %+v, want refreshes counted and a schedule", rep.Total)
	}
	text, _, _ := runQ(t, "--cluster", url, "stats")
	for _, w := range []string{"refreshed", "not_modified", "changed", "behind_schedule", "refresh schedule"} {
		if !strings.Contains(text, w) {
			t.Errorf("query --cluster stats: no %q in\n%s", w, text)
		}
	}

	for n, k := range kids {
		if n != victim {
			k.cmd.Process.Signal(syscall.SIGTERM)
		}
	}
	for n, k := range kids {
		if n == victim {
			continue
		}
		if code := k.wait(t); code != 130 {
			t.Errorf("node%d after SIGTERM: exit %d\n%s", n, code, tail(k.err.String(), 20))
		}
	}

	// Each hub is on its partition's schedule or in its stream, once in
	// the schedules: no scheduled refresh lost with the dead node.
	ctx := context.Background()
	sched, queued := map[string]int{}, map[string]bool{}
	for p := range 16 {
		us, err := rdb.ZRange(ctx, fmt.Sprintf("bloomcrawl:{p:%d}:due", p), 0, -1).Result()
		if err != nil {
			t.Fatal(err)
		}
		for _, u := range us {
			sched[u]++
		}
		msgs, err := rdb.XRange(ctx, fmt.Sprintf("bloomcrawl:{p:%d}:q", p), "-", "+").Result()
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range msgs {
			if u, _ := m.Values["u"].(string); u != "" {
				queued[u] = true
			}
		}
	}
	for _, h := range site.Hosts {
		hub := h.URL("/")
		if sched[hub] > 1 || sched[hub] == 0 && !queued[hub] {
			t.Errorf("hub %s: %d times on the schedule, queued %v; want once on it, or queued", hub, sched[hub], queued[hub])
		}
	}
	if len(sched) > hosts {
		t.Errorf("%d URLs on the schedule, want the %d hubs only", len(sched), hosts)
	}

	// Syndicated copies: mapped to their original as on one node.
	docOf := map[string]storage.DocID{}
	hubDocs := map[string]map[storage.DocID]bool{} // a hub's docIds in all the stores
	hubStores := map[string]int{}                  // the stores holding a hub's page
	for n, dir := range stores {
		var db *storage.DB
		if n == victim {
			db, err = storage.Open(dir, nil) // Badger replays its log
		} else {
			db, err = storage.Open(dir, &storage.Options{ReadOnly: true})
		}
		if err != nil {
			t.Fatalf("open node%d's store: %v", n, err)
		}
		hubs := map[string]storage.DocID{}
		err = db.ForEachURL(ctx, func(r storage.URLRecord) error {
			if strings.HasSuffix(r.URL, "/") && r.DocID != 0 {
				hubs[r.URL] = r.DocID
			}
			if r.DocID != 0 {
				docOf[r.URL] = r.DocID
				if strings.HasSuffix(r.URL, "/") {
					if hubDocs[r.URL] == nil {
						hubDocs[r.URL] = map[storage.DocID]bool{}
					}
					hubDocs[r.URL][r.DocID] = true
				}
			}
			return nil
		})
		for u, id := range hubs {
			if _, perr := db.Page(id); perr == nil {
				hubStores[u]++
			}
		}
		db.Close()
		if err != nil {
			t.Fatal(err)
		}
	}
	// A hub keeps its docId whichever node refreshed it; the dead node's
	// hubs, refreshed and changed after the hand-over, are stored by
	// their new owners too.
	for hub, ids := range hubDocs {
		if len(ids) != 1 {
			t.Errorf("hub %s has docIds %v in the nodes' stores, want one", hub, ids)
		}
	}
	moved := 0
	for _, n := range hubStores {
		if n > 1 {
			moved++
		}
	}
	t.Logf("%d hubs stored by two nodes (the dead one's, taken over)", moved)
	if moved == 0 {
		t.Error("no hub stored by its new owner after the hand-over")
	}
	one := t.TempDir()
	var ob, eb strings.Builder
	oneArgs := []string{"crawl", "--store", one, "--json"}
	for _, h := range site.Hosts {
		oneArgs = append(oneArgs, "--seed", h.URL("/"))
	}
	if code := run(ctx, oneArgs, &ob, &eb); code != 0 {
		t.Fatalf("one-node crawl: exit %d: %s", code, eb.String())
	}
	db, err := storage.Open(one, &storage.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	copies, mapped, differ := 0, 0, 0
	for hi, h := range site.Hosts {
		for _, c := range h.Copies() {
			cu, ou := h.URL(newssite.CopyPath(c[0], c[1])), site.Hosts[c[0]].URL(newssite.ArticlePath(c[1]))
			cr, err1 := db.URLRecord(cu)
			or, err2 := db.URLRecord(ou)
			if errors.Is(err1, storage.ErrNotFound) || errors.Is(err2, storage.ErrNotFound) {
				continue // published after the one-node crawl read the hub
			}
			if err1 != nil || err2 != nil {
				t.Fatal(err1, err2)
			}
			copies++
			oneNode := cr.DocID == or.DocID
			inCluster := docOf[cu] != 0 && docOf[cu] == docOf[ou]
			if inCluster {
				mapped++
			}
			if oneNode != inCluster {
				differ++
				t.Errorf("host %d copy of %d/%d: shares its original's docId on one node %v, in the cluster %v", hi, c[0], c[1], oneNode, inCluster)
			}
		}
	}
	t.Logf("%d of %d syndicated copies share their original's docId in the cluster; %d differ from one node", mapped, copies, differ)
	if copies == 0 {
		t.Error("no syndicated copies compared")
	}
}

// busiestNode returns the node holding the leases of the most of the
// site's hosts' partitions (an IP address is its own partition key:
// xxhash64 of it modulo 16, as cluster.Node.Partition computes).
func busiestNode(t *testing.T, rdb *redis.Client, site *newssite.Site, nodes int) int {
	t.Helper()
	count := make([]int, nodes)
	for _, h := range site.Hosts {
		host := strings.TrimPrefix(h.URL(""), "http://")
		p := cluster.PartitionOf(host, 16)
		owner, err := rdb.Get(context.Background(), fmt.Sprintf("bloomcrawl:{p:%d}:lease", p)).Result()
		if err != nil {
			t.Fatalf("lease of partition %d: %v", p, err)
		}
		var n int
		if _, err := fmt.Sscanf(owner, "node%d", &n); err == nil && n < nodes {
			count[n]++
		}
	}
	best := 0
	for n := range count {
		if count[n] > count[best] {
			best = n
		}
	}
	t.Logf("hosts per node: %v", count)
	return best
}

// TestClusterContinuousAfterOneShot: two nodes crawl a two-host news site
// once (no --continuous: they exit when it is done), the site publishes
// more, and the same nodes start again with --continuous: the hubs go on
// the cluster's schedule from the nodes' stores (their seeds are seen:
// nothing else would fetch them again), so the new articles are fetched,
// and no article twice.
func TestClusterContinuousAfterOneShot(t *testing.T) {
	addr := redistest.Start(t)
	url := "redis://" + addr + "/0"
	site, err := newssite.Start(2)
	if err != nil {
		t.Fatal(err)
	}
	defer site.Close()
	site.Publish()
	site.Publish()
	stores := []string{filepath.Join(t.TempDir(), "db"), filepath.Join(t.TempDir(), "db")}
	start := func(n int, more ...string) *started {
		args := []string{"crawl", "--store", stores[n], "--json", "--cluster", url, "--node", fmt.Sprintf("node%d", n), "--lease-ttl", "2s"}
		for _, h := range site.Hosts {
			args = append(args, "--seed", h.URL("/"))
		}
		return startChild(t, append(args, more...)...)
	}
	a, b := start(0), start(1)
	for n, k := range []*started{a, b} {
		if code := k.wait(t); code != 0 {
			t.Fatalf("one-shot node%d: exit %d\n%s", n, code, tail(k.err.String(), 20))
		}
	}
	before := site.Hosts[0].Articles()
	site.Publish()
	site.Publish()
	a, b = start(0, "--continuous", "--refresh", "500ms"), start(1, "--continuous", "--refresh", "500ms")
	fetchedAll := func() bool {
		for _, h := range site.Hosts {
			for id := 1; id <= h.Articles(); id++ {
				if h.Hits(newssite.ArticlePath(id)) == 0 {
					return false
				}
			}
		}
		return true
	}
	for deadline := time.Now().Add(20 * time.Second); !fetchedAll(); time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the articles published after the one-shot crawl were not fetched in 20 s\n%s", tail(a.err.String(), 20))
		}
	}
	for _, k := range []*started{a, b} {
		k.cmd.Process.Signal(syscall.SIGTERM)
		k.wait(t)
	}
	for hi, h := range site.Hosts {
		for id := 1; id <= h.Articles(); id++ {
			if n := h.Hits(newssite.ArticlePath(id)); n != 1 {
				t.Errorf("host %d article %d (of %d before the restart) fetched %d times, want 1", hi, id, before, n)
			}
		}
	}
}
