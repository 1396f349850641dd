package cluster

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/cespare/xxhash/v2"
	"github.com/redis/go-redis/v9"
	"golang.org/x/net/publicsuffix"
)

// Options configures a Node. The zero value of every field but URL is its
// default.
type Options struct {
	// URL is the Redis server: redis://HOST:PORT/DB (rediss:// for TLS),
	// or a Redis Cluster: redis+cluster://HOST:PORT[?addr=HOST:PORT...]
	// (rediss+cluster:// for TLS; the addresses are seeds, the other
	// shards are discovered; no /DB: a cluster has database 0 only).
	// Required. See ParseURL.
	URL string
	// Node names this node (its stream consumer and lease owner). Default
	// HOSTNAME-PID. Restarting a node under the same name lets it take
	// back the entries it had taken (after LeaseTTL).
	Node string
	// Partitions is the number of partitions hosts are spread over, at
	// most MaxPartitions. Every node of a crawl must use the same number
	// (checked). Default 16.
	Partitions int
	// LeaseTTL is how long a partition lease lives without renewal; the
	// owner renews it every LeaseTTL/3. A dead node's partitions are taken
	// over, and its entries in flight re-delivered, after about LeaseTTL.
	// Default 10s.
	LeaseTTL time.Duration
	// Capacity sizes the cluster-wide seen-state (seen.go): each
	// partition's first level of fingerprint buckets holds
	// Capacity/Partitions URLs, and levels twice as large follow as it
	// fills. Default 10,000,000. Every node must use the same (checked).
	// TargetFP is ignored: the seen-state is exact.
	Capacity uint64
	TargetFP float64
	// Prefix starts every key. Default "bloomcrawl".
	Prefix string
	// Verify is ignored: the seen-state answers exactly (64-bit
	// fingerprints, see seen.go), so there is nothing to confirm.
	Verify bool
	// RedisWait is how long a node waits for Redis when it cannot reach it
	// (a restart, a network cut): each command is tried again with a
	// backoff from 100 ms doubling to 1 s for about this long, and the
	// lease loop stops the node only after this long of failed rounds.
	// Default LeaseTTL. See docs/cluster.md, "Redis restarts".
	RedisWait time.Duration
	// Logger receives a warning when Redis becomes unreachable and a note
	// when it answers again. nil discards.
	Logger *slog.Logger
	// History keeps the node's copy of the document log (a
	// *storage.DB; history.go): the log in Redis is trimmed to what every
	// live node saved there, and a node that starts again replays it.
	// nil: the node keeps no copy, and the log is not trimmed while it
	// is live.
	History History
}

// Item is a URL to be crawled, as queued in a partition's stream.
type Item struct {
	URL      string
	Depth    int
	Referrer string
}

// Task is an Item handed out to this node: Ack it after its page is
// committed, or Release it to leave it pending (re-delivered later).
type Task struct {
	Item
	Partition int
	ID        string // stream entry ID
	fence     int64  // the partition's fencing token when it was handed out (Confirm)
}

const group = "crawl" // the consumer group of every partition stream

// entry names a stream entry: IDs are per stream, and two partitions'
// streams give the same ID to entries added in the same millisecond.
type entry struct {
	partition int
	id        string
}

// Node is one crawler's handle on the cluster state. Its methods are safe
// for concurrent use.
type Node struct {
	o     Options
	rdb   redis.UniversalClient
	b0    int // buckets of a partition's first seen-state level (seen.go)
	name  string
	epoch string    // the crawl's epoch (setEpoch)
	local localSeen // fingerprints this node has offered (seen.go)
	c     committer // the group commit's queue (commit.go)
	log   *slog.Logger
	docs  docState // the node's position in the document log (docs.go)

	mu         sync.Mutex
	held       map[int]bool      // partitions this node holds a lease on
	fence      map[int]int64     // the fencing token of each held lease (acquireScript)
	until      map[int]time.Time // until when each held lease is surely this node's (monotonic clock; Confirm)
	claimAt    map[int]time.Time // when each held partition was last XAUTOCLAIMed
	inflight   map[entry]bool    // entries handed out, neither acked nor released
	suspect    map[entry]bool    // entries in flight when Redis became unreachable (Confirm)
	draining   map[int]bool      // held partitions being given up: not read, released once none of their entries is in flight
	loopErr    error
	reporter   func() Counters     // set by Report; published every lease round
	gate       func(int) time.Time // set by SetReleaseGate
	lease      LeaseState          // renew failures, leases lost, queues of held partitions (State)
	admitted   int64               // URLs this node queued (Admit's fresh ones)
	trips      roundTrips          // commands and pipelines sent (RoundTrips)
	stop       chan struct{}
	loopDone   chan struct{}
	commitDone chan struct{}
	closeOnce  sync.Once

	sched schedQueue // refresh schedule writes (schedule.go)
	hist  docCopy    // saving and sending the node's copy of the document log (history.go)
	jr    journal    // what Redis may not have synced yet (journal.go)
	auto  []Task     // entries of URLs committed here, to ack unfetched (journal.go)
}

