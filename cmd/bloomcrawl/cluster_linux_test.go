//go:build linux

package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/bloomcrawl/bloomcrawl/cluster"
	"github.com/bloomcrawl/bloomcrawl/crawler"
	"github.com/bloomcrawl/bloomcrawl/lab/redistest"
	"github.com/bloomcrawl/bloomcrawl/storage"
)

// clusterSite is several hosts (127.0.0.2, 127.0.0.3, …), each serving
// pages /p/0 … /p/{n-1}: page i links to pages 4i+1 … 4i+4 of its host and
// to page i of the next host. It counts, per host and page, the requests
// from each node (told apart by user agent), and the most requests in
// flight to one host at once.
type clusterSite struct {
	hosts []*httptest.Server
	pages int

	mu       sync.Mutex
	count    map[string]int            // host/p/i → requests
	byNode   map[string]map[string]int // user agent → host/p/i → requests
	active   map[string]int            // host → requests in flight
	maxActiv int
}

func newClusterSite(t *testing.T, hosts, pages int) *clusterSite {
	s := &clusterSite{pages: pages, count: map[string]int{}, byNode: map[string]map[string]int{}, active: map[string]int{}}
	s.hosts = startLoopbackHosts(t, hosts, s.serve)
	return s
}

// startLoopbackHosts starts one test server per host on 127.0.0.2,
// 127.0.0.3 …, each calling serve with its host index; they stop with t.
func startLoopbackHosts(t *testing.T, hosts int, serve func(w http.ResponseWriter, r *http.Request, host int)) []*httptest.Server {
	t.Helper()
	var srvs []*httptest.Server
	for h := range hosts {
		ln, err := net.Listen("tcp", fmt.Sprintf("127.0.0.%d:0", h+2))
		if err != nil {
			t.Fatal(err)
		}
		srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { serve(w, r, h) }))
		srv.Listener.Close()
		srv.Listener = ln
		srv.Start()
		t.Cleanup(srv.Close)
		srvs = append(srvs, srv)
	}
	return srvs
}

func (s *clusterSite) serve(w http.ResponseWriter, r *http.Request, h int) {
	i, err := strconv.Atoi(strings.TrimPrefix(r.URL.Path, "/p/"))
	if !strings.HasPrefix(r.URL.Path, "/p/") || err != nil || i < 0 || i >= s.pages {
		http.NotFound(w, r)
		return
	}
	key := r.Host + r.URL.Path
	s.mu.Lock()
	s.count[key]++
	if s.byNode[r.UserAgent()] == nil {
		s.byNode[r.UserAgent()] = map[string]int{}
	}
	s.byNode[r.UserAgent()][key]++
	s.active[r.Host]++
	s.maxActiv = max(s.maxActiv, s.active[r.Host])
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		s.active[r.Host]--
		s.mu.Unlock()
	}()
	time.Sleep(10 * time.Millisecond) // a request takes a while: overlaps show, and a node joining late finds work left
	var b strings.Builder
	fmt.Fprintf(&b, "<!DOCTYPE html><html><head><title>host %d page %d</title></head><body><p>Host %d, page %d, text %d.</p>\n", h, i, h, i, i*7919+h)
	for c := 4*i + 1; c <= 4*i+4 && c < s.pages; c++ {
		fmt.Fprintf(&b, "<a href=\"/p/%d\">child %d</a>\n", c, c)
	}
	next := s.hosts[(h+1)%len(s.hosts)]
	fmt.Fprintf(&b, "<a href=\"%s/p/%d\">next host</a></body></html>\n", next.URL, i)
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Write([]byte(b.String()))
}

// started is a child bloomcrawl running in the background.
type started struct {
	cmd      *exec.Cmd
	out, err strings.Builder
	done     chan struct{}
}

func startChild(t *testing.T, args ...string) *started {
	t.Helper()
	a, _ := json.Marshal(args)
	s := &started{cmd: exec.Command(os.Args[0], "-test.run=^$"), done: make(chan struct{})}
	s.cmd.Env = append(os.Environ(), childArgsEnv+"="+string(a))
	s.cmd.Stdout, s.cmd.Stderr = &s.out, &s.err
	if err := s.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { s.cmd.Wait(); close(s.done) }()
	t.Cleanup(func() { s.cmd.Process.Kill(); <-s.done })
	return s
}

