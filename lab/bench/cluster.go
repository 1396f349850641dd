package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/bloomcrawl/bloomcrawl/cluster"
	"github.com/bloomcrawl/bloomcrawl/crawler"
	"github.com/bloomcrawl/bloomcrawl/lab/redistest"
	"github.com/bloomcrawl/bloomcrawl/lab/synthsite"
)

// ClusterOptions configures [Cluster].
type ClusterOptions struct {
	// Nodes are the node counts to measure, e.g. 1, 2, 3; 0 means one
	// plain crawl without --cluster (the local baseline, no Redis).
	// Default 1, 2, 3.
	Nodes []int
	// Runs is the number of rounds; each round runs every node count once,
	// in order, so that the counts alternate on a machine whose load
	// drifts. Default 3.
	Runs int
	// Hosts and Pages shape the site: Hosts loopback hosts (127.0.0.2 …),
	// each serving a synthsite of Pages pages whose every page also links
	// to the same page of the next host. Defaults 6 and 1500.
	Hosts, Pages int
	Seed         uint64 // generates the pages; default 1
	// RedisCluster runs every cluster crawl on a Redis Cluster of three
	// masters instead of one redis-server.
	RedisCluster bool
	// Concurrency and PerHost are each node's politeness.concurrency and
	// politeness.per_host_parallelism. Defaults 4 and 2.
	Concurrency, PerHost int
	TempDir              string // stores and configs; default $TMPDIR
	Lock                 string // a file flocked around each crawl ("" = none)
	Log                  io.Writer
	// Node starts one crawl node: bloomcrawl crawl CONFIG --store STORE
	// --json, plus --cluster URL --node NAME when url is not "". Its
	// stdout must be the crawl's JSON summary.
	Node func(ctx context.Context, config, store, url, name string) *exec.Cmd
}

// ClusterRow is one crawl of the site by Nodes nodes (0: without
// --cluster). Per-page figures divide by the pages fetched.
type ClusterRow struct {
	Nodes int `json:"nodes"`
	Run   int `json:"run"`
	// Pages are the site's pages fetched at least once (the site's own
	// count), SitePages all of them; Twice are pages fetched more than
	// once.
	Pages     int64 `json:"pages"`
	SitePages int64 `json:"site_pages"`
	Twice     int64 `json:"fetched_twice"`
	// Seconds runs from the site's first request to its last; PagesPerSec
	// is Pages over it (aggregate), PerNodePagesPerSec that over Nodes.
	Seconds            float64 `json:"seconds"`
	PagesPerSec        float64 `json:"pages_per_s"`
	PerNodePagesPerSec float64 `json:"pages_per_s_per_node"`
	// NodeCPUms is the nodes' CPU (user+system, all processes) per page;
	// RedisCPUms Redis's (INFO cpu, all servers).
	NodeCPUms  float64 `json:"node_cpu_ms_per_page"`
	RedisCPUms float64 `json:"redis_cpu_ms_per_page"`
	// RoundTrips are the commands and pipelines the nodes sent (counted
	// by each node's client); Commands what Redis executed
	// (INFO total_commands_processed: scripts' inner calls included);
	// BytesIn/BytesOut Redis's total_net_input/output_bytes.
	RoundTrips float64 `json:"round_trips_per_page"`
	Commands   float64 `json:"redis_commands_per_page"`
	BytesIn    float64 `json:"redis_bytes_in_per_page"`
	BytesOut   float64 `json:"redis_bytes_out_per_page"`
	// URLs are the URLs queued cluster-wide; SeenPerURL the bytes
	// (MEMORY USAGE) of the keys of the seen-state (partition keys of
	// kinds "bloom", "urls" and "s…") per URL; DocLogPerPage those of the
	// document log's keys ({docs}) per page; UsedMemory Redis's
	// used_memory at the end (all servers) and MemPerURL used_memory
	// after the crawl minus before, per URL.
	URLs          int64   `json:"urls"`
	SeenPerURL    float64 `json:"seen_bytes_per_url"`
	DocLogPerPage float64 `json:"doc_log_bytes_per_page"`
	UsedMemory    int64   `json:"redis_used_memory"`
	MemPerURL     float64 `json:"redis_memory_bytes_per_url"`
}