// MaxPartitions is the most partitions a crawl may have (Open refuses
// more): Redis Cluster's number of hash slots, so every partition's keys
// can have a slot of their own.
const MaxPartitions = 16384

// Open connects to Redis, checks that the crawl's shared parameters agree
// with the ones stored by the first node, creates the partition streams and
// their consumer group, registers the node and starts its lease loop.
func Open(ctx context.Context, o Options) (*Node, error) {
	if o.URL == "" {
		return nil, errors.New("cluster: Options.URL is required")
	}
	if o.Partitions > MaxPartitions {
		return nil, fmt.Errorf("cluster: Options.Partitions %d: at most %d", o.Partitions, MaxPartitions)
	}
	if o.Partitions <= 0 {
		o.Partitions = 16
	}
	if o.LeaseTTL <= 0 {
		o.LeaseTTL = 10 * time.Second
	}
	if o.Capacity == 0 {
		o.Capacity = 10_000_000
	}
	if o.TargetFP <= 0 || o.TargetFP >= 1 {
		o.TargetFP = 0.001
	}
	if o.Prefix == "" {
		o.Prefix = "bloomcrawl"
	}
	if o.Node == "" {
		h, _ := os.Hostname()
		o.Node = fmt.Sprintf("%s-%d", h, os.Getpid())
	}
	if o.RedisWait <= 0 {
		o.RedisWait = o.LeaseTTL
	}
	rdb, err := parseURL(o.URL, o.RedisWait)
	if err != nil {
		return nil, err
	}
	n := &Node{o: o, rdb: rdb, b0: seenBuckets0(o.Capacity, o.Partitions), name: o.Node,
		local: localSeen{m: map[uint64]uint32{}, max: localSeenMax},
		c:     committer{kick: make(chan struct{}, 1)}, docs: docState{batch: docBatch}, commitDone: make(chan struct{}),
		held: map[int]bool{}, fence: map[int]int64{}, until: map[int]time.Time{}, claimAt: map[int]time.Time{}, inflight: map[entry]bool{}, suspect: map[entry]bool{}, draining: map[int]bool{},
		stop: make(chan struct{}), loopDone: make(chan struct{})}
	if c, ok := rdb.(*redis.Client); ok {
		n.jr.on = true // journal.go
		c.Options().OnConnect = n.onConnect
	}
	rdb.AddHook(&n.trips)
	lg := o.Logger
	if lg == nil {
		lg = slog.New(slog.DiscardHandler)
	}
	n.log = lg
	rdb.AddHook(&downLog{n: n, log: lg, url: o.URL, wait: o.RedisWait})
	if err := n.setup(ctx); err != nil {
		n.rdb.Close()
		return nil, err
	}
	if err := n.openHistory(ctx); err != nil {
		n.rdb.Close()
		return nil, err
	}
	go n.leaseLoop()
	go n.commitLoop()
	return n, nil
}

