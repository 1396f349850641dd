package crawler

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/bloomcrawl/bloomcrawl/cluster"
	"github.com/bloomcrawl/bloomcrawl/configs"
	"github.com/bloomcrawl/bloomcrawl/lab/redistest"
	"github.com/bloomcrawl/bloomcrawl/storage"
)

// TestClusterMetrics: a cluster node's /metrics collectors (crawl --serve)
// give the queue length and pending entries of each partition it holds,
// adding up to what was queued, and its lease counters.
func TestClusterMetrics(t *testing.T) {
	addr := redistest.Start(t)
	ctx := context.Background()
	node, err := cluster.Open(ctx, cluster.Options{URL: "redis://" + addr + "/0", Node: "m", Partitions: 4, LeaseTTL: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer node.Close()
	var items []cluster.Item
	for i := range 50 {
		items = append(items, cluster.Item{URL: fmt.Sprintf("http://h%d.example.com/%d", i%9, i)})
	}
	if _, err := node.Admit(ctx, items); err != nil {
		t.Fatal(err)
	}
	db, err := storage.Open(t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	cfg := configs.Default()
	cfg.Seeds = []string{"http://127.0.0.1:1/"}
	o, err := NewOptions(cfg, Options{Store: db, Cluster: node}, false)
	if err != nil {
		t.Fatal(err)
	}
	c, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	reg := prometheus.NewRegistry()
	reg.MustRegister(c.Collectors()...)
	// The only node holds all 4 partitions after its first lease rounds,
	// and the next round reads their queues (bounded wait: 5 s).
	var length, pending, lost float64
	var parts int
	for i := 0; ; i++ {
		mfs, err := reg.Gather()
		if err != nil {
			t.Fatal(err)
		}
		length, pending, parts = 0, 0, 0
		for _, mf := range mfs {
			for _, m := range mf.GetMetric() {
				switch mf.GetName() {
				case "bloomcrawl_crawl_cluster_queue_length":
					length += m.GetGauge().GetValue()
					parts++
				case "bloomcrawl_crawl_cluster_queue_pending":
					pending += m.GetGauge().GetValue()
				case "bloomcrawl_crawl_cluster_leases_lost_total":
					lost = m.GetCounter().GetValue()
				}
			}
		}
		if parts == 4 {
			break
		}
		if i == 100 {
			t.Fatalf("/metrics has the queues of %d partitions after 5 s, want 4", parts)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if length != 50 || pending != 0 || lost != 0 {
		t.Errorf("/metrics: queue length %v, pending %v, leases lost %v; want 50, 0, 0", length, pending, lost)
	}
}