// Cluster crawls one generated multi-host site with 1, 2, 3 … nodes on
// this machine, each against a fresh Redis (or Redis Cluster) and fresh
// stores, and measures throughput and what Redis costs per page and per
// URL. Correctness is counted too: every page must be fetched, and once.
func Cluster(ctx context.Context, o ClusterOptions) ([]ClusterRow, error) {
	if len(o.Nodes) == 0 {
		o.Nodes = []int{1, 2, 3}
	}
	if o.Runs <= 0 {
		o.Runs = 3
	}
	if o.Hosts <= 0 {
		o.Hosts = 6
	}
	if o.Pages <= 0 {
		o.Pages = 1500
	}
	if o.Seed == 0 {
		o.Seed = 1
	}
	if o.Concurrency <= 0 {
		o.Concurrency = 4
	}
	if o.PerHost <= 0 {
		o.PerHost = 2
	}
	if o.Log == nil {
		o.Log = io.Discard
	}
	if o.Node == nil {
		return nil, errors.New("bench: ClusterOptions.Node is required")
	}
	var rows []ClusterRow
	for run := 1; run <= o.Runs; run++ {
		for _, n := range o.Nodes {
			row, err := clusterOne(ctx, o, n)
			row.Run = run
			if err != nil {
				return rows, fmt.Errorf("bench cluster: %d nodes, run %d: %w", n, run, err)
			}
			fmt.Fprintf(o.Log, "%d nodes, run %d: %.0f pages/s, %.2f round trips/page\n", n, run, row.PagesPerSec, row.RoundTrips)
			rows = append(rows, row)
		}
	}
	return rows, nil
}

// multiSite serves a synthsite on each of several loopback hosts (host h
// generated from seed+h: distinct sites), each page with one more link to
// the same page of the next host, and counts the requests of every page.
type multiSite struct {
	sites []synthsite.Site
	srvs  []*http.Server
	bases []string

	mu          sync.Mutex
	count       map[string]int // host/path → requests
	first, last time.Time
}

func startMultiSite(pages int, seed uint64, hosts int) (*multiSite, error) {
	m := &multiSite{count: map[string]int{}}
	for h := range hosts {
		site, err := synthsite.New(pages, seed+uint64(h))
		if err != nil {
			m.close()
			return nil, err
		}
		m.sites = append(m.sites, site)
		ln, err := net.Listen("tcp", fmt.Sprintf("127.0.0.%d:0", h+2))
		if err != nil {
			m.close()
			return nil, fmt.Errorf("listen on 127.0.0.%d (loopback hosts): %w", h+2, err)
		}
		m.bases = append(m.bases, "http://"+ln.Addr().String())
		srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { m.serve(w, r, h) })}
		m.srvs = append(m.srvs, srv)
		go srv.Serve(ln)
	}
	return m, nil
}

func (m *multiSite) close() {
	for _, s := range m.srvs {
		s.Close()
	}
}

func (m *multiSite) serve(w http.ResponseWriter, r *http.Request, h int) {
	site := m.sites[h]
	i, ok := site.PageIndex(r.URL.Path)
	if !ok || r.Method != http.MethodGet {
		site.ServeHTTP(w, r)
		return
	}
	now := time.Now()
	m.mu.Lock()
	m.count[r.Host+r.URL.Path]++
	if m.first.IsZero() {
		m.first = now
	}
	m.last = now
	m.mu.Unlock()
	var b bytes.Buffer
	site.WritePage(&b, i)
	page := bytes.TrimSuffix(b.Bytes(), []byte("</body></html>\n"))
	next := m.bases[(h+1)%len(m.bases)]
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Write(page)
	fmt.Fprintf(w, "<a href=\"%s%s\">next host</a></body></html>\n", next, synthsite.Path(i))
}

// redisInfo sums INFO fields over servers.
func redisInfo(ctx context.Context, addrs []string) (map[string]float64, error) {
	sums := map[string]float64{}
	for _, a := range addrs {
		c := redis.NewClient(&redis.Options{Addr: a})
		info, err := c.Info(ctx, "stats", "cpu", "memory").Result()
		c.Close()
		if err != nil {
			return nil, fmt.Errorf("INFO %s: %w", a, err)
		}
		for _, line := range strings.Split(info, "\r\n") {
			k, v, ok := strings.Cut(line, ":")
			if !ok {
				continue
			}
			if f, err := strconv.ParseFloat(v, 64); err == nil {
				sums[k] += f
			}
		}
	}
	return sums, nil
}