func (n *Node) setup(ctx context.Context) error {
	if err := checkServer(ctx, n.rdb, n.o.URL); err != nil {
		return err
	}
	if err := n.setEpoch(ctx); err != nil {
		return err
	}
	meta := fmt.Sprintf("partitions=%d seen=fp64 b0=%d", n.o.Partitions, n.b0)
	metaKey := n.o.Prefix + ":meta"
	if err := n.rdb.SetNX(ctx, metaKey, meta, 0).Err(); err != nil {
		return fmt.Errorf("cluster: %w", err)
	}
	got, err := n.rdb.Get(ctx, metaKey).Result()
	if err != nil {
		return fmt.Errorf("cluster: %w", err)
	}
	if got != meta {
		return fmt.Errorf("cluster: this node's %s differ from the crawl's %s (key %s): use the same partitions and dedup capacity on every node", meta, got, metaKey)
	}
	for p := range n.o.Partitions {
		err := n.rdb.XGroupCreateMkStream(ctx, n.key(p, "q"), group, "0").Err()
		if err != nil && !strings.HasPrefix(err.Error(), "BUSYGROUP") {
			return fmt.Errorf("cluster: create stream %s: %w", n.key(p, "q"), err)
		}
	}
	for _, s := range []*redis.Script{admitScript, ackScript, acquireScript, renewScript, releaseScript, heartbeatScript, readDocsScript, trimScript, claimScript, claimSeenScript, pushScript, moveScript, addAbsentScript} {
		if err := s.Load(ctx, n.rdb).Err(); err != nil {
			return fmt.Errorf("cluster: load script: %w", err)
		}
	}
	return n.register(ctx)
}

// key is partition p's key of the given kind; the hash tag {p:N} keeps
// one partition's keys in one Redis Cluster slot, so each script touches
// one slot.
func (n *Node) key(p int, kind string) string {
	return fmt.Sprintf("%s:{p:%d}:%s", n.o.Prefix, p, kind)
}

// Name is the node's name.
func (n *Node) Name() string { return n.name }

// Partition returns the partition of a URL's host: hosts are grouped by
// registrable domain (publicsuffix), so one site's hosts share a
// partition and one owner; an IP address or a name without a public
// suffix stands for itself.
func (n *Node) Partition(host string) int { return PartitionOf(host, n.o.Partitions) }

// PartitionOf is the partition of host among partitions, as every node
// of a crawl with that many partitions computes it (Node.Partition).
func PartitionOf(host string, partitions int) int {
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	host = strings.ToLower(strings.TrimSuffix(host, "."))
	dom := host
	if net.ParseIP(strings.Trim(host, "[]")) == nil {
		if d, err := publicsuffix.EffectiveTLDPlusOne(host); err == nil {
			dom = d
		}
	}
	return int(xxhash.Sum64String(dom) % uint64(partitions))
}

// ackScript acknowledges stream entries, deletes them and counts them
// done, once: a re-delivered entry acknowledged twice counts once. Only
// the entries still pending under this node's consumer are acknowledged:
// one the partition's next owner has claimed (XAUTOCLAIM, after this
// node's lease expired) is that owner's to acknowledge (and a stream a
// Redis without persistence lost has none: the epoch check tells). It
// returns the number acknowledged and the number refused so.
// KEYS: stream, acked counter. ARGV: group, consumer, ids.
var ackScript = redis.NewScript(`
local ids = {}
for i = 3, #ARGV do
  local p = redis.pcall('XPENDING', KEYS[1], ARGV[1], ARGV[i], ARGV[i], 1, ARGV[2])
  if not p.err and #p > 0 then ids[#ids + 1] = ARGV[i] end
end
local n = 0
if #ids > 0 then
  n = redis.call('XACK', KEYS[1], ARGV[1], unpack(ids))
  redis.call('XDEL', KEYS[1], unpack(ids))
  redis.call('INCRBY', KEYS[2], n)
end
return {n, #ARGV - 2 - #ids}`)

// acquireScript takes a free lease for this node and gives it a fencing
// token: the partition's fence counter, incremented at each acquisition,
// so that a lease this node lost and took again is not the one it held;
// the holder key records who took it last (renewScript). It returns the
// token, or 0 when the lease is someone's, or when Redis started less
// than ARGV[3] ms ago (a restart: the lease keys had expired meanwhile)
// and the partition had an owner, who may take its lease back first
// (renewScript) before anyone else claims the entries it has in flight.
// In that grace a partition nobody had is acquired at once, but its
// token jumps by ARGV[4] (tokenStep) instead of 1: a restarted Redis may
// have lost an acquisition of its last second, whose node still holds
// that token until it re-offers its journal (journal.go), and no two
// nodes may hold a partition under one token.
// KEYS: lease, fence, holder. ARGV: node, TTL ms, grace ms, token step.
var acquireScript = redis.NewScript(`
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
local up = string.match(redis.call('INFO', 'server'), 'uptime_in_seconds:(%d+)')
local recent = up and tonumber(up) * 1000 < tonumber(ARGV[3])
if recent and redis.call('EXISTS', KEYS[2]) == 1 then return 0 end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
redis.call('SET', KEYS[3], ARGV[1])
if recent then return redis.call('INCRBY', KEYS[2], ARGV[4]) end
return redis.call('INCR', KEYS[2])`)

