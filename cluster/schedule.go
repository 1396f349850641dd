package cluster

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
)

// The refresh schedule of a continuous crawl belongs to the partitions,
// not to the nodes: each partition has a sorted set PREFIX:{p:N}:due (URL
// → when it is due, Unix ms) and a hash PREFIX:{p:N}:rec (URL → the
// crawler's record of its last fetch: validators, docId, …; opaque here).
// A node writes a URL's next due time after its fetch, before the entry's
// acknowledgement (ScheduleAfter); the owner of a partition moves the URLs
// that fall due into the partition's stream (QueueDue), in one script that
// checks its lease (fencing token), so a scheduled refresh is always in the
// schedule or in the stream, never lost with a node: a node killed -9
// leaves its entries pending in the stream (claimed by the next owner)
// and the rest of its partitions' schedule in Redis, where the next owner
// reads it. Writing a due time twice (a page fetched again after its node
// died before the ack) only moves it: the member is the URL.

// Scheduled is a URL's next refresh.
type Scheduled struct {
	URL    string
	Due    time.Time
	Record string // the crawler's record, handed back with the entry (RefreshMark)
}

// RefreshMark starts the referrer field of a stream entry QueueDue queued:
// the mark, the due time (Unix ms), a NUL, then the Scheduled.Record (a
// URL holds no NUL).
const RefreshMark = "\x00refresh"

// schedQueue is the node's schedule writes waiting for the next round.
type schedQueue struct {
	once   sync.Once
	mu     sync.Mutex
	reqs   []*schedReq
	closed bool // the loop has ended: nothing more is written
	kick   chan struct{}
	done   chan struct{} // closed when the loop ended
}

type schedReq struct {
	byPart map[int][]any // ZADD/HSET arguments: URL, due ms, record
	dep    *Pending
	p      *Pending
}

// ScheduleAfter queues items' due times for the next schedule round (at
// most one every lazyEvery, one pipeline) and returns a Pending that is
// done when they are written and dep (nil: none) is done; its error is
// dep's or the write's. Pass it to AckAfter: the entry is acknowledged
// only once its next refresh is in Redis.
func (n *Node) ScheduleAfter(dep *Pending, items []Scheduled) *Pending {
	p := &Pending{done: make(chan struct{})}
	if len(items) == 0 {
		if dep == nil {
			close(p.done)
			return p
		}
		return dep
	}
	req := &schedReq{byPart: map[int][]any{}, dep: dep, p: p}
	for _, it := range items {
		h, err := urlHost(it.URL)
		if err != nil {
			p.err = fmt.Errorf("cluster: schedule %q: %w", it.URL, err)
			close(p.done)
			return p
		}
		part := n.Partition(h)
		req.byPart[part] = append(req.byPart[part], it.URL, it.Due.UnixMilli(), it.Record)
	}
	q := &n.sched
	q.once.Do(func() {
		q.kick, q.done = make(chan struct{}, 1), make(chan struct{})
		go n.schedLoop()
	})
	q.mu.Lock()
	if q.closed {
		q.mu.Unlock()
		p.err = errClosed
		close(p.done)
		return p
	}
	q.reqs = append(q.reqs, req)
	q.mu.Unlock()
	select {
	case q.kick <- struct{}{}:
	default:
	}
	return p
}

// wait waits for the loop to end (it ends when the node stops), if
// ScheduleAfter started it.
func (q *schedQueue) wait() {
	q.once.Do(func() { q.done = make(chan struct{}); close(q.done) })
	<-q.done
	q.mu.Lock()
	q.closed = true // never started: nothing more is written either
	q.mu.Unlock()
}

// schedLoop writes the queued due times, a round at most every
// lazyEvery, until the node stops (then once more).
func (n *Node) schedLoop() {
	q := &n.sched
	defer close(q.done)
	for {
		select {
		case <-q.kick:
		case <-n.stop:
			q.mu.Lock()
			q.closed = true // what is queued now is the last round's
			q.mu.Unlock()
			n.schedRound()
			return
		}
		t := time.NewTimer(lazyEvery) // let a round gather the pages of 20 ms
		select {
		case <-t.C:
		case <-n.stop:
		}
		t.Stop()
		n.schedRound() // on stop, the loop's next turn closes it
	}
}