// clusterOne crawls a fresh multi-host site once with nodes nodes (0: one
// plain crawl without --cluster) and measures it.
func clusterOne(ctx context.Context, o ClusterOptions, nodes int) (row ClusterRow, err error) {
	row.Nodes = nodes
	if o.Lock != "" {
		unlock, err := flock(ctx, o.Lock, o.Log)
		if err != nil {
			return row, err
		}
		defer unlock()
	}
	dir, err := os.MkdirTemp(o.TempDir, "bloomcrawl-bench-cluster-")
	if err != nil {
		return row, err
	}
	defer os.RemoveAll(dir)
	ms, err := startMultiSite(o.Pages, o.Seed, o.Hosts)
	if err != nil {
		return row, err
	}
	defer ms.close()
	row.SitePages = int64(o.Hosts * o.Pages)
	cr := &clusterRun{o: o, nodes: nodes, dir: dir, site: ms}

	if nodes > 0 {
		var servers []*redistest.Server
		defer func() {
			for _, s := range servers {
				s.Close()
			}
		}()
		servers, err = cr.startRedis(ctx)
		if err != nil {
			return row, err
		}
	}
	before, err := redisInfo(ctx, cr.addrs)
	if err != nil {
		return row, err
	}
	cpu, err := cr.runNodes(ctx)
	if err != nil {
		return row, err
	}
	if err := cr.countPages(&row); err != nil {
		return row, err
	}
	pages := float64(row.Pages)
	row.PagesPerSec = pages / row.Seconds
	row.PerNodePagesPerSec = row.PagesPerSec / float64(max(nodes, 1))
	row.NodeCPUms = float64(cpu.Milliseconds()) / pages
	if nodes == 0 {
		return row, nil
	}
	return row, cr.redisCosts(ctx, before, &row)
}

// clusterRun is one crawl of clusterOne: its options, node count, working
// directory and site, and the Redis the nodes share once started.
type clusterRun struct {
	o     ClusterOptions
	nodes int
	dir   string
	site  *multiSite
	url   string   // the nodes' --cluster URL ("" without Redis)
	addrs []string // the Redis servers' addresses
}

// startRedis starts one redis-server, or a Redis Cluster of three masters
// when o.RedisCluster, in cr.dir and sets cr.url and cr.addrs. It returns
// the servers started, also on error: the caller closes them.
func (cr *clusterRun) startRedis(ctx context.Context) ([]*redistest.Server, error) {
	bin, err := redistest.Binary()
	if err != nil {
		return nil, err
	}
	masters := 1
	if cr.o.RedisCluster {
		masters = 3
	}
	var servers []*redistest.Server
	for i := range masters {
		d := filepath.Join(cr.dir, fmt.Sprintf("redis%d", i))
		if err := os.Mkdir(d, 0o755); err != nil {
			return servers, err
		}
		s, err := redistest.StartServer(bin, d, cr.o.RedisCluster)
		if err != nil {
			return servers, err
		}
		servers = append(servers, s)
		cr.addrs = append(cr.addrs, s.Addr)
	}
	if cr.o.RedisCluster {
		if err := redistest.CreateCluster(ctx, servers); err != nil {
			return servers, err
		}
		cr.url = redistest.ClusterURL(cr.addrs)
	} else {
		cr.url = "redis://" + cr.addrs[0] + "/0"
	}
	return servers, nil
}

// nodeConfig writes the crawl config of node k into cr.dir and returns its
// path.
func (cr *clusterRun) nodeConfig(k int) (string, error) {
	o := cr.o
	var cfg strings.Builder
	cfg.WriteString("seeds:\n")
	for _, b := range cr.site.bases {
		fmt.Fprintf(&cfg, "  - %s%s\n", b, synthsite.Path(0))
	}
	fmt.Fprintf(&cfg, "scope:\n  max_depth: 1000\n  sitemaps: off\npoliteness:\n  obey_robots: false\n  concurrency: %d\n  per_host_parallelism: %d\n  user_agent: \"bloomcrawl-bench node%d\"\ndedup:\n  capacity: %d\n",
		o.Concurrency, o.PerHost, k, o.Hosts*o.Pages)
	path := filepath.Join(cr.dir, fmt.Sprintf("node%d.yaml", k))
	if err := os.WriteFile(path, []byte(cfg.String()), 0o644); err != nil {
		return "", err
	}
	return path, nil
}