// tokenStep is how far a partition's fence counter jumps at an
// acquisition in the restart grace (acquireScript): more than the
// acquisitions of one partition in any second.
const tokenStep = 1 << 20

// renewScript extends a lease if this node still owns it under the same
// fencing token. A lease key gone (expired while Redis was down or this
// node could not reach it) is taken again under the same token when the
// fence counter and holder say nobody took the lease since: the
// partition stayed this node's, so what it has in flight is still its
// own. With appendfsync everysec a restarted Redis may have lost its last
// second, acquisitions included, but an acquisition writes the counter
// and the holder in one script, so (token, holder) still name one
// acquisition: a node whose acquisition was lost finds another token or
// holder there and loses the lease.
// KEYS: lease, fence, holder. ARGV: node, TTL ms, token.
var renewScript = redis.NewScript(`
local owner = redis.call('GET', KEYS[1])
if redis.call('GET', KEYS[2]) ~= ARGV[3] then return 0 end
if owner == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
if not owner and redis.call('GET', KEYS[3]) == ARGV[1] then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
  return 1
end
return 0`)

// releaseScript deletes a lease if this node still owns it under the same
// fencing token. KEYS: lease, fence. ARGV: node, token.
var releaseScript = redis.NewScript(`
if redis.call('GET', KEYS[1]) == ARGV[1] and redis.call('GET', KEYS[2]) == ARGV[2] then
  return redis.call('DEL', KEYS[1])
end
return 0`)

// leaseKeys are partition p's lease, fence counter and holder keys.
func (n *Node) leaseKeys(p int) []string {
	return []string{n.key(p, "lease"), n.key(p, "fence"), n.key(p, "holder")}
}

// restartGrace is how long after Redis started a partition that had an
// owner is not acquired (acquireScript): a lease round every LeaseTTL/3
// plus a retry backoff of at most 1 s (retryOptions) lets its owner take
// its lease back first.
func (n *Node) restartGrace() time.Duration { return n.o.LeaseTTL + time.Second }

// leaseMargin is how long before the TTL, counted from the moment it
// sent the renewal, a node stops taking its lease for granted (Confirm).
func (n *Node) leaseMargin() time.Duration { return n.o.LeaseTTL / 10 }

// renew extends partition p's lease held under token (one round trip)
// and, if it is still this node's, records until when it surely is.
func (n *Node) renew(ctx context.Context, p int, token int64) (bool, error) {
	sent := time.Now()
	ok, err := renewScript.Run(ctx, n.rdb, n.leaseKeys(p), n.name, n.o.LeaseTTL.Milliseconds(), token).Int()
	if err != nil || ok == 0 {
		return false, err
	}
	n.mu.Lock()
	if n.held[p] && n.fence[p] == token {
		n.until[p] = sent.Add(n.o.LeaseTTL - n.leaseMargin())
	}
	n.mu.Unlock()
	return true, nil
}

// FalsePositives is 0: the seen-state is exact (fingerprints, not Bloom
// bits), so no URL is taken for seen that was not queued (seen.go).
func (n *Node) FalsePositives() uint64 { return 0 }

func urlHost(raw string) (string, error) {
	i := strings.Index(raw, "://")
	if i < 0 {
		return "", errors.New("not an absolute URL")
	}
	rest := raw[i+3:]
	if j := strings.IndexAny(rest, "/?#"); j >= 0 {
		rest = rest[:j]
	}
	if k := strings.LastIndexByte(rest, '@'); k >= 0 {
		rest = rest[k+1:]
	}
	return rest, nil
}

// Take hands out about limit entries from the partitions this node holds a
// lease on: first entries of those partitions idle longer than LeaseTTL
// (taken by a node that died, or left by this one) through XAUTOCLAIM,
// then new ones (XREADGROUP). It does not block; nil means nothing now.
func (n *Node) Take(ctx context.Context, limit int) ([]Task, error) {
	out, err := n.take(ctx, limit)
	n.ackUnfetched()
	return out, err
}

