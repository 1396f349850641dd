package cluster

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/bloomcrawl/bloomcrawl/lab/redistest"
)

// TestFencing: Confirm trusts a fresh lease, re-confirms one
// past its local deadline (renewing it), refuses a task taken under an
// older token of the same partition, and refuses once the lease is
// another node's; the ack script leaves alone an entry another consumer
// has claimed.
func TestFencing(t *testing.T) {
	url := "redis://" + redistest.Start(t) + "/0"
	ctx := context.Background()
	a := open(t, url, "a")
	tasks := admitAndTake(t, a, 4)
	t0, p := tasks[0], tasks[0].Partition
	if t0.fence <= 0 {
		t.Fatalf("task of partition %d has fencing token %d", p, t0.fence)
	}
	if ok, err := a.Confirm(ctx, t0); !ok || err != nil {
		t.Fatalf("Confirm of a fresh lease: %v, %v", ok, err)
	}
	// past the local deadline (as after a pause): renewed in one command
	a.mu.Lock()
	a.until[p] = time.Now().Add(-time.Second)
	a.mu.Unlock()
	if ok, err := a.Confirm(ctx, t0); !ok || err != nil {
		t.Fatalf("Confirm past the deadline of a lease still held: %v, %v", ok, err)
	}
	a.mu.Lock()
	renewed := time.Now().Before(a.until[p])
	a.mu.Unlock()
	if !renewed {
		t.Error("Confirm renewed the lease but did not move its deadline")
	}
	old := t0
	old.fence--
	if ok, _ := a.Confirm(ctx, old); ok {
		t.Error("Confirm of a task taken under an older token of the partition: true")
	}
	// the lease is another node's (expired and taken)
	if err := a.rdb.Set(ctx, a.key(p, "lease"), "b", time.Minute).Err(); err != nil {
		t.Fatal(err)
	}
	a.mu.Lock()
	a.until[p] = time.Now().Add(-time.Second)
	a.mu.Unlock()
	if ok, err := a.Confirm(ctx, t0); ok || err != nil {
		t.Fatalf("Confirm of a lost lease: %v, %v; want false", ok, err)
	}
	// b claimed a's entry: a's ack leaves it to b
	t1 := tasks[1]
	if err := a.rdb.XClaim(ctx, &redis.XClaimArgs{Stream: a.key(t1.Partition, "q"), Group: group, Consumer: "b", Messages: []string{t1.ID}}).Err(); err != nil {
		t.Fatal(err)
	}
	acked := func() int64 { v, _ := a.rdb.Get(ctx, a.key(t1.Partition, "acked")).Int64(); return v }
	n0 := acked()
	if err := a.Ack(ctx, t1); err != nil {
		t.Fatal(err)
	}
	pend, err := a.rdb.XPendingExt(ctx, &redis.XPendingExtArgs{Stream: a.key(t1.Partition, "q"), Group: group, Start: t1.ID, End: t1.ID, Count: 1}).Result()
	if err != nil || len(pend) != 1 || pend[0].Consumer != "b" || acked() != n0 {
		t.Errorf("after a's ack of an entry b claimed: pending %v (%v), acked %d→%d; want pending under b, not counted", pend, err, n0, acked())
	}
	// an entry still a's is acknowledged
	t2 := tasks[2]
	n0 = func() int64 { v, _ := a.rdb.Get(ctx, a.key(t2.Partition, "acked")).Int64(); return v }()
	if err := a.Ack(ctx, t2); err != nil {
		t.Fatal(err)
	}
	if v, _ := a.rdb.Get(ctx, a.key(t2.Partition, "acked")).Int64(); v != n0+1 {
		t.Errorf("ack of a's own entry: acked %d→%d, want +1", n0, v)
	}
}