// runNodes starts the crawl nodes (one when cr.nodes is 0), waits for all
// of them and returns their CPU time. A node that fails or prints no JSON
// summary is an error.
func (cr *clusterRun) runNodes(ctx context.Context) (cpu time.Duration, err error) {
	procs := max(cr.nodes, 1)
	cmds := make([]*exec.Cmd, procs)
	outs := make([]*bytes.Buffer, procs)
	errs := make([]*bytes.Buffer, procs)
	for k := range procs {
		path, err := cr.nodeConfig(k)
		if err != nil {
			return 0, err
		}
		name := ""
		if cr.nodes > 0 {
			name = fmt.Sprintf("node%d", k)
		}
		c := cr.o.Node(ctx, path, filepath.Join(cr.dir, fmt.Sprintf("store%d", k)), cr.url, name)
		outs[k], errs[k] = &bytes.Buffer{}, &bytes.Buffer{}
		c.Stdout = outs[k]
		if c.Stderr == nil {
			c.Stderr = errs[k] // shown when the node fails
		}
		if err := c.Start(); err != nil {
			for _, p := range cmds[:k] {
				p.Process.Kill()
				p.Wait()
			}
			return 0, err
		}
		cmds[k] = c
	}
	for k, c := range cmds {
		werr := c.Wait()
		if werr != nil && err == nil {
			err = fmt.Errorf("node%d: %w; stderr:\n%s", k, werr, errs[k].String())
		}
		cpu += c.ProcessState.UserTime() + c.ProcessState.SystemTime()
		var st crawler.Stats
		if jerr := json.Unmarshal(outs[k].Bytes(), &st); jerr != nil && err == nil {
			err = fmt.Errorf("node%d: summary %q: %w", k, outs[k].String(), jerr)
		}
	}
	return cpu, err
}

// countPages sets row's Pages, Twice and Seconds from the site's request
// counts; a site that served no pages is an error.
func (cr *clusterRun) countPages(row *ClusterRow) error {
	ms := cr.site
	ms.mu.Lock()
	for _, c := range ms.count {
		row.Pages++
		if c > 1 {
			row.Twice++
		}
	}
	row.Seconds = ms.last.Sub(ms.first).Seconds()
	ms.mu.Unlock()
	if row.Pages == 0 || row.Seconds <= 0 {
		return errors.New("the site served no pages")
	}
	return nil
}

// redisCosts sets row's per-page Redis costs (against before, the servers'
// INFO at the start), its URLs and the URL filter's memory per URL.
func (cr *clusterRun) redisCosts(ctx context.Context, before map[string]float64, row *ClusterRow) error {
	pages := float64(row.Pages)
	after, err := redisInfo(ctx, cr.addrs)
	if err != nil {
		return err
	}
	d := func(k string) float64 { return after[k] - before[k] }
	row.Commands = d("total_commands_processed") / pages
	row.BytesIn = d("total_net_input_bytes") / pages
	row.BytesOut = d("total_net_output_bytes") / pages
	row.RedisCPUms = (d("used_cpu_user") + d("used_cpu_sys")) * 1000 / pages
	row.UsedMemory = int64(after["used_memory"])
	usedDelta := d("used_memory")

	rep, err := cluster.Inspect(ctx, cr.url, "")
	if err != nil {
		return err
	}
	var trips int64
	for _, n := range rep.Nodes {
		trips += n.RoundTrips
	}
	row.RoundTrips = float64(trips) / pages
	row.URLs = rep.URLs
	seen, docs, kinds, err := keyMemory(ctx, cr.addrs)
	if err != nil {
		return err
	}
	stats, err := memoryStats(ctx, cr.addrs)
	if err != nil {
		return err
	}
	cr.logMemory(*row, usedDelta, kinds, stats)
	if row.URLs > 0 {
		row.SeenPerURL = float64(seen) / float64(row.URLs)
		row.MemPerURL = usedDelta / float64(row.URLs)
	}
	row.DocLogPerPage = float64(docs) / pages
	return nil
}

