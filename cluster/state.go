package cluster

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"
)

// Counters are what a node's crawl reports about itself (Report); the
// node publishes them with the URLs it queued in its hash in Redis.
type Counters struct {
	Pages      int64 `json:"pages"`      // pages fetched (any HTTP response)
	Stored     int64 `json:"stored"`     // new documents stored
	Duplicates int64 `json:"duplicates"` // pages mapped to a stored document
	Errors     int64 `json:"errors"`     // fetches or pages that failed
	// a continuous crawl's refreshes (schedule.go): fetched (any answer),
	// answered 304, found changed, fetched over an interval late
	Refreshed      int64 `json:"refreshed"`
	NotModified    int64 `json:"not_modified"`
	Changed        int64 `json:"changed"`
	BehindSchedule int64 `json:"behind_schedule"`
}

// add adds o's counts to c.
func (c *Counters) add(o Counters) {
	c.Pages += o.Pages
	c.Stored += o.Stored
	c.Duplicates += o.Duplicates
	c.Errors += o.Errors
	c.Refreshed += o.Refreshed
	c.NotModified += o.NotModified
	c.Changed += o.Changed
	c.BehindSchedule += o.BehindSchedule
}

// PartitionQueue is one partition's stream as a lease round last read it.
type PartitionQueue struct {
	Partition int   `json:"partition"`
	Length    int64 `json:"length"`  // entries in the stream: waiting or handed out, not yet acknowledged
	Pending   int64 `json:"pending"` // entries handed out to a node and not yet acknowledged
}

// LeaseState is a node's view of its leases (State).
type LeaseState struct {
	Held []int `json:"held"` // partitions this node holds a lease on
	// RenewFailures counts lease rounds that failed (Redis unreachable or
	// an error): after LeaseTTL of them in a row the node stops.
	RenewFailures int64 `json:"renew_failures"`
	// LeasesLost counts leases found expired (or owned by another node)
	// when this node came to renew them: their partitions were dropped.
	LeasesLost int64 `json:"leases_lost"`
	// Queues are the held partitions' streams at the last lease round
	// (every LeaseTTL/3).
	Queues []PartitionQueue `json:"queues"`
}

// Report sets the function a node calls every lease round (LeaseTTL/3)
// and at Close to publish its crawl's counters in Redis (the hash
// PREFIX:node:NAME, read by Inspect). It must be safe to call from
// another goroutine.
func (n *Node) Report(f func() Counters) {
	n.mu.Lock()
	n.reporter = f
	n.mu.Unlock()
}

// State returns the node's lease state: the partitions it holds, its
// renew failures and leases lost, and its partitions' queues as the last
// lease round read them.
func (n *Node) State() LeaseState {
	n.mu.Lock()
	defer n.mu.Unlock()
	s := n.lease
	s.Held = []int{}
	for p := range n.held {
		s.Held = append(s.Held, p)
	}
	slices.Sort(s.Held)
	s.Queues = slices.Clone(s.Queues)
	return s
}

func (n *Node) nodeKey(name string) string { return n.o.Prefix + ":node:" + name }

// publish writes the node's counters and held partitions to its hash,
// adds it to the set of nodes of the crawl, and reads its held
// partitions' queue lengths and pending counts: one pipeline.
func (n *Node) publish(ctx context.Context, state string) error {
	n.mu.Lock()
	f, admitted := n.reporter, n.admitted
	n.mu.Unlock()
	var c Counters
	if f != nil {
		c = f()
	}
	held := n.Held()
	parts := make([]string, len(held))
	for i, p := range held {
		parts[i] = strconv.Itoa(p)
	}
	pipe := n.rdb.Pipeline()
	pipe.HSet(ctx, n.nodeKey(n.name), "pages", c.Pages, "stored", c.Stored, "duplicates", c.Duplicates,
		"errors", c.Errors, "refreshed", c.Refreshed, "not_modified", c.NotModified, "changed", c.Changed,
		"behind_schedule", c.BehindSchedule, "urls", admitted, "round_trips", n.trips.n.Load()+1, // +1: this pipeline
		"partitions", strings.Join(parts, ","), "state", state, "lease_ttl_ms", n.o.LeaseTTL.Milliseconds())
	pipe.SAdd(ctx, n.o.Prefix+":nodeset", n.name)
	lens := make([]*redis.IntCmd, len(held))
	pend := make([]*redis.XPendingCmd, len(held))
	for i, p := range held {
		lens[i] = pipe.XLen(ctx, n.key(p, "q"))
		pend[i] = pipe.XPending(ctx, n.key(p, "q"), group)
	}
	if _, err := pipe.Exec(ctx); err != nil {
		return fmt.Errorf("cluster: publish node state: %w", err)
	}
	qs := make([]PartitionQueue, len(held))
	for i, p := range held {
		qs[i] = PartitionQueue{Partition: p, Length: lens[i].Val(), Pending: pend[i].Val().Count}
	}
	n.mu.Lock()
	n.lease.Queues = qs
	n.mu.Unlock()
	return nil
}