// schedRound sends one pipeline: per partition, one ZADD and one HSET
// for all its URLs.
func (n *Node) schedRound() {
	q := &n.sched
	q.mu.Lock()
	reqs := q.reqs
	q.reqs = nil
	q.mu.Unlock()
	if len(reqs) == 0 {
		return
	}
	zs, hs := map[int][]redis.Z{}, map[int][]any{}
	for _, r := range reqs {
		for p, a := range r.byPart {
			for i := 0; i < len(a); i += 3 {
				zs[p] = append(zs[p], redis.Z{Score: float64(a[i+1].(int64)), Member: a[i]})
				hs[p] = append(hs[p], a[i], a[i+2])
			}
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), n.o.RedisWait+n.o.LeaseTTL)
	defer cancel()
	pipe := n.rdb.Pipeline()
	for p, z := range zs {
		pipe.ZAdd(ctx, n.key(p, "due"), z...)
		pipe.HSet(ctx, n.key(p, "rec"), hs[p]...)
	}
	_, err := pipe.Exec(ctx)
	if err != nil {
		err = fmt.Errorf("cluster: write refresh schedule: %w", err)
	} else {
		n.journalSched(reqs)
	}
	for _, r := range reqs {
		finish := func() {
			r.p.err = err
			if r.dep != nil && r.dep.err != nil {
				r.p.err = r.dep.err
			}
			close(r.p.done)
		}
		if r.dep == nil || r.dep.finished() {
			finish()
			continue
		}
		go func() { <-r.dep.done; finish() }()
	}
}

// moveScript moves the URLs of a partition's schedule due by now into its
// stream (refresh entries: depth 0, the referrer field RefreshMark, the
// due time and the record; the record leaves the hash, which holds the
// records of the URLs in the sorted set only), if this node still holds the partition's
// lease under its token; it counts them queued. It returns the number
// moved (-1: the lease is not this node's) and the next due time left
// (Unix ms; -1: none).
// KEYS: due, rec, stream, added, lease, fence. ARGV: node, token, now ms,
// limit, mark.
var moveScript = redis.NewScript(`
if redis.call('GET', KEYS[5]) ~= ARGV[1] or redis.call('GET', KEYS[6]) ~= ARGV[2] then return {-1, -1} end
local due = redis.call('ZRANGE', KEYS[1], '-inf', ARGV[3], 'BYSCORE', 'LIMIT', 0, tonumber(ARGV[4]), 'WITHSCORES')
local n = 0
for i = 1, #due, 2 do
  local u, at = due[i], due[i+1]
  local rec = redis.call('HGET', KEYS[2], u) or ''
  redis.call('XADD', KEYS[3], '*', 'u', u, 'd', 0, 'r', ARGV[5] .. at .. '\0' .. rec)
  redis.call('ZREM', KEYS[1], u)
  redis.call('HDEL', KEYS[2], u)
  n = n + 1
end
if n > 0 then redis.call('INCRBY', KEYS[4], n) end
local nxt = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
if #nxt == 0 then return {n, -1} end
return {n, tonumber(nxt[2])}`)

// QueueDue queues, in each partition this node holds (and is not giving
// up), up to limit URLs of its schedule due by now: one pipeline of one
// script per partition. It returns how many it queued and the earliest
// due time left in those partitions (zero: none).
func (n *Node) QueueDue(ctx context.Context, now time.Time, limit int) (int, time.Time, error) {
	n.mu.Lock()
	type held struct {
		p     int
		token int64
	}
	var parts []held
	for p := range n.held {
		if !n.draining[p] {
			parts = append(parts, held{p, n.fence[p]})
		}
	}
	n.mu.Unlock()
	if len(parts) == 0 {
		return 0, time.Time{}, nil
	}
	slices.SortFunc(parts, func(a, b held) int { return a.p - b.p })
	keys := func(p int) []string {
		return []string{n.key(p, "due"), n.key(p, "rec"), n.key(p, "q"), n.key(p, "added"), n.key(p, "lease"), n.key(p, "fence")}
	}
	args := func(h held) []any {
		return []any{n.name, strconv.FormatInt(h.token, 10), now.UnixMilli(), limit, RefreshMark}
	}
	pipe := n.rdb.Pipeline()
	cmds := make([]*redis.Cmd, len(parts))
	for i, h := range parts {
		cmds[i] = moveScript.EvalSha(ctx, pipe, keys(h.p), args(h)...)
	}
	if _, err := pipe.Exec(ctx); err != nil && !redis.HasErrorPrefix(err, "NOSCRIPT") {
		return 0, time.Time{}, fmt.Errorf("cluster: queue due refreshes: %w", err)
	}
	moved := 0
	var next time.Time
	for i, h := range parts {
		v, err := cmds[i].Int64Slice()
		if redis.HasErrorPrefix(err, "NOSCRIPT") {
			v, err = moveScript.Run(ctx, n.rdb, keys(h.p), args(h)...).Int64Slice()
		}
		if err != nil {
			return moved, next, fmt.Errorf("cluster: queue due refreshes of partition %d: %w", h.p, err)
		}
		if len(v) != 2 {
			return moved, next, errors.New("cluster: queue due refreshes: unexpected reply")
		}
		if v[0] > 0 {
			moved += int(v[0])
		}
		if v[1] >= 0 {
			if at := time.UnixMilli(v[1]); next.IsZero() || at.Before(next) {
				next = at
			}
		}
	}
	return moved, next, nil
}