func (n *Node) take(ctx context.Context, limit int) ([]Task, error) {
	if err := n.commitErr(); err != nil {
		return nil, err
	}
	n.mu.Lock()
	if n.loopErr != nil {
		err := n.loopErr
		n.mu.Unlock()
		return nil, err
	}
	var parts, claim []int
	now := time.Now()
	for p := range n.held {
		if n.draining[p] {
			continue
		}
		parts = append(parts, p)
		if now.Sub(n.claimAt[p]) >= n.o.LeaseTTL {
			claim = append(claim, p)
			n.claimAt[p] = now
		}
	}
	n.mu.Unlock()
	if len(parts) == 0 || limit <= 0 {
		return nil, nil
	}
	slices.Sort(parts)
	var out []Task
	for _, p := range claim {
		start := "0-0"
		for range 100 { // bounded: each round reads up to limit entries
			msgs, next, err := n.rdb.XAutoClaim(ctx, &redis.XAutoClaimArgs{Stream: n.key(p, "q"), Group: group,
				MinIdle: n.o.LeaseTTL, Start: start, Count: int64(limit), Consumer: n.name}).Result()
			if err != nil {
				return nil, fmt.Errorf("cluster: xautoclaim %s: %w", n.key(p, "q"), err)
			}
			out = n.tasks(p, msgs, out)
			if next == "0-0" || len(out) >= limit {
				break
			}
			start = next
		}
	}
	// up to limit from each stream: most of a node's partitions are
	// empty or nearly so at any time
	per := int64(limit - len(out))
	if len(out) >= limit {
		return out, nil
	}
	if _, isCluster := n.rdb.(*redis.ClusterClient); !isCluster {
		// one server: one XREADGROUP over all the partitions' streams
		streams := make([]string, 0, 2*len(parts))
		for _, p := range parts {
			streams = append(streams, n.key(p, "q"))
		}
		for range parts {
			streams = append(streams, ">")
		}
		res, err := n.rdb.XReadGroup(ctx, &redis.XReadGroupArgs{Group: group, Consumer: n.name, Streams: streams, Count: per, Block: -1}).Result()
		if err != nil && !errors.Is(err, redis.Nil) {
			return nil, n.lostOr(ctx, fmt.Errorf("cluster: xreadgroup: %w", err))
		}
		for _, st := range res {
			for _, p := range parts {
				if n.key(p, "q") == st.Stream {
					out = n.tasks(p, st.Messages, out)
				}
			}
		}
		return out, nil
	}
	// a Redis Cluster: one XREADGROUP per partition (each its own slot),
	// pipelined
	pipe := n.rdb.Pipeline()
	cmds := make([]*redis.XStreamSliceCmd, len(parts))
	for i, p := range parts {
		cmds[i] = pipe.XReadGroup(ctx, &redis.XReadGroupArgs{Group: group, Consumer: n.name,
			Streams: []string{n.key(p, "q"), ">"}, Count: per, Block: -1})
	}
	if _, err := pipe.Exec(ctx); err != nil && !errors.Is(err, redis.Nil) {
		return nil, n.lostOr(ctx, fmt.Errorf("cluster: xreadgroup: %w", err))
	}
	for i, c := range cmds {
		streams, err := c.Result()
		if err != nil && !errors.Is(err, redis.Nil) {
			return nil, fmt.Errorf("cluster: xreadgroup %s: %w", n.key(parts[i], "q"), err)
		}
		for _, s := range streams {
			out = n.tasks(parts[i], s.Messages, out)
		}
	}
	return out, nil
}

// tasks turns stream messages into tasks, skipping the ones already in
// flight here (a slow page of this node's own is not handed out twice).
func (n *Node) tasks(p int, msgs []redis.XMessage, out []Task) []Task {
	n.mu.Lock()
	defer n.mu.Unlock()
	for _, m := range msgs {
		if n.inflight[entry{p, m.ID}] {
			continue
		}
		u, _ := m.Values["u"].(string)
		if u == "" {
			continue // deleted meanwhile (XAUTOCLAIM lists it without fields)
		}
		d, _ := strconv.Atoi(fmt.Sprint(m.Values["d"]))
		r, _ := m.Values["r"].(string)
		n.inflight[entry{p, m.ID}] = true
		t := Task{Item: Item{URL: u, Depth: d, Referrer: r}, Partition: p, ID: m.ID, fence: n.fence[p]}
		if n.jr.committed(t.Item) {
			n.auto = append(n.auto, t) // committed here already (journal.go)
			continue
		}
		out = append(out, t)
	}
	return out
}