// NodeReport is one node of a crawl as Inspect reads it from Redis.
type NodeReport struct {
	Name string `json:"name"`
	// Live says the node's last heartbeat is younger than its lease TTL
	// and it has not exited; SilentMs is the time since that heartbeat
	// (-1: none recorded). State is what it last published: "running", or
	// "exited" (it closed normally; a node killed stays "running", and
	// is no longer live after its lease TTL).
	Live     bool   `json:"live"`
	SilentMs int64  `json:"silent_ms"`
	State    string `json:"state"`
	Counters
	URLs       int64 `json:"urls"`        // URLs this node queued (found first cluster-wide)
	RoundTrips int64 `json:"round_trips"` // commands and pipelines this node sent Redis (RoundTrips)
	Partitions []int `json:"partitions"`  // held at its last report
}

// PartitionReport is one partition as Inspect reads it from Redis.
type PartitionReport struct {
	Partition  int    `json:"partition"`
	Owner      string `json:"owner"`        // lease holder, "" when none
	LeaseTTLMs int64  `json:"lease_ttl_ms"` // lease time left, ms (0 when none)
	Length     int64  `json:"queue_length"` // entries in the stream: waiting or handed out
	Pending    int64  `json:"pending"`      // handed out, not yet acknowledged
	Queued     int64  `json:"urls_queued"`  // URLs ever queued (distinct cluster-wide)
	Done       int64  `json:"urls_done"`    // URLs acknowledged (their page committed)
}

// Report is a cluster crawl's state in Redis: per node (what each last
// published, every lease round and at exit) and summed, and per
// partition.
type Report struct {
	Nodes      []NodeReport      `json:"nodes"`
	Total      Counters          `json:"total"`
	URLs       int64             `json:"urls"`      // URLs queued cluster-wide (each once)
	URLsDone   int64             `json:"urls_done"` // of those, acknowledged
	Partitions []PartitionReport `json:"partitions"`

	// a continuous crawl's refresh schedule (schedule.go): URLs on it,
	// and of those due now and not yet queued
	RefreshScheduled int64 `json:"refresh_scheduled"`
	RefreshDue       int64 `json:"refresh_due"`
}

// nowScript returns the time of the shard holding KEYS[1] (ms).
var nowScript = redis.NewScript(`
local t = redis.call('TIME')
return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)`)

// ErrNoCrawl is returned by Inspect when Redis holds no crawl under the
// key prefix.
var ErrNoCrawl = errors.New("cluster: no crawl in this Redis (no PREFIX:meta key)")

