package redistest

import (
	"context"
	"fmt"
	"testing"

	"github.com/redis/go-redis/v9"
)

// TestStartCluster starts a 3-master Redis Cluster and writes keys of
// every master's slots through a cluster client: each master must hold
// some of them.
func TestStartCluster(t *testing.T) {
	addrs := StartCluster(t, 3)
	ctx := context.Background()
	opts, err := redis.ParseClusterURL("redis://" + ClusterURL(addrs)[len("redis+cluster://"):])
	if err != nil {
		t.Fatal(err)
	}
	if len(opts.Addrs) != 3 {
		t.Fatalf("ClusterURL(%v) gives addresses %v", addrs, opts.Addrs)
	}
	c := redis.NewClusterClient(opts)
	defer c.Close()
	for i := range 30 {
		if err := c.Set(ctx, fmt.Sprintf("k%d", i), i, 0).Err(); err != nil {
			t.Fatal(err)
		}
	}
	for _, a := range addrs {
		n := redis.NewClient(&redis.Options{Addr: a})
		size, err := n.DBSize(ctx).Result()
		n.Close()
		if err != nil {
			t.Fatal(err)
		}
		if size == 0 {
			t.Errorf("master %s holds none of 30 keys", a)
		}
	}
}