// Release forgets t without acknowledging it: it stays pending, and is
// handed out again (to this node or the partition's next owner) once idle
// longer than LeaseTTL.
func (n *Node) Release(t Task) {
	n.mu.Lock()
	delete(n.inflight, entry{t.Partition, t.ID})
	delete(n.suspect, entry{t.Partition, t.ID})
	n.mu.Unlock()
}

// Finished reports whether the whole cluster's frontier is empty and
// nothing is in flight anywhere: every URL ever queued has been acked.
// It reads every partition's acked counter, then every added counter: an
// entry is acked only after the URLs found on its page are added, so equal
// sums mean that at the moment between the two reads nothing was pending,
// and then nothing can be added any more.
func (n *Node) Finished(ctx context.Context) (bool, error) {
	if err := n.checkEpoch(ctx); err != nil { // empty counters of a lost state are no finished crawl
		return false, err
	}
	sum := func(kind string) (int64, error) {
		pipe := n.rdb.Pipeline()
		cmds := make([]*redis.StringCmd, n.o.Partitions)
		for p := range cmds {
			cmds[p] = pipe.Get(ctx, n.key(p, kind))
		}
		if _, err := pipe.Exec(ctx); err != nil && !errors.Is(err, redis.Nil) {
			return 0, fmt.Errorf("cluster: read %s counters: %w", kind, err)
		}
		var s int64
		for _, c := range cmds {
			v, err := c.Int64()
			if err != nil && !errors.Is(err, redis.Nil) {
				return 0, fmt.Errorf("cluster: read %s counters: %w", kind, err)
			}
			s += v
		}
		return s, nil
	}
	acked, err := sum("acked")
	if err != nil {
		return false, err
	}
	added, err := sum("added")
	if err != nil {
		return false, err
	}
	return added > 0 && acked == added, nil
}

// Held returns the partitions this node holds a lease on, in order.
func (n *Node) Held() []int {
	n.mu.Lock()
	defer n.mu.Unlock()
	out := []int{}
	for p := range n.held {
		out = append(out, p)
	}
	slices.Sort(out)
	return out
}

// register records the node as alive (a sorted set of nodes by last
// heartbeat, Redis's clock) and returns the number of live nodes.
func (n *Node) register(ctx context.Context) error {
	_, err := n.liveNodes(ctx)
	return err
}

func (n *Node) liveNodes(ctx context.Context) (int64, error) {
	live, err := heartbeatScript.Run(ctx, n.rdb, []string{n.o.Prefix + ":nodes"}, n.name, n.o.LeaseTTL.Milliseconds()).Int64()
	if err != nil {
		return 0, fmt.Errorf("cluster: register node: %w", err)
	}
	return live, nil
}

// heartbeatScript records a node's heartbeat in the sorted set of live
// nodes at the clock of the Redis shard holding it (one clock for all
// nodes, also on a Redis Cluster), drops the nodes silent for longer than
// the TTL and returns how many are left. KEYS: nodes. ARGV: node, TTL ms.
var heartbeatScript = redis.NewScript(`
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZADD', KEYS[1], now, ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - tonumber(ARGV[2]))
return redis.call('ZCARD', KEYS[1])`)

// leaseLoop renews, releases and acquires leases every LeaseTTL/3 so that
// each live node holds about its share (partitions / live nodes, rounded
// up). The first acquisition waits one period, so that nodes started
// together see each other before taking partitions.
func (n *Node) leaseLoop() {
	defer close(n.loopDone)
	t := time.NewTicker(n.o.LeaseTTL / 3)
	defer t.Stop()
	fails := 0
	for {
		select {
		case <-n.stop:
			return
		case <-t.C:
		}
		ctx, cancel := context.WithTimeout(context.Background(), n.o.LeaseTTL/3)
		err := n.balance(ctx)
		cancel()
		if errors.Is(err, ErrStateLost) {
			n.mu.Lock()
			n.loopErr = err
			n.mu.Unlock()
			return
		}
		if err != nil {
			n.mu.Lock()
			n.lease.RenewFailures++
			n.mu.Unlock()
			// A lease this node cannot renew expires by itself; after
			// RedisWait of failures the node stops (Take returns the error).
			if fails++; time.Duration(fails)*n.o.LeaseTTL/3 >= n.o.RedisWait {
				n.mu.Lock()
				n.loopErr = err
				n.mu.Unlock()
				return
			}
		} else {
			fails = 0
		}
	}
}