// wait waits (60 s at most) for the child to exit and returns its code.
func (s *started) wait(t *testing.T) int {
	t.Helper()
	select {
	case <-s.done:
	case <-time.After(60 * time.Second):
		s.cmd.Process.Kill()
		<-s.done
		t.Fatalf("node did not finish in 60 s; stderr:\n%s", tail(s.err.String(), 30))
	}
	return s.cmd.ProcessState.ExitCode()
}

// clusterConfig writes node n's config: the seeds (page 0 of every host),
// unlimited depth in practice, robots.txt and sitemaps off, and a user
// agent that names the node (so the site counts each node's requests).
func clusterConfig(t *testing.T, site *clusterSite, n int) string {
	var b strings.Builder
	b.WriteString("seeds:\n")
	for _, h := range site.hosts {
		fmt.Fprintf(&b, "  - %s/p/0\n", h.URL)
	}
	fmt.Fprintf(&b, "scope:\n  max_depth: 40\n  sitemaps: off\npoliteness:\n  obey_robots: false\n  per_host_parallelism: 2\n  concurrency: 4\n  user_agent: \"bloomcrawl-test node%d\"\n", n)
	return writeConfig(t, b.String())
}

// writeConfig writes the YAML config y to a file of t's and returns its
// path.
func writeConfig(t *testing.T, y string) string {
	p := filepath.Join(t.TempDir(), "c.yaml")
	if err := os.WriteFile(p, []byte(y), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestClusterCrawlFetchesEveryPageOnce runs three nodes (child processes,
// the third joining once a quarter of the site is fetched) against one
// redis-server and a four-host site: every page must be
// fetched exactly once in all (counted by the site), never more than
// per_host_parallelism requests in flight to one host, every node must
// exit by itself when the cluster's frontier is empty, and the nodes'
// stores together must hold every page.
func TestClusterCrawlFetchesEveryPageOnce(t *testing.T) {
	addr := redistest.Start(t)
	clusterCrawl(t, "redis://"+addr+"/0", []string{addr})
}

// TestClusterCrawlOnRedisCluster is TestClusterCrawlFetchesEveryPageOnce
// against a Redis Cluster of three masters (redis+cluster://): the same
// bars, and the crawl's keys spread over all three masters.
func TestClusterCrawlOnRedisCluster(t *testing.T) {
	addrs := redistest.StartCluster(t, 3)
	clusterCrawl(t, redistest.ClusterURL(addrs), addrs)
	ctx := context.Background()
	for _, a := range addrs {
		rdb := redis.NewClient(&redis.Options{Addr: a})
		keys, err := rdb.Keys(ctx, "bloomcrawl:{p:*}:q").Result()
		rdb.Close()
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("master %s holds %d partition streams", a, len(keys))
		if len(keys) == 0 {
			t.Errorf("master %s holds none of the 16 partitions' streams", a)
		}
	}
}

// clusterCrawl runs the three-node crawl against the Redis at url
// (servers at addrs, for INFO).
func clusterCrawl(t *testing.T, url string, addrs []string) {
	const hosts, pages, nodes = 4, 120, 3
	site := newClusterSite(t, hosts, pages)
	var kids []*started
	var stores []string
	for n := range nodes {
		if n == nodes-1 {
			// The last node joins mid-crawl: the others give up
			// partitions to it (draining them first).
			for i := 0; ; i++ {
				if i == 600 {
					t.Fatal("the crawl did not reach a quarter of the site in 30 s")
				}
				site.mu.Lock()
				fetched := len(site.count)
				site.mu.Unlock()
				if fetched >= hosts*pages/4 {
					t.Logf("node%d joins with %d of %d pages fetched", n, fetched, hosts*pages)
					break
				}
				time.Sleep(20 * time.Millisecond)
			}
		}
		store := filepath.Join(t.TempDir(), "s")
		stores = append(stores, store)
		kids = append(kids, startChild(t, "crawl", clusterConfig(t, site, n), "--store", store, "--json", "--mem-limit-mb", "0",
			"--cluster", url, "--node", fmt.Sprintf("node%d", n), "--lease-ttl", "2s"))
	}
	checkClusterStatsMidCrawl(t, url)
	var fetched int64
	held := 0
	for n, k := range kids {
		if code := k.wait(t); code != 0 {
			t.Fatalf("node%d: exit %d; stderr:\n%s", n, code, tail(k.err.String(), 30))
		}
		var st crawler.Stats
		if err := json.Unmarshal([]byte(k.out.String()), &st); err != nil {
			t.Fatalf("node%d: summary %q: %v", n, k.out.String(), err)
		}
		t.Logf("node%d: fetched %d stored %d duplicates %d errors %d in %.1fs", n, st.Fetched, st.Stored, st.Duplicates, st.Errors, st.Seconds)
		fetched += st.Fetched
		held += len(st.ClusterPartitions)
		t.Logf("node%d: partitions %v at the end", n, st.ClusterPartitions)
		if st.Errors != 0 {
			t.Errorf("node%d: %d errors", n, st.Errors)
		}
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
	if held == 0 {
		t.Error("no node's summary names a partition it holds (cluster_partitions)")
	}
	if fetched != hosts*pages {
		t.Errorf("the nodes' summaries add up to %d fetched, want %d", fetched, hosts*pages)
	}
	if site.maxActiv > 2 {
		t.Errorf("%d requests in flight to one host at once, want at most per_host_parallelism 2", site.maxActiv)
	}
	all := map[string]bool{}
	for _, s := range stores {
		for u := range storeURLs(t, s) {
			if all[u] {
				t.Errorf("%s recorded by two nodes", u)
			}
			all[u] = true
		}
	}
	if len(all) != hosts*pages {
		t.Errorf("the stores hold %d URLs together, want %d", len(all), hosts*pages)
	}
	for ua, m := range site.byNode {
		t.Logf("%s: %d pages", ua, len(m))
	}
	r := clusterStatsJSON(t, url)
	if r.Total.Pages != hosts*pages || r.Total.Stored != hosts*pages || r.URLs != hosts*pages || r.URLsDone != hosts*pages || len(r.Nodes) != nodes {
		t.Errorf("query --cluster stats at the end: total %+v, urls %d done %d, %d nodes; want %d pages stored, urls, done, %d nodes",
			r.Total, r.URLs, r.URLsDone, len(r.Nodes), hosts*pages, nodes)
	}
	for _, n := range r.Nodes {
		want := int64(len(site.byNode["bloomcrawl-test "+n.Name]))
		if n.Live || n.State != "exited" || n.Pages != want {
			t.Errorf("query --cluster stats: node %+v, want exited, not live, %d pages (its fetches counted by the site)", n, want)
		}
	}
	for _, p := range r.Partitions {
		if p.Owner != "" || p.Length != 0 || p.Pending != 0 || p.Queued != p.Done {
			t.Errorf("query --cluster stats: partition %+v at the end, want no owner, empty queue, done = queued", p)
		}
	}
	logRedisCost(t, addrs, hosts*pages)
}

// clusterStatsJSON runs query --cluster URL stats --json.
func clusterStatsJSON(t *testing.T, url string) cluster.Report {
	t.Helper()
	var out, errb strings.Builder
	if code := run(context.Background(), []string{"query", "--cluster", url, "stats", "--json"}, &out, &errb); code != 0 {
		t.Fatalf("query --cluster stats: exit %d: %s", code, errb.String())
	}
	var r cluster.Report
	if err := json.Unmarshal([]byte(out.String()), &r); err != nil {
		t.Fatalf("query --cluster stats --json: %v\n%s", err, out.String())
	}
	return r
}

// checkClusterStatsMidCrawl: while the nodes crawl (the third just
// started), query --cluster stats shows the first two live and running
// with partitions, every leased partition owned by a node with time left,
// pages fetched, and URLs queued but not all done; its text form names
// the nodes.
func checkClusterStatsMidCrawl(t *testing.T, url string) {
	t.Helper()
	// The nodes publish every lease round (TTL/3 = 0.67 s): bounded wait
	// for two to have published.
	var r cluster.Report
	for i := 0; ; i++ {
		r = clusterStatsJSON(t, url)
		if len(r.Nodes) >= 2 && r.Total.Pages > 0 {
			break
		}
		if i == 50 {
			t.Fatalf("query --cluster stats mid-crawl after 5 s: %+v", r)
		}
		time.Sleep(100 * time.Millisecond)
	}
	for _, n := range r.Nodes[:2] {
		if n.Name != "node0" && n.Name != "node1" || !n.Live || n.State != "running" || len(n.Partitions) == 0 {
			t.Errorf("query --cluster stats mid-crawl: node %+v, want node0 and node1 live, running, holding partitions", n)
		}
	}
	owned := 0
	for _, p := range r.Partitions {
		if p.Owner == "" {
			continue // being handed over
		}
		owned++
		if !strings.HasPrefix(p.Owner, "node") || p.LeaseTTLMs <= 0 || p.LeaseTTLMs > 2000 {
			t.Errorf("query --cluster stats mid-crawl: partition %+v, want owned by a node with a lease of (0, 2 s] left", p)
		}
	}
	if owned == 0 {
		t.Error("query --cluster stats mid-crawl: no partition has an owner")
	}
	if len(r.Partitions) != 16 || r.URLs == 0 || r.URLsDone >= r.URLs {
		t.Errorf("query --cluster stats mid-crawl: %d partitions, urls %d, done %d; want 16, some queued and not all done", len(r.Partitions), r.URLs, r.URLsDone)
	}
	var out, errb strings.Builder
	if code := run(context.Background(), []string{"query", "--cluster", url, "stats"}, &out, &errb); code != 0 {
		t.Fatalf("query --cluster stats: exit %d: %s", code, errb.String())
	}
	if !strings.Contains(out.String(), "node0") || !strings.Contains(out.String(), "running, live") || !strings.Contains(out.String(), "LEASE LEFT") {
		t.Errorf("query --cluster stats text mid-crawl lacks the nodes or partitions:\n%s", out.String())
	}
	t.Logf("query --cluster stats mid-crawl:\n%s", out.String())
}

// logRedisCost logs what the crawl cost Redis (all servers at addrs
// together) per page: calls by command (INFO commandstats: a pipeline's
// commands count one by one), bytes in and out, and memory.
func logRedisCost(t *testing.T, addrs []string, pages int) {
	ctx := context.Background()
	sums := map[string]float64{}
	var names []string
	for _, addr := range addrs {
		rdb := redis.NewClient(&redis.Options{Addr: addr})
		for _, section := range []string{"stats", "commandstats", "memory"} {
			info, err := rdb.Info(ctx, section).Result()
			if err != nil {
				t.Errorf("INFO %s: %v", section, err)
				rdb.Close()
				return
			}
			for _, line := range strings.Split(info, "\r\n") {
				k, v, ok := strings.Cut(line, ":")
				if !ok {
					continue
				}
				if strings.HasPrefix(k, "cmdstat_") {
					k = strings.TrimPrefix(k, "cmdstat_") + " calls"
					v, _, _ = strings.Cut(strings.TrimPrefix(v, "calls="), ",")
				} else if k != "total_net_input_bytes" && k != "total_net_output_bytes" && k != "total_commands_processed" && k != "used_memory" {
					continue
				}
				n, _ := strconv.ParseFloat(v, 64)
				if _, ok := sums[k]; !ok {
					names = append(names, k)
				}
				sums[k] += n
			}
		}
		rdb.Close()
	}
	for _, k := range names {
		t.Logf("redis %s %.0f (%.2f per page)", k, sums[k], sums[k]/float64(pages))
	}
}

// TestClusterNodeKilledMidCrawl kills one of three nodes (SIGKILL) once
// it has fetched some pages: the others must take over its partitions,
// re-deliver what it had in flight and finish with every page fetched;
// only pages the dead node had taken may be fetched twice.
func TestClusterNodeKilledMidCrawl(t *testing.T) {
	clusterKill(t, "redis://"+redistest.Start(t)+"/0", false)
}

// TestClusterNodeKilledOnRedisCluster is TestClusterNodeKilledMidCrawl
// against a Redis Cluster of three masters: lease expiry and XAUTOCLAIM
// take over the dead node's work there too.
func TestClusterNodeKilledOnRedisCluster(t *testing.T) {
	clusterKill(t, redistest.ClusterURL(redistest.StartCluster(t, 3)), false)
}

// TestClusterNodeRestartsAfterKill kills a node as above and restarts it
// at once under its name on its store: it rejoins (takes partitions again
// once its old leases expire), and all three finish with every page
// fetched, only the dead node's entries in flight twice.
func TestClusterNodeRestartsAfterKill(t *testing.T) {
	clusterKill(t, "redis://"+redistest.Start(t)+"/0", true)
}

func clusterKill(t *testing.T, url string, restart bool) {
	const hosts, pages, nodes = 4, 150, 3
	site := newClusterSite(t, hosts, pages)
	var kids []*started
	var stores []string
	var args [][]string
	for n := range nodes {
		store := filepath.Join(t.TempDir(), "s")
		stores = append(stores, store)
		args = append(args, []string{"crawl", clusterConfig(t, site, n), "--store", store, "--json", "--mem-limit-mb", "0",
			"--cluster", url, "--node", fmt.Sprintf("node%d", n), "--lease-ttl", "2s"})
		kids = append(kids, startChild(t, args[n]...))
	}
	// Kill the node with the most pages once a fifth of the site is fetched.
	victim := -1
	for i := 0; victim < 0; i++ {
		if i == 600 {
			t.Fatal("the crawl did not reach a fifth of the site in 30 s")
		}
		time.Sleep(50 * time.Millisecond)
		site.mu.Lock()
		if len(site.count) >= hosts*pages/5 {
			best := 0
			for n := range nodes {
				if c := len(site.byNode[fmt.Sprintf("bloomcrawl-test node%d", n)]); c > best {
					best, victim = c, n
				}
			}
		}
		site.mu.Unlock()
	}
	if err := kids[victim].cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	<-kids[victim].done
	site.mu.Lock()
	atKill := len(site.count)
	site.mu.Unlock()
	t.Logf("killed node%d with %d of %d pages fetched", victim, atKill, hosts*pages)
	if restart {
		kids[victim] = startChild(t, args[victim]...)
	}
	for n, k := range kids {
		if n == victim && !restart {
			continue
		}
		if code := k.wait(t); code != 0 {
			t.Fatalf("node%d: exit %d; stderr:\n%s", n, code, tail(k.err.String(), 30))
		}
		var st crawler.Stats
		if err := json.Unmarshal([]byte(k.out.String()), &st); err != nil {
			t.Fatalf("node%d: summary %q: %v", n, k.out.String(), err)
		}
		t.Logf("node%d: fetched %d, partitions %v at the end", n, st.Fetched, st.ClusterPartitions)
	}
	site.mu.Lock()
	defer site.mu.Unlock()
	victimUA := fmt.Sprintf("bloomcrawl-test node%d", victim)
	twice := 0
	for _, h := range site.hosts {
		for i := range pages {
			key := strings.TrimPrefix(h.URL, "http://") + "/p/" + strconv.Itoa(i)
			switch c := site.count[key]; {
			case c == 0:
				t.Errorf("%s never fetched", key)
			case c == 2 && site.byNode[victimUA][key] >= 1:
				twice++ // in flight at the dead node, fetched again (by another node, or by itself restarted)
			case c > 1:
				t.Errorf("%s fetched %d times (%v)", key, c, site.byNode)
			}
		}
	}
	// At most what the dead node had taken and not acknowledged: its
	// feeder's room, 24 × concurrency entries (crawler's
	// clusterRoom).
	if twice > 24*4 {
		t.Errorf("%d pages fetched twice, want at most 96 (the dead node's entries in flight)", twice)
	}
	t.Logf("%d pages fetched twice (in flight at the dead node)", twice)
	all := map[string]bool{}
	for n, s := range stores {
		if n == victim {
			continue // read below, also when restarted and closed
		}
		for u := range storeURLs(t, s) {
			all[u] = true
		}
	}
	// The dead node's store is reopened (read-write: Badger replays its log).
	db, err := storage.Open(stores[victim], nil)
	if err != nil {
		t.Fatalf("reopen the dead node's store: %v", err)
	}
	err = db.ForEachURL(context.Background(), func(r storage.URLRecord) error { all[r.URL] = true; return nil })
	db.Close()
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != hosts*pages {
		t.Errorf("the stores hold %d URLs together, want %d", len(all), hosts*pages)
	}
}
