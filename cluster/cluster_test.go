package cluster

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/bloomcrawl/bloomcrawl/lab/redistest"
)

// backends are the Redis setups every test named in forBackends runs
// against: one redis-server, and a Redis Cluster of three masters.
var backends = []struct {
	name  string
	start func(t *testing.T) string // returns the --cluster URL
}{
	{"redis", func(t *testing.T) string { return "redis://" + redistest.Start(t) + "/0" }},
	{"cluster", func(t *testing.T) string { return redistest.ClusterURL(redistest.StartCluster(t, 3)) }},
}

// forBackends runs test once per backend, as a subtest.
func forBackends(t *testing.T, test func(t *testing.T, url string)) {
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) { test(t, b.start(t)) })
	}
}

func open(t *testing.T, url, name string) *Node {
	t.Helper()
	n, err := Open(context.Background(), Options{URL: url, Node: name, Partitions: 8, LeaseTTL: 600 * time.Millisecond, Capacity: 100_000})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { n.Close() })
	return n
}

// TestAdmitQueuesEachURLOnce has two nodes offer the same 2,000 URLs at
// the same time, in overlapping batches: each URL must be queued once
// (the Bloom test-and-set and the XADD are one script), and every queued
// URL handed out once, then acked, after which the crawl is finished.
func TestAdmitQueuesEachURLOnce(t *testing.T) { forBackends(t, testAdmitQueuesEachURLOnce) }