// addAbsentScript puts URLs on a partition's schedule that are not on it
// (ZADD and HSET), and returns how many it added. KEYS: due, rec. ARGV:
// URL, due ms, record, … .
var addAbsentScript = redis.NewScript(`
local n = 0
for i = 1, #ARGV, 3 do
  if not redis.call('ZSCORE', KEYS[1], ARGV[i]) then
    redis.call('ZADD', KEYS[1], ARGV[i+1], ARGV[i])
    redis.call('HSET', KEYS[2], ARGV[i], ARGV[i+2])
    n = n + 1
  end
end
return n`)

// ScheduleAbsent puts items on their partitions' schedules unless they
// are on them already (a URL another node scheduled since keeps its due
// time and record): a node that starts a continuous crawl on a store of
// an earlier run offers what its store says. A URL queued at that moment
// (its record in its entry) is scheduled too, and fetched once more.
// One pipeline per 1,000 URLs; it returns how many it added.
func (n *Node) ScheduleAbsent(ctx context.Context, items []Scheduled) (int, error) {
	added := 0
	for len(items) > 0 {
		batch := items[:min(len(items), 1000)]
		items = items[len(batch):]
		byPart := map[int][]any{}
		for _, it := range batch {
			h, err := urlHost(it.URL)
			if err != nil {
				return added, fmt.Errorf("cluster: schedule %q: %w", it.URL, err)
			}
			p := n.Partition(h)
			byPart[p] = append(byPart[p], it.URL, it.Due.UnixMilli(), it.Record)
		}
		pipe := n.rdb.Pipeline()
		cmds := map[int]*redis.Cmd{}
		for p, args := range byPart {
			cmds[p] = addAbsentScript.EvalSha(ctx, pipe, []string{n.key(p, "due"), n.key(p, "rec")}, args...)
		}
		if _, err := pipe.Exec(ctx); err != nil && !redis.HasErrorPrefix(err, "NOSCRIPT") {
			return added, fmt.Errorf("cluster: restore refresh schedule: %w", err)
		}
		for p, cmd := range cmds {
			k, err := cmd.Int()
			if redis.HasErrorPrefix(err, "NOSCRIPT") {
				k, err = addAbsentScript.Run(ctx, n.rdb, []string{n.key(p, "due"), n.key(p, "rec")}, byPart[p]...).Int()
			}
			if err != nil {
				return added, fmt.Errorf("cluster: restore refresh schedule of partition %d: %w", p, err)
			}
			added += k
		}
	}
	return added, nil
}

// ScheduleRecords returns the schedule's record of each of urls ("" for
// a URL not on the schedule, or queued: its record rides in its entry):
// one pipeline, one HMGET per partition.
func (n *Node) ScheduleRecords(ctx context.Context, urls []string) ([]string, error) {
	byPart := map[int][]int{}
	for i, u := range urls {
		h, err := urlHost(u)
		if err != nil {
			return nil, fmt.Errorf("cluster: schedule record of %q: %w", u, err)
		}
		p := n.Partition(h)
		byPart[p] = append(byPart[p], i)
	}
	pipe := n.rdb.Pipeline()
	cmds := map[int]*redis.SliceCmd{}
	for p, idx := range byPart {
		fields := make([]string, len(idx))
		for k, i := range idx {
			fields[k] = urls[i]
		}
		cmds[p] = pipe.HMGet(ctx, n.key(p, "rec"), fields...)
	}
	if _, err := pipe.Exec(ctx); err != nil {
		return nil, fmt.Errorf("cluster: read schedule records: %w", err)
	}
	out := make([]string, len(urls))
	for p, idx := range byPart {
		for k, v := range cmds[p].Val() {
			if s, ok := v.(string); ok {
				out[idx[k]] = s
			}
		}
	}
	return out, nil
}

// scheduleCounts returns, summed over all partitions, the URLs on the
// refresh schedule and those of them due by now (not yet queued): one
// pipeline.
func scheduleCounts(ctx context.Context, rdb redis.UniversalClient, n *Node, now time.Time) (scheduled, due int64, err error) {
	pipe := rdb.Pipeline()
	cards := make([]*redis.IntCmd, n.o.Partitions)
	dues := make([]*redis.IntCmd, n.o.Partitions)
	for p := range n.o.Partitions {
		cards[p] = pipe.ZCard(ctx, n.key(p, "due"))
		dues[p] = pipe.ZCount(ctx, n.key(p, "due"), "-inf", strconv.FormatInt(now.UnixMilli(), 10))
	}
	if _, err := pipe.Exec(ctx); err != nil {
		return 0, 0, fmt.Errorf("cluster: read refresh schedule: %w", err)
	}
	for p := range n.o.Partitions {
		scheduled += cards[p].Val()
		due += dues[p].Val()
	}
	return scheduled, due, nil
}