// keyMemory sums MEMORY USAGE over every key of the servers: the seen-
// state's (partition keys PREFIX:{p:N}:KIND… of kind bloom, urls or s…)
// and the document log's (keys with {docs}).
// kinds sums every key's MEMORY USAGE by kind: the part of its name after
// the hash tag up to the next colon (seen-state buckets "s…" as one kind
// "s"), or the name itself for a key without one.
func keyMemory(ctx context.Context, addrs []string) (seen, docs int64, kinds map[string]int64, err error) {
	kinds = map[string]int64{}

	for _, a := range addrs {
		c := redis.NewClient(&redis.Options{Addr: a})
		var keys []string
		it := c.Scan(ctx, 0, "*", 1000).Iterator()
		for it.Next(ctx) {
			keys = append(keys, it.Val())
		}
		if err := it.Err(); err != nil {
			c.Close()
			return 0, 0, nil, fmt.Errorf("SCAN %s: %w", a, err)
		}
		pipe := c.Pipeline()
		cmds := make([]*redis.IntCmd, len(keys))
		for i, k := range keys {
			cmds[i] = pipe.MemoryUsage(ctx, k, 0)
		}
		if _, err := pipe.Exec(ctx); err != nil && !errors.Is(err, redis.Nil) {
			c.Close()
			return 0, 0, nil, fmt.Errorf("MEMORY USAGE on %s: %w", a, err)
		}
		c.Close()
		for i, k := range keys {
			b := cmds[i].Val()
			kinds[keyKind(k)] += b
			if strings.Contains(k, "{docs}") {
				docs += b
				continue
			}
			if _, rest, ok := strings.Cut(k, "}:"); ok {
				kind, _, _ := strings.Cut(rest, ":")
				if kind == "bloom" || kind == "urls" || strings.HasPrefix(kind, "s") && kind != "snap" {
					seen += b
				}
			}
		}
	}
	return seen, docs, kinds, nil
}

// keyKind names what a key holds (keyMemory).
func keyKind(k string) string {
	_, rest, ok := strings.Cut(k, "}:")
	if !ok {
		return k
	}
	kind, _, _ := strings.Cut(rest, ":")
	if strings.HasPrefix(k[strings.Index(k, "{"):], "{docs}") {
		return "docs:" + kind
	}
	if strings.HasPrefix(kind, "s") && kind != "snap" && kind != "seen" {
		return "s"
	}
	return kind
}

// memoryStats sums the numeric fields of MEMORY STATS over the servers.
func memoryStats(ctx context.Context, addrs []string) (map[string]int64, error) {
	out := map[string]int64{}
	for _, a := range addrs {
		c := redis.NewClient(&redis.Options{Addr: a, Protocol: 2}) // a flat reply
		v, err := c.Do(ctx, "MEMORY", "STATS").Slice()
		c.Close()
		if err != nil {
			return nil, fmt.Errorf("MEMORY STATS on %s: %w", a, err)
		}
		for i := 0; i+1 < len(v); i += 2 {
			k, _ := v[i].(string)
			if n, ok := v[i+1].(int64); ok {
				out[k] += n
			}
		}
	}
	return out, nil
}

// logMemory writes where Redis' memory at the end of a crawl went, per
// URL: MEMORY USAGE by kind of key, and MEMORY STATS' overheads.
func (cr *clusterRun) logMemory(row ClusterRow, usedDelta float64, kinds, stats map[string]int64) {
	urls := float64(max(row.URLs, 1))
	var b strings.Builder
	fmt.Fprintf(&b, "%d nodes: Redis memory per URL at the end: used_memory grew %.1f; by key (MEMORY USAGE):", row.Nodes, usedDelta/urls)
	names := make([]string, 0, len(kinds))
	var sum int64
	for k, v := range kinds {
		names = append(names, k)
		sum += v
	}
	sort.Slice(names, func(i, j int) bool { return kinds[names[i]] > kinds[names[j]] })
	for _, k := range names {
		if v := float64(kinds[k]) / urls; v >= 0.05 {
			fmt.Fprintf(&b, " %s %.1f", k, v)
		}
	}
	fmt.Fprintf(&b, " (all keys %.1f); MEMORY STATS (whole server, bytes):", float64(sum)/urls)
	ks := make([]string, 0, len(stats))
	for k := range stats {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	for _, k := range ks {
		fmt.Fprintf(&b, " %s=%d", k, stats[k])
	}
	fmt.Fprintln(cr.o.Log, b.String())
}

// WriteClusterTable prints the runs, then per node count the medians over
// the runs.
func WriteClusterTable(w io.Writer, rows []ClusterRow) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "nodes\trun\tpages\ttwice\tseconds\tpages/s\t/node\tnode CPU ms/page\tRedis CPU ms/page\tround trips/page\tRedis cmds/page\tB in/page\tB out/page\turls\tseen B/url\tRedis mem B/url\tdoc log B/page\t")
	line := func(r ClusterRow, run string) {
		fmt.Fprintf(tw, "%d\t%s\t%d/%d\t%d\t%.1f\t%.0f\t%.0f\t%.3f\t%.4f\t%.2f\t%.1f\t%.0f\t%.0f\t%d\t%.1f\t%.1f\t%.1f\t\n",
			r.Nodes, run, r.Pages, r.SitePages, r.Twice, r.Seconds, r.PagesPerSec, r.PerNodePagesPerSec, r.NodeCPUms,
			r.RedisCPUms, r.RoundTrips, r.Commands, r.BytesIn, r.BytesOut, r.URLs, r.SeenPerURL, r.MemPerURL, r.DocLogPerPage)
	}
	for _, r := range rows {
		line(r, strconv.Itoa(r.Run))
	}
	var counts []int
	for _, r := range rows {
		if !slices.Contains(counts, r.Nodes) {
			counts = append(counts, r.Nodes)
		}
	}
	for _, n := range counts {
		var sel []ClusterRow
		for _, r := range rows {
			if r.Nodes == n {
				sel = append(sel, r)
			}
		}
		line(MedianClusterRow(sel), "median")
	}
	tw.Flush()
	writeRatios(w, rows, counts)
}