func testAdmitQueuesEachURLOnce(t *testing.T, url string) {
	a, b := open(t, url, "a"), open(t, url, "b")
	ctx := context.Background()
	const urls = 2000
	var items []Item
	for i := range urls {
		items = append(items, Item{URL: fmt.Sprintf("http://h%d.example.com/p/%d", i%7, i), Depth: 1})
	}
	var wg sync.WaitGroup
	fresh := make([]int, 2)
	for w, n := range []*Node{a, b} {
		wg.Go(func() {
			for i := 0; i < urls; i += 50 {
				batch := items[i:min(i+100, urls)] // overlapping batches
				k, err := n.Admit(ctx, batch)
				if err != nil {
					t.Error(err)
					return
				}
				fresh[w] += k
			}
		})
	}
	wg.Wait()
	if fresh[0]+fresh[1] != urls {
		t.Errorf("queued %d+%d URLs, want %d in all", fresh[0], fresh[1], urls)
	}
	if done, err := a.Finished(ctx); err != nil || done {
		t.Fatalf("Finished = %v, %v with every URL pending", done, err)
	}
	// The two nodes share the 8 partitions, 4 each, however their first
	// lease rounds interleave (bounded wait: 10 s).
	for i := 0; len(a.Held()) != 4 || len(b.Held()) != 4; i++ {
		if i == 200 {
			t.Fatalf("leases: a holds %v, b holds %v after 10 s; want 4 partitions each", a.Held(), b.Held())
		}
		time.Sleep(50 * time.Millisecond)
	}
	// Drain: every URL handed out once.
	got := map[string]int{}
	for i := 0; len(got) < urls; i++ {
		if i == 400 {
			t.Fatalf("handed out %d of %d URLs in 20 s", len(got), urls)
		}
		for _, n := range []*Node{a, b} {
			tasks, err := n.Take(ctx, 300)
			if err != nil {
				t.Fatal(err)
			}
			for _, tk := range tasks {
				got[tk.URL]++
				if err := n.Ack(ctx, tk); err != nil {
					t.Fatal(err)
				}
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	for u, c := range got {
		if c != 1 {
			t.Errorf("%s handed out %d times", u, c)
		}
	}
	if done, err := b.Finished(ctx); err != nil || !done {
		t.Errorf("Finished = %v, %v after every URL was acked", done, err)
	}
}

// TestPartitionByRegistrableDomain: one site's hosts share a partition.
func TestPartitionByRegistrableDomain(t *testing.T) {
	n := &Node{o: Options{Partitions: 1024}}
	if n.Partition("a.example.co.uk") != n.Partition("b.www.example.co.uk:8080") {
		t.Error("a.example.co.uk and b.www.example.co.uk:8080 in different partitions")
	}
	diff := 0
	for i := range 20 {
		if n.Partition(fmt.Sprintf("site%d.com", i)) != n.Partition("site0.com") {
			diff++
		}
	}
	if diff == 0 {
		t.Error("20 different domains all in one of 1024 partitions")
	}
	if n.Partition("127.0.0.2:80") == n.Partition("127.0.0.3:80") && n.Partition("127.0.0.4") == n.Partition("127.0.0.2") {
		t.Error("distinct IP addresses all in one partition")
	}
}

// TestDeadNodesEntriesRedelivered: a node takes entries and stops without
// acking or releasing anything (as kill -9 leaves it); another node takes
// over its partitions once the leases expire and gets the entries again.
func TestDeadNodesEntriesRedelivered(t *testing.T) { forBackends(t, testDeadNodesEntriesRedelivered) }

func testDeadNodesEntriesRedelivered(t *testing.T, url string) {
	ctx := context.Background()
	dead, err := Open(ctx, Options{URL: url, Node: "dead", Partitions: 8, LeaseTTL: 600 * time.Millisecond, Capacity: 100_000})
	if err != nil {
		t.Fatal(err)
	}
	var items []Item
	for i := range 40 {
		items = append(items, Item{URL: fmt.Sprintf("http://h%d.example.org/%d", i, i)})
	}
	if _, err := dead.Admit(ctx, items); err != nil {
		t.Fatal(err)
	}
	var taken []Task
	for i := 0; len(taken) < 40; i++ {
		if i == 100 {
			t.Fatalf("the first node took %d of 40 entries in 5 s", len(taken))
		}
		tasks, err := dead.Take(ctx, 40)
		if err != nil {
			t.Fatal(err)
		}
		taken = append(taken, tasks...)
		time.Sleep(50 * time.Millisecond)
	}
	// Die: stop the lease loop without releasing anything.
	close(dead.stop)
	<-dead.loopDone
	dead.rdb.Close()

	other := open(t, url, "other")
	got := map[string]bool{}
	for i := 0; len(got) < 40; i++ {
		if i == 200 {
			t.Fatalf("re-delivered %d of 40 entries in 10 s", len(got))
		}
		tasks, err := other.Take(ctx, 40)
		if err != nil {
			t.Fatal(err)
		}
		for _, tk := range tasks {
			got[tk.URL] = true
			if err := other.Ack(ctx, tk); err != nil {
				t.Fatal(err)
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	if done, err := other.Finished(ctx); err != nil || !done {
		t.Errorf("Finished = %v, %v after the re-delivered entries were acked", done, err)
	}
}

// TestSeenStateExact offers 40,000 distinct URLs of three sites (so three
// of the eight partitions get all of them, the skew of a real crawl) to a
// seen-state sized for 20,000 (so those partitions add levels), from two
// nodes whose local caches hold only 64 fingerprints (cleared over and
// over: most repeats reach Redis), every URL offered by both and every
// batch followed by repeats of earlier URLs: each distinct URL must be
// queued exactly once, no repeat queued, and no bucket may leave the
// intset encoding.
func TestSeenStateExact(t *testing.T) {
	addr := redistest.Start(t)
	ctx := context.Background()
	const capacity, urls = 20_000, 40_000
	var nodes []*Node
	for _, name := range []string{"a", "b"} {
		n, err := Open(ctx, Options{URL: "redis://" + addr + "/0", Node: name, Partitions: 8, LeaseTTL: time.Second, Capacity: capacity})
		if err != nil {
			t.Fatal(err)
		}
		defer n.Close()
		n.local.max = 64
		nodes = append(nodes, n)
	}
	url := func(j int) string {
		return fmt.Sprintf("http://host%d.site%d.example/page/%d?q=%d", j%97, j%3, j, j*31)
	}
	var mu sync.Mutex
	fresh := 0
	var wg sync.WaitGroup
	for w, n := range nodes {
		wg.Go(func() {
			for i := 0; i < urls; i += 500 {
				var items []Item
				for j := i; j < i+500; j++ {
					items = append(items, Item{URL: url(j)})
				}
				for j := range 100 { // repeats of earlier URLs
					items = append(items, Item{URL: url((i*7 + j*131 + w) % (i + 1))})
				}
				k, err := n.Admit(ctx, items)
				if err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				fresh += k
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if fresh != urls {
		t.Errorf("queued %d URLs, want each of the %d distinct ones once", fresh, urls)
	}
	rdb := nodes[0].rdb
	keys, err := rdb.Keys(ctx, "bloomcrawl:{p:*}:s*").Result()
	if err != nil {
		t.Fatal(err)
	}
	var members, bytes int64
	levels := map[string]bool{}
	for _, k := range keys {
		enc, _ := rdb.ObjectEncoding(ctx, k).Result()
		if enc != "intset" {
			t.Errorf("%s: encoding %s, want intset", k, enc)
		}
		c, _ := rdb.SCard(ctx, k).Result()
		b, _ := rdb.MemoryUsage(ctx, k).Result()
		members, bytes = members+c, bytes+b
		levels[k[:strings.LastIndexByte(k, ':')]] = true
	}
	if members != urls {
		t.Errorf("buckets hold %d fingerprints, want %d", members, urls)
	}
	t.Logf("%d URLs in %d buckets (%d partition levels): %.1f bytes per URL (MEMORY USAGE)", members, len(keys), len(levels), float64(bytes)/float64(members))
}

// TestSeenStateBytesPerURL queues 10^6 distinct URLs (16 partitions, a
// seen-state sized for them) and measures the seen-state's Redis memory
// (MEMORY USAGE of every bucket, and used_memory before and after with
// the streams emptied): at most 16 bytes per URL.
func TestSeenStateBytesPerURL(t *testing.T) {
	if testing.Short() {
		t.Skip("10^6 URLs")
	}
	addr := redistest.Start(t)
	ctx := context.Background()
	const urls = 1_000_000
	n, err := Open(ctx, Options{URL: "redis://" + addr + "/0", Node: "m", Partitions: 16, LeaseTTL: time.Second, Capacity: urls})
	if err != nil {
		t.Fatal(err)
	}
	defer n.Close()
	rdb := n.rdb
	usedMemory := func() int64 {
		info, err := rdb.Info(ctx, "memory").Result()
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(info, "\r\n") {
			if v, ok := strings.CutPrefix(line, "used_memory:"); ok {
				var m int64
				fmt.Sscan(v, &m)
				return m
			}
		}
		t.Fatal("no used_memory in INFO")
		return 0
	}
	before := usedMemory()
	fresh := 0
	for i := 0; i < urls; i += 10_000 {
		items := make([]Item, 0, 10_000)
		for j := i; j < i+10_000; j++ {
			items = append(items, Item{URL: fmt.Sprintf("https://www.site%d.example/articles/%d/item-%d.html", j%1000, j/1000, j)})
		}
		k, err := n.Admit(ctx, items)
		if err != nil {
			t.Fatal(err)
		}
		fresh += k
		for p := range 16 { // the streams are not the seen-state
			rdb.XTrimMaxLen(ctx, n.key(p, "q"), 0)
		}
	}
	if fresh != urls {
		t.Fatalf("queued %d of %d distinct URLs", fresh, urls)
	}
	var bytes, members int64
	iter := rdb.Scan(ctx, 0, "bloomcrawl:{p:*}:s*", 10_000).Iterator()
	for iter.Next(ctx) {
		b, _ := rdb.MemoryUsage(ctx, iter.Val()).Result()
		c, _ := rdb.SCard(ctx, iter.Val()).Result()
		bytes, members = bytes+b, members+c
	}
	if err := iter.Err(); err != nil {
		t.Fatal(err)
	}
	after := usedMemory()
	perURL := float64(bytes) / urls
	t.Logf("%d URLs: seen-state %.2f bytes per URL (MEMORY USAGE of %d fingerprints' buckets), used_memory grew %.2f bytes per URL", urls, perURL, members, float64(after-before)/urls)
	if members != urls || perURL > 16 {
		t.Errorf("seen-state: %d fingerprints, %.2f bytes per URL; want %d, at most 16", members, perURL, urls)
	}
}

// TestStateAndInspect: two nodes queue URLs and report counters; a node's
// State shows its partitions' queues, a lease taken away from it counts
// as lost, and Inspect (without joining) shows each node's counters and
// partitions, the sums, and every partition's owner, lease TTL, queue
// length and pending entries, all agreeing with what was done.
func TestStateAndInspect(t *testing.T) { forBackends(t, testStateAndInspect) }

func testStateAndInspect(t *testing.T, url string) {
	ctx := context.Background()
	if _, err := Inspect(ctx, url, ""); !errors.Is(err, ErrNoCrawl) {
		t.Fatalf("Inspect of an empty Redis: %v, want ErrNoCrawl", err)
	}
	a, b := open(t, url, "a"), open(t, url, "b")
	a.Report(func() Counters { return Counters{Pages: 7, Stored: 5, Duplicates: 2, Errors: 1} })
	b.Report(func() Counters { return Counters{Pages: 3, Stored: 3} })
	var items []Item
	for i := range 200 {
		items = append(items, Item{URL: fmt.Sprintf("http://site%d.net/%d", i%13, i)}) // 13 registrable domains
	}
	if k, err := a.Admit(ctx, items[:120]); err != nil || k != 120 {
		t.Fatalf("a queued %d, %v", k, err)
	}
	if k, err := b.Admit(ctx, items[80:]); err != nil || k != 80 {
		t.Fatalf("b queued %d, %v", k, err)
	}
	for i := 0; len(a.Held()) != 4 || len(b.Held()) != 4; i++ {
		if i == 200 {
			t.Fatalf("leases: a holds %v, b holds %v after 10 s", a.Held(), b.Held())
		}
		time.Sleep(50 * time.Millisecond)
	}
	var taken []Task
	for i := 0; len(taken) == 0; i++ {
		if i == 100 {
			t.Fatal("a took nothing in 5 s")
		}
		tk, err := a.Take(ctx, 10)
		if err != nil {
			t.Fatal(err)
		}
		taken = append(taken, tk...)
		time.Sleep(50 * time.Millisecond)
	}
	// Two lease rounds later (every 200 ms) the states are published.
	time.Sleep(500 * time.Millisecond)
	st := a.State()
	var aLen, aPend int64
	for _, q := range st.Queues {
		aLen += q.Length
		aPend += q.Pending
	}
	if aPend != int64(len(taken)) {
		t.Errorf("a's State: %d pending in its queues %+v, want the %d it took", aPend, st.Queues, len(taken))
	}
	r, err := Inspect(ctx, url, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Nodes) != 2 || r.Nodes[0].Name != "a" || r.Nodes[1].Name != "b" {
		t.Fatalf("Inspect nodes %+v, want a and b", r.Nodes)
	}
	if r.Total != (Counters{Pages: 10, Stored: 8, Duplicates: 2, Errors: 1}) {
		t.Errorf("Inspect total %+v, want the sum of the two reports", r.Total)
	}
	if r.Nodes[0].URLs != 120 || r.Nodes[1].URLs != 80 || r.URLs != 200 || r.URLsDone != 0 {
		t.Errorf("Inspect urls: a %d, b %d, all %d (done %d); want 120, 80, 200 (0)", r.Nodes[0].URLs, r.Nodes[1].URLs, r.URLs, r.URLsDone)
	}
	for _, nr := range r.Nodes {
		if !nr.Live || nr.State != "running" || len(nr.Partitions) != 4 {
			t.Errorf("Inspect node %+v, want live, running, 4 partitions", nr)
		}
	}
	var length, pending int64
	owners := map[string]int{}
	for _, p := range r.Partitions {
		length += p.Length
		pending += p.Pending
		owners[p.Owner]++
		if p.LeaseTTLMs <= 0 || p.LeaseTTLMs > 600 {
			t.Errorf("partition %d: lease TTL left %d ms, want within (0, 600]", p.Partition, p.LeaseTTLMs)
		}
		if p.Length != p.Queued-p.Done {
			t.Errorf("partition %d: queue length %d, want queued %d - done %d", p.Partition, p.Length, p.Queued, p.Done)
		}
	}
	if len(r.Partitions) != 8 || owners["a"] != 4 || owners["b"] != 4 || length != 200 || pending != int64(len(taken)) {
		t.Errorf("Inspect partitions: %d, owners %v, queue length %d, pending %d; want 8, 4 each, 200, %d", len(r.Partitions), owners, length, pending, len(taken))
	}
	if aLen == 0 || aLen > 200 {
		t.Errorf("a's queues hold %d entries, want some of the 200", aLen)
	}

	// Another node takes one of a's leases (as after a pause longer than
	// the TTL): a's next renewal finds it lost.
	p := a.Held()[0]
	if err := a.rdb.Set(ctx, a.key(p, "lease"), "intruder", time.Second).Err(); err != nil {
		t.Fatal(err)
	}
	for i := 0; a.State().LeasesLost == 0; i++ {
		if i == 100 {
			t.Fatalf("a did not count its lease of partition %d lost in 5 s: %+v", p, a.State())
		}
		time.Sleep(50 * time.Millisecond)
	}
	if slices.Contains(a.Held(), p) {
		t.Errorf("a still holds partition %d after losing its lease", p)
	}
	for _, tk := range taken {
		if err := a.Ack(ctx, tk); err != nil {
			t.Fatal(err)
		}
	}
	b.Close()
	r, err = Inspect(ctx, url, "")
	if err != nil {
		t.Fatal(err)
	}
	if nb := r.Nodes[1]; nb.Live || nb.State != "exited" || len(nb.Partitions) != 0 || nb.Pages != 3 {
		t.Errorf("Inspect of b after Close: %+v, want not live, exited, no partitions, its last counters", nb)
	}
	if r.URLsDone != int64(len(taken)) {
		t.Errorf("Inspect urls_done %d, want %d", r.URLsDone, len(taken))
	}
}

// TestTakeSameIDInTwoPartitions: stream IDs are per stream, and a page's
// links queued in several partitions in the same millisecond get equal
// IDs; each entry must be handed out (a first version keyed the entries in
// flight by ID alone and left such twins pending until the lease TTL
// re-delivered them: a stall of a TTL per twin in a multi-host crawl).
func TestTakeSameIDInTwoPartitions(t *testing.T) {
	url := "redis://" + redistest.Start(t) + "/0"
	n := open(t, url, "a")
	ctx := context.Background()
	for i := 0; len(n.Held()) != 8; i++ {
		if i == 200 {
			t.Fatalf("a holds %v after 10 s, want all 8 partitions", n.Held())
		}
		time.Sleep(50 * time.Millisecond)
	}
	for p := range 8 {
		err := n.rdb.XAdd(ctx, &redis.XAddArgs{Stream: n.key(p, "q"), ID: "1-1", Values: []any{"u", fmt.Sprintf("http://p%d.example/", p), "d", 0, "r", ""}}).Err()
		if err != nil {
			t.Fatal(err)
		}
	}
	tasks, err := n.Take(ctx, 100)
	if err != nil {
		t.Fatal(err)
	}
	if len(tasks) != 8 {
		t.Errorf("Take handed out %d of 8 entries with ID 1-1 in 8 partitions: %+v", len(tasks), tasks)
	}
}

// TestRenewFailuresCounted: when Redis goes away, the node counts its
// failed lease rounds (State().RenewFailures, shown in progress and
// /metrics) and, after a lease TTL of them, Take returns the error.
func TestRenewFailuresCounted(t *testing.T) {
	bin, err := redistest.Binary()
	if err != nil {
		if os.Getenv("BLOOMCRAWL_CI") == "1" {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	srv, err := redistest.StartServer(bin, t.TempDir(), false)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	n := open(t, "redis://"+srv.Addr+"/0", "a")
	for i := 0; len(n.Held()) == 0; i++ {
		if i == 200 {
			t.Fatal("no lease after 10 s")
		}
		time.Sleep(50 * time.Millisecond)
	}
	srv.Close()
	for i := 0; n.State().RenewFailures < 3; i++ {
		if i == 400 {
			t.Fatalf("20 s after Redis died: %+v, want 3 renew failures (a TTL of lease rounds)", n.State())
		}
		time.Sleep(50 * time.Millisecond)
	}
	if _, err := n.Take(context.Background(), 1); err == nil {
		t.Error("Take answers without error after a lease TTL of failed rounds")
	}
}

// TestPartitionsMustAgree: a node opened with another partition count
// than the crawl's first node is refused, naming both.
func TestPartitionsMustAgree(t *testing.T) {
	url := "redis://" + redistest.Start(t) + "/0"
	open(t, url, "a") // 8 partitions
	_, err := Open(context.Background(), Options{URL: url, Node: "b", Partitions: 32, LeaseTTL: 600 * time.Millisecond, Capacity: 100_000})
	if err == nil || !strings.Contains(err.Error(), "partitions=32") || !strings.Contains(err.Error(), "partitions=8") {
		t.Fatalf("Open with 32 partitions on a crawl of 8: %v, want a refusal naming both", err)
	}
}

// TestPartitionsBounded: Open refuses more than MaxPartitions partitions
// (before connecting), and Inspect refuses a crawl whose stored meta key
// claims more (a damaged key, not an allocation of that many partitions).
func TestPartitionsBounded(t *testing.T) {
	_, err := Open(context.Background(), Options{URL: "redis://127.0.0.1:1/0", Partitions: MaxPartitions + 1})
	if err == nil || !strings.Contains(err.Error(), "Partitions 16385") {
		t.Fatalf("Open with %d partitions: %v, want a refusal naming the number", MaxPartitions+1, err)
	}
	addr := redistest.Start(t)
	rdb := redis.NewClient(&redis.Options{Addr: addr})
	defer rdb.Close()
	if err := rdb.Set(context.Background(), "bloomcrawl:meta", "partitions=2000000000 n0=64 p0=0.0005", 0).Err(); err != nil {
		t.Fatal(err)
	}
	_, err = Inspect(context.Background(), "redis://"+addr+"/0", "")
	if err == nil || !strings.Contains(err.Error(), "bloomcrawl:meta") {
		t.Fatalf("Inspect of a meta key claiming 2e9 partitions: %v, want an error naming the key", err)
	}
}
