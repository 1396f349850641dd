package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/bloomcrawl/bloomcrawl/cluster"
	"github.com/bloomcrawl/bloomcrawl/configs"
	"github.com/bloomcrawl/bloomcrawl/crawler"
	"github.com/bloomcrawl/bloomcrawl/lab/redistest"
	"github.com/bloomcrawl/bloomcrawl/storage"
)

// childClusterCrawl crawls as 'bloomcrawl crawl CONFIG --store STORE
// --json [--cluster URL --node NAME]' does (args: config, store, url,
// name; url "" = no cluster) and prints the stats as JSON.
func childClusterCrawl(args []string) int {
	err := func() error {
		b, err := os.ReadFile(args[0])
		if err != nil {
			return err
		}
		cfg, err := configs.Parse(args[0], b)
		if err != nil {
			return err
		}
		db, err := storage.Open(args[1], crawler.StoreOptions(cfg.Store))
		if err != nil {
			return err
		}
		defer db.Close()
		o := crawler.Options{Store: db}
		if args[2] != "" {
			n, err := cluster.Open(context.Background(), cluster.Options{URL: args[2], Node: args[3],
				Capacity: uint64(cfg.Dedup.Capacity), TargetFP: cfg.Dedup.TargetFP, Verify: cfg.Dedup.Verify})
			if err != nil {
				return err
			}
			defer n.Close()
			o.Cluster = n
		}
		if o, err = crawler.NewOptions(cfg, o, false); err != nil {
			return err
		}
		c, err := crawler.New(o)
		if err != nil {
			return err
		}
		st, err := c.Run(context.Background())
		if err != nil {
			return err
		}
		return json.NewEncoder(os.Stdout).Encode(st)
	}()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// TestClusterBenchCounts runs the cluster benchmark on a small site
// (3 hosts × 60 pages) with the local baseline, 1 and 2 nodes: every
// page fetched exactly once, and the Redis figures present and sane
// (round trips and commands per page, bytes, a URL filter of a few bytes
// per URL, every URL queued once).
func TestClusterBenchCounts(t *testing.T) {
	if _, err := redistest.Binary(); err != nil {
		if os.Getenv("BLOOMCRAWL_CI") == "1" {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	rows, err := Cluster(ctx, ClusterOptions{Nodes: []int{0, 1, 2}, Runs: 1, Hosts: 3, Pages: 60, TempDir: t.TempDir(),
		Node: func(ctx context.Context, config, store, url, name string) *exec.Cmd {
			c := exec.CommandContext(ctx, os.Args[0], "-test.run=^$", config, store, url, name)
			c.Env = append(os.Environ(), childEnv+"=clustercrawl")
			return c
		}})
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 3 {
		t.Fatalf("%d rows, want 3", len(rows))
	}
	for _, r := range rows {
		t.Logf("%+v", r)
		if r.Pages != 180 || r.SitePages != 180 || r.Twice != 0 || r.PagesPerSec <= 0 || r.NodeCPUms <= 0 {
			t.Errorf("%d nodes: pages %d of %d, %d twice, %.0f pages/s, %.2f CPU ms/page; want 180 of 180 once", r.Nodes, r.Pages, r.SitePages, r.Twice, r.PagesPerSec, r.NodeCPUms)
		}
		if r.Nodes == 0 {
			if r.RoundTrips != 0 || r.URLs != 0 {
				t.Errorf("local baseline with Redis figures: %+v", r)
			}
			continue
		}
		// Pages share the group commit's rounds: some round trips, fewer
		// than two a page.
		if r.URLs != 180 || r.RoundTrips <= 0 || r.RoundTrips >= 2 || r.Commands < r.RoundTrips || r.BytesIn <= 0 || r.BytesOut <= 0 ||
			r.SeenPerURL <= 0 || r.SeenPerURL > 200 || r.RedisCPUms < 0 {
			t.Errorf("%d nodes: Redis figures %+v", r.Nodes, r)
		}
	}
	m := MedianClusterRow([]ClusterRow{{PagesPerSec: 3}, {PagesPerSec: 1}, {PagesPerSec: 2}})
	if m.PagesPerSec != 2 {
		t.Errorf("median of 3, 1, 2 = %v", m.PagesPerSec)
	}
}