// Inspect reads a cluster crawl's state from Redis at url (as
// Options.URL; prefix "" means "bloomcrawl") without joining it: a few
// pipelined round trips.
func Inspect(ctx context.Context, url, prefix string) (*Report, error) {
	if prefix == "" {
		prefix = "bloomcrawl"
	}
	rdb, err := ParseURL(url)
	if err != nil {
		return nil, err
	}
	defer rdb.Close()
	if err := checkServer(ctx, rdb, url); err != nil {
		return nil, err
	}
	meta, err := rdb.Get(ctx, prefix+":meta").Result()
	if errors.Is(err, redis.Nil) {
		return nil, fmt.Errorf("%w: %s", ErrNoCrawl, prefix+":meta")
	}
	if err != nil {
		return nil, fmt.Errorf("cluster: %w", err)
	}
	var parts int
	if _, err := fmt.Sscanf(meta, "partitions=%d", &parts); err != nil || parts <= 0 || parts > MaxPartitions {
		return nil, fmt.Errorf("cluster: %s: unreadable %q", prefix+":meta", meta)
	}
	n := &Node{o: Options{Prefix: prefix, Partitions: parts}}
	names, err := rdb.SMembers(ctx, prefix+":nodeset").Result()
	if err != nil {
		return nil, fmt.Errorf("cluster: %w", err)
	}
	slices.Sort(names)
	now, err := nowScript.Run(ctx, rdb, []string{prefix + ":nodes"}).Int64()
	if err != nil {
		return nil, fmt.Errorf("cluster: %w", err)
	}
	pipe := rdb.Pipeline()
	hashes := make([]*redis.MapStringStringCmd, len(names))
	beats := make([]*redis.FloatCmd, len(names))
	for i, name := range names {
		hashes[i] = pipe.HGetAll(ctx, n.nodeKey(name))
		beats[i] = pipe.ZScore(ctx, prefix+":nodes", name)
	}
	type partCmds struct {
		owner          *redis.StringCmd
		ttl            *redis.DurationCmd
		length         *redis.IntCmd
		pending        *redis.XPendingCmd
		queued, doneTo *redis.StringCmd
	}
	pc := make([]partCmds, parts)
	for p := range parts {
		pc[p] = partCmds{owner: pipe.Get(ctx, n.key(p, "lease")), ttl: pipe.PTTL(ctx, n.key(p, "lease")),
			length: pipe.XLen(ctx, n.key(p, "q")), pending: pipe.XPending(ctx, n.key(p, "q"), group),
			queued: pipe.Get(ctx, n.key(p, "added")), doneTo: pipe.Get(ctx, n.key(p, "acked"))}
	}
	// redis.Nil (a missing key) is expected: the per-command checks below.
	if _, err := pipe.Exec(ctx); err != nil && !errors.Is(err, redis.Nil) {
		return nil, fmt.Errorf("cluster: inspect: %w", err)
	}
	r := &Report{Nodes: []NodeReport{}}
	num := func(m map[string]string, k string) int64 { v, _ := strconv.ParseInt(m[k], 10, 64); return v }
	for i, name := range names {
		h := hashes[i].Val()
		nr := NodeReport{Name: name, State: h["state"], URLs: num(h, "urls"), RoundTrips: num(h, "round_trips"), Partitions: []int{},
			Counters: Counters{Pages: num(h, "pages"), Stored: num(h, "stored"), Duplicates: num(h, "duplicates"), Errors: num(h, "errors"),
				Refreshed: num(h, "refreshed"), NotModified: num(h, "not_modified"), Changed: num(h, "changed"), BehindSchedule: num(h, "behind_schedule")}}
		for _, f := range strings.Split(h["partitions"], ",") {
			if p, err := strconv.Atoi(f); err == nil {
				nr.Partitions = append(nr.Partitions, p)
			}
		}
		nr.SilentMs = -1
		if beat, err := beats[i].Result(); err == nil {
			nr.SilentMs = max(0, now-int64(beat))
			nr.Live = nr.State != "exited" && nr.SilentMs < num(h, "lease_ttl_ms")
		}
		r.Nodes = append(r.Nodes, nr)
		r.Total.add(nr.Counters)
	}
	for p, c := range pc {
		pr := PartitionReport{Partition: p, Owner: c.owner.Val(), Length: c.length.Val()}
		if d := c.ttl.Val(); d > 0 {
			pr.LeaseTTLMs = d.Milliseconds()
		}
		if x, err := c.pending.Result(); err == nil {
			pr.Pending = x.Count
		}
		pr.Queued, _ = strconv.ParseInt(c.queued.Val(), 10, 64)
		pr.Done, _ = strconv.ParseInt(c.doneTo.Val(), 10, 64)
		r.URLs += pr.Queued
		r.URLsDone += pr.Done
		r.Partitions = append(r.Partitions, pr)
	}
	if r.RefreshScheduled, r.RefreshDue, err = scheduleCounts(ctx, rdb, n, time.UnixMilli(now)); err != nil {
		return nil, err
	}
	return r, nil
}

// roundTrips is a go-redis hook counting what a node sends: each command
// sent alone and each pipeline counts one (on a Redis Cluster a pipeline
// goes to its shards in parallel: still one wait).
type roundTrips struct{ n atomic.Int64 }

func (r *roundTrips) DialHook(next redis.DialHook) redis.DialHook { return next }

func (r *roundTrips) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		r.n.Add(1)
		return next(ctx, cmd)
	}
}

func (r *roundTrips) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		r.n.Add(1)
		return next(ctx, cmds)
	}
}

// RoundTrips returns how many commands and pipelines the node has sent
// Redis (a script retried by source after NOSCRIPT counts twice).
func (n *Node) RoundTrips() int64 { return n.trips.n.Load() }
