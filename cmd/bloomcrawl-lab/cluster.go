package main

import (
	"context"
	"io"
	"os/exec"

	"github.com/bloomcrawl/bloomcrawl/internal/cli"
	"github.com/bloomcrawl/bloomcrawl/lab/bench"
)

func init() {
	register(command{
		Name:    "cluster",
		Summary: "crawl one generated multi-host site with 1, 2, 3 cluster nodes: pages/s, Redis round trips, bytes and CPU per page, URL filter bytes per URL",
		Run:     runBenchCluster,
	})
}

func runBenchCluster(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("cluster", "cluster [--nodes 1,2,3] [--runs 3] [--hosts 6] [--pages 1500] [--redis-cluster] [--json]", stderr)
	nodes := fs.String("nodes", "1,2,3", "node counts, comma-separated, run in this order in every round (0 = one crawl without --cluster, the local baseline)")
	runs := fs.Int("runs", 3, "rounds; each runs every node count once (alternated), medians over the rounds")
	hosts := fs.Int("hosts", 6, "loopback hosts of the site (127.0.0.2 …)")
	pages := fs.Int("pages", 1500, "pages per host")
	seed := fs.Uint64("seed", 1, "generates the pages")
	redisCluster := fs.Bool("redis-cluster", false, "run the nodes on a 3-master Redis Cluster instead of one redis-server")
	concurrency := fs.Int("concurrency", 4, "each node's politeness.concurrency")
	perHost := fs.Int("per-host", 2, "each node's politeness.per_host_parallelism")
	tmp := fs.String("tmp", "", "directory for the temporary stores and Redis (default $TMPDIR)")
	lock := fs.String("lock", "/tmp/bloomcrawl-bench.lock", "flock this file around each crawl (\"\" = no lock)")
	asJSON := fs.Bool("json", false, "print one JSON object per crawl")
	bloomcrawl := bloomcrawlFlag(fs, stderr)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	ns, err := intList("--nodes", *nodes, 0, "a number of nodes")
	if err != nil {
		return err
	}
	exe, cleanup, err := bloomcrawl(ctx)
	if err != nil {
		return err
	}
	defer cleanup()
	rows, err := bench.Cluster(ctx, bench.ClusterOptions{
		Nodes: ns, Runs: *runs, Hosts: *hosts, Pages: *pages, Seed: *seed, RedisCluster: *redisCluster,
		Concurrency: *concurrency, PerHost: *perHost, TempDir: *tmp, Lock: *lock, Log: stderr,
		Node: func(ctx context.Context, config, store, url, name string) *exec.Cmd {
			a := []string{"crawl", config, "--store", store, "--json"}
			if url != "" {
				a = append(a, "--cluster", url, "--node", name)
			}
			return exec.CommandContext(ctx, exe, a...)
		},
	})
	if *asJSON {
		if jerr := cli.WriteJSONLines(stdout, rows); jerr != nil {
			return jerr
		}
	} else if len(rows) > 0 {
		bench.WriteClusterTable(stdout, rows)
	}
	return err
}