func (n *Node) balance(ctx context.Context) error {
	if err := n.checkEpoch(ctx); err != nil {
		return err
	}
	if err := n.checkRestart(ctx); err != nil {
		return err
	}
	live, err := n.liveNodes(ctx)
	if err != nil {
		return err
	}
	share := (n.o.Partitions + int(live) - 1) / int(max(live, 1))
	ttl := n.o.LeaseTTL.Milliseconds()
	for _, p := range n.Held() {
		ok, err := n.renew(ctx, p, n.token(p))
		if err != nil {
			return fmt.Errorf("cluster: renew lease %d: %w", p, err)
		}
		if !ok {
			n.drop(p) // expired and taken by another node
			n.mu.Lock()
			n.lease.LeasesLost++
			n.mu.Unlock()
		}
	}
	// Partitions beyond the share are drained first: no longer read, and
	// released only when none of their entries is in flight here, so the
	// next owner never fetches a host while this node still does.
	held := n.Held()
	n.mu.Lock()
	for i := len(held) - 1; i >= share; i-- {
		n.draining[held[i]] = true
	}
	busy := map[int]bool{}
	for e := range n.inflight {
		busy[e.partition] = true
	}
	var release []int
	now := time.Now()
	for p := range n.draining {
		if !busy[p] && n.gateOpen(p, now) {
			release = append(release, p)
		}
	}
	n.mu.Unlock()
	for _, p := range release {
		if err := releaseScript.Run(ctx, n.rdb, n.leaseKeys(p), n.name, n.token(p)).Err(); err != nil {
			return fmt.Errorf("cluster: release lease %d: %w", p, err)
		}
		n.drop(p)
	}
	start := int(xxhash.Sum64String(n.name) % uint64(n.o.Partitions))
	for i := 0; i < n.o.Partitions && len(n.Held()) < share; i++ {
		p := (start + i) % n.o.Partitions
		if slices.Contains(held, p) {
			continue
		}
		sent := time.Now()
		token, err := acquireScript.Run(ctx, n.rdb, n.leaseKeys(p), n.name, ttl, n.restartGrace().Milliseconds(), tokenStep).Int64()
		if err != nil {
			return fmt.Errorf("cluster: acquire lease %d: %w", p, err)
		}
		if token > 0 {
			n.mu.Lock()
			n.held[p] = true
			n.fence[p] = token
			n.until[p] = sent.Add(n.o.LeaseTTL - n.leaseMargin())
			n.claimAt[p] = time.Time{} // claim what its last owner left at once
			n.mu.Unlock()
		}
	}
	if err := n.saveDocs(); err != nil {
		// the position is not published past what was saved: the log
		// keeps the rest until a later round saves it
		n.log.Warn("cluster: save the document log to this node's store", "error", err.Error())
	}
	if err := n.trimDocs(ctx, true); err != nil {
		return err
	}
	return n.publish(ctx, "running")
}

// token is the fencing token of held partition p (0: not held).
func (n *Node) token(p int) int64 {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.fence[p]
}

func (n *Node) drop(p int) {
	n.mu.Lock()
	n.dropLocked(p)
	n.mu.Unlock()
}

func (n *Node) dropLocked(p int) {
	delete(n.held, p)
	delete(n.fence, p)
	delete(n.until, p)
	delete(n.draining, p)
	delete(n.claimAt, p)
}

