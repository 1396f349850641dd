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
	var items []Item
	for i := range 40 {
		items = append(items, Item{URL: fmt.Sprintf("http://site%d.net/%d", i%9, i)})
	}
	if _, err := a.Admit(ctx, items); err != nil {
		t.Fatal(err)
	}
	var tasks []Task
	for i := 0; len(tasks) < 4; i++ {
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