// writeRatios prints, per node count, the median per-node pages/s and
// node CPU per page over the plain crawl's (node count 0), when both
// were measured.
func writeRatios(w io.Writer, rows []ClusterRow, counts []int) {
	median := func(n int) (ClusterRow, bool) {
		var sel []ClusterRow
		for _, r := range rows {
			if r.Nodes == n {
				sel = append(sel, r)
			}
		}
		if len(sel) == 0 {
			return ClusterRow{}, false
		}
		return MedianClusterRow(sel), true
	}
	plain, ok := median(0)
	if !ok || plain.PagesPerSec == 0 || plain.NodeCPUms == 0 {
		return
	}
	fmt.Fprintln(w, "\nagainst the plain crawl (medians): pages/s per node, node CPU per page")
	for _, n := range counts {
		if m, _ := median(n); n > 0 {
			fmt.Fprintf(w, "  %d nodes: %.2fx pages/s per node (%.2fx in all), %.2fx CPU per page\n",
				n, m.PerNodePagesPerSec/plain.PagesPerSec, m.PagesPerSec/plain.PagesPerSec, m.NodeCPUms/plain.NodeCPUms)
		}
	}
}

// MedianClusterRow is the row of each field's median over rows (of one
// node count).
func MedianClusterRow(rows []ClusterRow) ClusterRow {
	med := func(f func(ClusterRow) float64) float64 {
		v := make([]float64, len(rows))
		for i, r := range rows {
			v[i] = f(r)
		}
		sort.Float64s(v)
		if len(v)%2 == 1 {
			return v[len(v)/2]
		}
		return (v[len(v)/2-1] + v[len(v)/2]) / 2
	}
	r := rows[0]
	r.Run = 0
	r.Pages = int64(med(func(r ClusterRow) float64 { return float64(r.Pages) }))
	r.Twice = int64(med(func(r ClusterRow) float64 { return float64(r.Twice) }))
	r.Seconds = med(func(r ClusterRow) float64 { return r.Seconds })
	r.PagesPerSec = med(func(r ClusterRow) float64 { return r.PagesPerSec })
	r.PerNodePagesPerSec = med(func(r ClusterRow) float64 { return r.PerNodePagesPerSec })
	r.NodeCPUms = med(func(r ClusterRow) float64 { return r.NodeCPUms })
	r.RedisCPUms = med(func(r ClusterRow) float64 { return r.RedisCPUms })
	r.RoundTrips = med(func(r ClusterRow) float64 { return r.RoundTrips })
	r.Commands = med(func(r ClusterRow) float64 { return r.Commands })
	r.BytesIn = med(func(r ClusterRow) float64 { return r.BytesIn })
	r.BytesOut = med(func(r ClusterRow) float64 { return r.BytesOut })
	r.URLs = int64(med(func(r ClusterRow) float64 { return float64(r.URLs) }))
	r.SeenPerURL = med(func(r ClusterRow) float64 { return r.SeenPerURL })
	r.DocLogPerPage = med(func(r ClusterRow) float64 { return r.DocLogPerPage })
	r.MemPerURL = med(func(r ClusterRow) float64 { return r.MemPerURL })
	r.UsedMemory = int64(med(func(r ClusterRow) float64 { return float64(r.UsedMemory) }))
	return r
}