// Close stops the lease loop, releases this node's leases (so that others
// take its partitions at once), unregisters it and closes the connection.
func (n *Node) Close() error {
	n.closeOnce.Do(func() { close(n.stop) })
	<-n.loopDone
	<-n.commitDone
	n.sched.wait()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	for _, p := range n.Held() {
		releaseScript.Run(ctx, n.rdb, n.leaseKeys(p), n.name, n.token(p))
		n.drop(p)
	}
	n.publish(ctx, "exited") // best effort: the final counters
	// best effort: what this node applied goes to its copy, and what
	// every live node saved leaves the log now (the last node out leaves
	// no tail behind)
	n.hist.sending.Wait()
	if n.docs.receiving() {
		n.endTransfer(ctx)
	}
	if err := n.saveDocs(); err != nil {
		n.log.Warn("cluster: save the document log to this node's store", "error", err.Error())
	} else if d := n.hist.docs.Load(); d > 0 {
		n.log.Info("cluster: document log saved to this node's store", "documents", d, "bytes", n.hist.bytes.Load())
	}
	n.trimDocs(ctx, false)
	if b, recs := n.JournalPeak(); b > 0 {
		n.log.Info("cluster: journal of the writes Redis may not have synced: its peak", "bytes", b, "records", recs)
	}
	n.rdb.HDel(ctx, n.docKey("applied"), n.name)
	n.rdb.ZRem(ctx, n.o.Prefix+":nodes", n.name)
	return n.rdb.Close()
}

// ParseURL returns a client for a --cluster URL: a single Redis server
// (redis://HOST:PORT/DB, rediss:// with TLS; go-redis's ParseURL) or a
// Redis Cluster (redis+cluster://HOST:PORT[?addr=HOST:PORT&addr=...],
// rediss+cluster:// with TLS; go-redis's ParseClusterURL after the
// "+cluster" is dropped): the addresses are seeds, the client discovers
// the other shards and follows MOVED/ASK redirections.
func ParseURL(raw string) (redis.UniversalClient, error) { return parseURL(raw, 0) }

// parseURL is ParseURL with a client that tries a command again for
// about wait (0: go-redis's default, 3 tries) when Redis cannot be
// reached (retryOptions).
func parseURL(raw string, wait time.Duration) (redis.UniversalClient, error) {
	scheme, rest, ok := strings.Cut(raw, "://")
	if !ok {
		return nil, fmt.Errorf("cluster: --cluster %q: want redis://HOST:PORT/DB or redis+cluster://HOST:PORT[?addr=HOST:PORT...]", raw)
	}
	switch scheme {
	case "redis+cluster", "rediss+cluster":
		co, err := redis.ParseClusterURL(strings.TrimSuffix(scheme, "+cluster") + "://" + rest)
		if err != nil {
			return nil, fmt.Errorf("cluster: --cluster %q: %w", raw, err)
		}
		if wait > 0 {
			co.MaxRetries, co.MinRetryBackoff, co.MaxRetryBackoff = retryOptions(wait)
		}
		return redis.NewClusterClient(co), nil
	case "redis", "rediss":
		ro, err := redis.ParseURL(raw)
		if err != nil {
			return nil, fmt.Errorf("cluster: --cluster %q: %w", raw, err)
		}
		if wait > 0 {
			ro.MaxRetries, ro.MinRetryBackoff, ro.MaxRetryBackoff = retryOptions(wait)
		}
		return redis.NewClient(ro), nil
	}
	return nil, fmt.Errorf("cluster: --cluster %q: unknown scheme %q (redis, rediss, redis+cluster or rediss+cluster)", raw, scheme)
}

// checkServer pings Redis and refuses a Redis Cluster node reached
// through a single-server URL (its keys would be answered MOVED).
func checkServer(ctx context.Context, rdb redis.UniversalClient, url string) error {
	if err := rdb.Ping(ctx).Err(); err != nil {
		return fmt.Errorf("cluster: %s: %w", url, err)
	}
	if _, isCluster := rdb.(*redis.ClusterClient); isCluster {
		return nil
	}
	info, err := rdb.Info(ctx, "cluster").Result()
	if err != nil {
		return fmt.Errorf("cluster: %s: INFO cluster: %w", url, err)
	}
	if strings.Contains(info, "cluster_enabled:1") {
		_, hostPath, _ := strings.Cut(url, "://")
		host, _, _ := strings.Cut(hostPath, "/")
		if i := strings.LastIndexByte(host, '@'); i >= 0 {
			host = host[i+1:] // no password in the message
		}
		return fmt.Errorf("cluster: --cluster %s is a Redis Cluster node: use redis+cluster://%s", url, host)
	}
	return nil
}