// TestLeaseBackAfterRedisRestart: Redis (appendfsync always) is killed
// and started again once the leases have expired: the node that held
// them takes them back under the same tokens and still confirms its task
// in flight, while for LeaseTTL+1s after the restart another node cannot
// acquire a partition that had an owner (one that never had is free); a
// lease whose holder key names another node is not taken back.
func TestLeaseBackAfterRedisRestart(t *testing.T) {
	r := redistest.StartRestartable(t, "--appendonly", "yes", "--appendfsync", "always")
	url := "redis://" + r.Addr + "/0"
	ctx := context.Background()
	a, err := Open(ctx, Options{URL: url, Node: "a", Partitions: 8, LeaseTTL: 600 * time.Millisecond, Capacity: 100_000, RedisWait: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Close() })
	tasks := admitAndTake(t, a, 2)
	held := a.Held()
	tokens := map[int]int64{}
	for _, p := range held {
		tokens[p] = a.token(p)
	}
	if err := r.Restart(1500 * time.Millisecond); err != nil {
		t.Fatal(err)
	}
	raw := redis.NewClient(&redis.Options{Addr: r.Addr})
	defer raw.Close()
	grace := a.restartGrace().Milliseconds()
	p0 := tasks[0].Partition
	if tok, err := acquireScript.Run(ctx, raw, a.leaseKeys(p0), "b", 60000, grace, tokenStep).Int64(); err != nil || tok != 0 {
		t.Errorf("b acquiring a's partition %d just after the restart: token %d, %v; want 0", p0, tok, err)
	}
	// (its token jumps by tokenStep: an acquisition Redis lost may hold 1)
	if tok, err := acquireScript.Run(ctx, raw, a.leaseKeys(100), "b", 60000, grace, tokenStep).Int64(); err != nil || tok != tokenStep {
		t.Errorf("b acquiring a partition nobody had just after the restart: token %d, %v; want %d", tok, err, tokenStep)
	}
	for i := 0; ; i++ {
		back := 0
		for _, p := range held {
			if v, _ := raw.Get(ctx, a.key(p, "lease")).Result(); v == "a" {
				back++
			}
		}
		if back == len(held) {
			break
		}
		if i == 100 {
			t.Fatalf("a has %d of its %d leases back 5 s after the restart", back, len(held))
		}
		time.Sleep(50 * time.Millisecond)
	}
	for _, p := range held {
		if tok := a.token(p); tok != tokens[p] {
			t.Errorf("partition %d: token %d after the restart, %d before", p, tok, tokens[p])
		}
	}
	if ok, err := a.Confirm(ctx, tasks[0]); !ok || err != nil {
		t.Errorf("Confirm of a's task in flight across the restart: %v, %v", ok, err)
	}
	if lost := a.State().LeasesLost; lost != 0 {
		t.Errorf("a lost %d leases across the restart", lost)
	}
	// the holder key names another node: the expired lease is not a's to take back
	t1 := tasks[1]
	if err := raw.Set(ctx, a.key(t1.Partition, "holder"), "b", 0).Err(); err != nil {
		t.Fatal(err)
	}
	raw.Del(ctx, a.key(t1.Partition, "lease"))
	a.mu.Lock()
	a.until[t1.Partition] = time.Now().Add(-time.Second)
	a.mu.Unlock()
	if ok, err := a.Confirm(ctx, t1); ok || err != nil {
		t.Errorf("Confirm of a lease whose holder is b: %v, %v; want false", ok, err)
	}
}

// admitAndTake admits 40 URLs over 9 hosts to a and takes tasks until it
// holds at least n (within 10 s).
func admitAndTake(t *testing.T, a *Node, n int) []Task {
	t.Helper()
	ctx := context.Background()
	var items []Item
	for i := range 40 {
		items = append(items, Item{URL: fmt.Sprintf("http://site%d.net/%d", i%9, i)})
	}
	if _, err := a.Admit(ctx, items); err != nil {
		t.Fatal(err)
	}
	var tasks []Task
	for i := 0; len(tasks) < n; i++ {
		if i == 200 {
			t.Fatalf("a took %d tasks in 10 s", len(tasks))
		}
		tk, err := a.Take(ctx, 10)
		if err != nil {
			t.Fatal(err)
		}
		tasks = append(tasks, tk...)
		time.Sleep(50 * time.Millisecond)
	}
	return tasks
}
