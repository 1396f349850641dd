package cluster

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"
)

// The journal: what a node wrote to Redis on the per-page path that Redis
// may not have on disk yet. With appendfsync everysec, Redis answers a
// write before its append-only file is synced: a crash of its machine
// loses up to its last second or two of writes, though every node was
// told they were done. Each node keeps what it wrote in the last
// journalKeep — admissions (URL, depth, referrer, by partition),
// acknowledgements (the entry and its URL), document-log entries (its
// own appends and every entry it read, with their stream IDs), redirect
// aliases marked seen (Claim), refresh schedule writes — and when it finds Redis restarted (its run_id
// changed: checked on every new connection, before the connection is
// used, and in the lease round) it offers them again, with idempotent
// scripts, before it sends Redis anything else:
//
//   - leases: each held partition's acquisition is restored (fence counter
//     raised to the node's token, holder, lease key) unless a later
//     acquisition is in Redis; then the node drops the partition. Every
//     lease must then be renewed before a page is stored under it.
//   - acknowledgements first: an entry still in the stream is acknowledged
//     and deleted (unless another node's consumer holds it); an entry
//     Redis lost has its URL marked seen (counted queued and done), so
//     that the re-offered admissions do not queue it again.
//   - admissions: the admit script again; only URLs the seen-state no
//     longer has are queued.
//   - document log: in ID order, an entry neither in the stream nor
//     trimmed from it is added again under its own ID when that fits the
//     stream's order (the lost entries are all after what Redis kept);
//     the others are appended anew after them (DocEntry.Was keeps the
//     first ID); applying an entry twice is harmless (its URL maps to its
//     document: same docId, no new document).
//   - refresh schedule: ZADD GT (a lost due time comes back, a later one
//     is kept), the record with it.
//
// Then the node waits restartHold before it sends anything else, so that
// the other nodes, reconnecting, put their document-log entries back in
// place before anyone appends new ones; and the URLs it committed in the
// journal's span are remembered: an entry of one of them handed out
// again (another node's admission re-offered after this node's
// acknowledgement was lost) is acknowledged without a fetch.
//
// A record is dropped once a group-commit round that started
// journalKeep after the record's round returned has succeeded on the
// same Redis process: Redis answered all along, so its append-only file
// had the record synced. Kept in memory, at most journalMaxBytes; beyond
// that the oldest records are dropped (counted in the recovery's log
// line): a crash then may lose them.

// journalKeep is how long a record is kept after its round returned:
// with appendfsync everysec Redis syncs its file every second, and when
// a sync is slow it postpones writes up to 2 s (Redis's "fsync is taking
// too long" case), so 2 s after a write answered it is on disk (unless
// the disk stalls longer than that: Redis then counts aof_delayed_fsync
// and writes without waiting); 3 s leaves a margin for scheduling.
const journalKeep = 3 * time.Second

// journalMaxBytes bounds the journal's memory (strings and record
// overhead, estimated). About 700 bytes a page were measured
// (docs/cluster.md): a node storing 5,000 pages/s holds about 10 MB;
// 64 MiB leaves room for larger pages, more nodes' document-log entries
// read, and an outage (nothing is dropped while Redis is unreachable).
const journalMaxBytes = 64 << 20

// restartHold is how long a node waits after re-offering its journal
// before it sends Redis anything else: the other nodes reconnect within
// about a second (the client retries with a backoff of at most 1 s).
const restartHold = time.Second

type jkind uint8

const (
	jAdmit jkind = iota // byPart: admitArgs tuples
	jAck                // tasks
	jDoc                // id, node, d: a log entry
	jSched              // byPart: URL, due ms, record
)

// jrec is one journal record.
type jrec struct {
	at     time.Time // when its round returned (zero: not yet)
	kind   jkind
	byPart []map[int][]any
	tasks  []Task
	id     string
	node   string
	d      string
	was    string // the ID a log entry was first logged under ("": its own)
	size   int
}

// journal is the node's journal and its restart detection.
type journal struct {
	on bool // a single Redis server (a Redis Cluster is not journaled)

	mu      sync.Mutex
	recs    []*jrec // oldest first
	bytes   int
	peak    int // the most bytes held
	peakN   int // records held then
	dropped int64
	// URLs (fingerprints) this node committed in the span of a journal it
	// re-offered, or committed from an entry in flight then
	done map[uint64]bool
	// entries in flight at the last recovery
	wasInflight map[entry]bool
	hasDone     atomic.Bool

	rec        sync.Mutex // serializes restart checks and recoveries
	runID      string     // the Redis process this node writes to
	recoveries atomic.Int64
}

// add appends records (their round not yet returned) and returns them.
func (j *journal) add(recs ...*jrec) []*jrec {
	if !j.on || len(recs) == 0 {
		return nil
	}
	j.mu.Lock()
	for _, r := range recs {
		j.bytes += r.size
		j.recs = append(j.recs, r)
	}
	if j.bytes > j.peak {
		j.peak, j.peakN = j.bytes, len(j.recs)
	}
	for j.bytes > journalMaxBytes && len(j.recs) > 1 {
		j.bytes -= j.recs[0].size
		j.recs[0] = nil
		j.recs = j.recs[1:]
		j.dropped++
	}
	j.mu.Unlock()
	return recs
}

// stamp records that the rounds of recs returned at t.
func (j *journal) stamp(recs []*jrec, t time.Time) {
	if len(recs) == 0 {
		return
	}
	j.mu.Lock()
	for _, r := range recs {
		r.at = t
	}
	j.mu.Unlock()
}

// prune drops the records whose round returned before cutoff (a round
// started journalKeep after them succeeded).
func (j *journal) prune(cutoff time.Time) {
	if !j.on {
		return
	}
	j.mu.Lock()
	i := 0
	for i < len(j.recs) && !j.recs[i].at.IsZero() && j.recs[i].at.Before(cutoff) {
		j.bytes -= j.recs[i].size
		j.recs[i] = nil
		i++
	}
	j.recs = j.recs[i:]
	if cap(j.recs) > 1024 && len(j.recs) < cap(j.recs)/4 {
		j.recs = slices.Clone(j.recs)
	}
	j.mu.Unlock()
}

// admitRec is the record of a round's admissions.
func admitRec(admits []*admitReq) *jrec {
	r := &jrec{kind: jAdmit}
	for _, a := range admits {
		r.byPart = append(r.byPart, a.byPart)
		for _, args := range a.byPart {
			for i := 0; i+4 < len(args); i += 5 {
				u, _ := args[i+2].(string)
				ref, _ := args[i+4].(string)
				r.size += len(u) + len(ref) + 64
			}
		}
	}
	return r
}

// ackRec is the record of a round's acknowledgements.
func ackRec(acks []ackReq) *jrec {
	r := &jrec{kind: jAck, tasks: make([]Task, len(acks))}
	for i, a := range acks {
		r.tasks[i] = a.t
		r.size += len(a.t.URL) + len(a.t.ID) + len(a.t.Referrer) + 80
	}
	return r
}

// docRecs are the records of document-log entries read.
func docRecs(msgs []redis.XMessage) []*jrec {
	out := make([]*jrec, 0, len(msgs))
	for _, m := range msgs {
		node, _ := m.Values["n"].(string)
		d, _ := m.Values["d"].(string)
		was, _ := m.Values["o"].(string)
		out = append(out, &jrec{kind: jDoc, id: m.ID, node: node, d: d, was: was, size: len(m.ID) + len(node) + len(was) + len(d) + 96})
	}
	return out
}

// journalDocs records log entries read from Redis (they exist there now).
func (n *Node) journalDocs(msgs []redis.XMessage) {
	if !n.jr.on || len(msgs) == 0 {
		return
	}
	// an entry logged over a minute ago (a node catching up) is on disk
	// whatever the clocks' skew
	old := uint64(time.Now().Add(-time.Minute).UnixMilli())
	recent := msgs[:0:0]
	for _, m := range msgs {
		if ms, _ := splitID(m.ID); ms >= old {
			recent = append(recent, m)
		}
	}
	n.jr.stamp(n.jr.add(docRecs(recent)...), time.Now())
}

// journalSched records a schedule round written.
func (n *Node) journalSched(reqs []*schedReq) {
	if !n.jr.on {
		return
	}
	r := &jrec{kind: jSched}
	for _, q := range reqs {
		r.byPart = append(r.byPart, q.byPart)
		for _, a := range q.byPart {
			for i := 0; i+2 < len(a); i += 3 {
				u, _ := a[i].(string)
				rec, _ := a[i+2].(string)
				r.size += len(u) + len(rec) + 64
			}
		}
	}
	n.jr.stamp(n.jr.add(r), time.Now())
}

// ackCommitted notes that t's page is committed here: when t was in
// flight at a recovery, its URL is remembered as done (its entry may have
// been lost and its URL queued again).
func (n *Node) ackCommitted(t Task) {
	j := &n.jr
	if !j.hasDone.Load() {
		return
	}
	j.mu.Lock()
	if j.wasInflight[entry{t.Partition, t.ID}] {
		delete(j.wasInflight, entry{t.Partition, t.ID})
		fp, _ := urlKeys(t.URL)
		j.done[fp] = true
	}
	j.mu.Unlock()
}

// committed reports whether this node committed u's page in the span of
// a journal it re-offered (a refresh entry is never: it is due again).
func (j *journal) committed(it Item) bool {
	if !j.hasDone.Load() || strings.HasPrefix(it.Referrer, RefreshMark) {
		return false
	}
	fp, _ := urlKeys(it.URL)
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.done[fp]
}

// onConnect checks every new connection's Redis process before the
// connection is used: a different run_id than the one this node wrote
// to means Redis restarted, and the journal is re-offered on this
// connection first.
func (n *Node) onConnect(ctx context.Context, cn *redis.Conn) error {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), n.o.RedisWait+n.o.LeaseTTL)
	defer cancel()
	j := &n.jr
	j.rec.Lock()
	defer j.rec.Unlock()
	id, err := runID(ctx, cn)
	if err != nil {
		return fmt.Errorf("cluster: INFO server: %w", err)
	}
	if j.runID == "" || id == j.runID {
		j.runID = id
		return nil
	}
	if err := n.recoverJournal(ctx, cn); err != nil {
		n.log.Warn("cluster: re-offering the journal to the restarted Redis failed; trying again on the next connection", "err", err)
		return err
	}
	j.runID = id
	time.Sleep(restartHold)
	return nil
}

// checkRestart is the lease round's check: a Redis that restarted while
// no connection of this node failed (a proxy kept them) is found by its
// run_id; a new connection then re-offers the journal (onConnect).
func (n *Node) checkRestart(ctx context.Context) error {
	c, ok := n.rdb.(*redis.Client)
	if !ok || !n.jr.on {
		return nil
	}
	id, err := runID(ctx, c)
	if err != nil {
		return fmt.Errorf("cluster: INFO server: %w", err)
	}
	n.jr.rec.Lock()
	same := id == n.jr.runID
	n.jr.rec.Unlock()
	if same {
		return nil
	}
	cn := c.Conn() // a new connection: onConnect recovers
	defer cn.Close()
	return cn.Ping(ctx).Err()
}

func runID(ctx context.Context, c interface {
	Info(context.Context, ...string) *redis.StringCmd
}) (string, error) {
	info, err := c.Info(ctx, "server").Result()
	if err != nil {
		return "", err
	}
	for _, l := range strings.Split(info, "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(l), "run_id:"); ok {
			return v, nil
		}
	}
	return "", fmt.Errorf("no run_id in INFO server")
}

// restoreLeaseScript puts back this node's acquisition of a lease (fence
// counter, holder, lease key) unless a later acquisition is in Redis: a
// counter above the token, or at it with another holder. Returns 1 when
// the lease is this node's again, 0 when it is lost.
// KEYS: lease, fence, holder. ARGV: node, TTL ms, token.
var restoreLeaseScript = redis.NewScript(`
local f, t = tonumber(redis.call('GET', KEYS[2]) or '0'), tonumber(ARGV[3])
if f > t then return 0 end
if f == t and redis.call('GET', KEYS[3]) ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[2], ARGV[3])
redis.call('SET', KEYS[3], ARGV[1])
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return 1`)

// redoAckScript acknowledges again entries this node acknowledged: one
// still in the stream is acknowledged and deleted and counted done
// (unless another consumer holds it: that node's to finish); one Redis
// lost has its URL's fingerprint added to the seen-state if missing, and
// counted queued and done (it was both), so no re-offered admission
// queues it again. Returns {acknowledged, marked seen, left to another}.
// KEYS: stream, acked, added. ARGV: group, consumer, bucket prefix, b0,
// fill, then per entry: ID, fingerprint, bucket hash.
var redoAckScript = redis.NewScript(`
local group, consumer, prefix, b0, fill = ARGV[1], ARGV[2], ARGV[3], tonumber(ARGV[4]), tonumber(ARGV[5])
local added = tonumber(redis.call('GET', KEYS[3]) or '0')
` + seenLua + `
local acked, marked, left = 0, 0, 0
for i = 6, #ARGV, 3 do
  local id, fp, bh = ARGV[i], ARGV[i+1], tonumber(ARGV[i+2])
  if #redis.call('XRANGE', KEYS[1], id, id) > 0 then
    local p = redis.call('XPENDING', KEYS[1], group, id, id, 1)
    if #p > 0 and p[1][2] ~= consumer then
      left = left + 1
    else
      if #p > 0 then redis.call('XACK', KEYS[1], group, id) end
      redis.call('XDEL', KEYS[1], id)
      redis.call('INCR', KEYS[2])
      acked = acked + 1
    end
  elseif not seen(fp, bh, cur) and addSeen(fp, bh) then
    redis.call('INCR', KEYS[3])
    redis.call('INCR', KEYS[2])
    marked = marked + 1
  end
end
return {acked, marked, left}`)

// restoreDocsScript adds back document-log entries (ARGV[1]: the pass;
// then per entry ID, node, packed documents, the ID it was first logged
// under or ""; in ID order) that are neither in the stream, nor trimmed
// from it (ID at most KEYS[2]'s: every live node saved those in its
// copy), nor appended anew already (KEYS[3]: lost ID → new ID, kept
// restoreWasTTL). Pass "place" adds them under their own ID where that
// still fits the stream's order (the lost entries all come after what
// Redis kept); pass "late", run after the "place" pass of every entry,
// appends the rest anew (field o: the ID the entry was first logged
// under) and notes them in KEYS[3], so that the other nodes, re-offering
// the same entries from their journals, do not append them again.
// Returns the number added. KEYS: log, the last entry trimmed, the IDs
// appended anew.
var restoreDocsScript = redis.NewScript(luaCmpID + `
local trimmed = redis.call('GET', KEYS[2])
local n = 0
for i = 2, #ARGV, 4 do
  local id, was = ARGV[i], ARGV[i+3]
  if not (trimmed and cmp(id, trimmed) <= 0) and redis.call('HEXISTS', KEYS[3], id) == 0 and #redis.call('XRANGE', KEYS[1], id, id) == 0 then
    local f = {'n', ARGV[i+1], 'd', ARGV[i+2]}
    if ARGV[1] == 'place' then
      if was ~= '' then f[5], f[6] = 'o', was end
      local r = redis.pcall('XADD', KEYS[1], id, unpack(f))
      if not (type(r) == 'table' and r.err) then n = n + 1 end
    else
      f[5], f[6] = 'o', (was ~= '' and was or id)
      local nid = redis.call('XADD', KEYS[1], '*', unpack(f))
      redis.call('HSET', KEYS[3], id, nid)
      redis.call('PEXPIRE', KEYS[3], ` + restoreWasTTLms + `)
      n = n + 1
    end
  end
end
return n`)

// restoreWasTTLms is how long (ms) the IDs of entries appended anew are
// kept: longer than the nodes take to reconnect and re-offer their
// journals.
const restoreWasTTLms = "600000"

// restoreDocs re-offers document-log entries to Redis (c: the recovering
// connection): every entry's "place" pass first, in batches, then the
// "late" pass, so that one entry appended anew does not push the later
// batches' entries out of place. Returns how many went back in place and
// how many were appended anew.
func (n *Node) restoreDocs(ctx context.Context, c redis.Scripter, docs []*jrec) (inplace, appended int64, err error) {
	keys := []string{n.docKey("log"), n.docKey("trimmed"), n.docKey("was")}
	for _, pass := range []string{"place", "late"} {
		for start := 0; start < len(docs); start += 500 {
			args := []any{pass}
			for _, d := range docs[start:min(start+500, len(docs))] {
				args = append(args, d.id, d.node, d.d, d.was)
			}
			k, err := restoreDocsScript.Run(ctx, c, keys, args...).Int64()
			if err != nil {
				return inplace, appended, fmt.Errorf("restore document log entries: %w", err)
			}
			if pass == "place" {
				inplace += k
			} else {
				appended += k
			}
		}
	}
	return inplace, appended, nil
}

// restoreSchedScript writes due times back (ZADD GT: a lost one returns,
// a later one stays) and the record of each it changed. KEYS: due, rec.
// ARGV: per URL: URL, due ms, record.
var restoreSchedScript = redis.NewScript(`
local n = 0
for i = 1, #ARGV, 3 do
  if redis.call('ZADD', KEYS[1], 'GT', 'CH', ARGV[i+1], ARGV[i]) == 1 then
    redis.call('HSET', KEYS[2], ARGV[i], ARGV[i+2])
    n = n + 1
  end
end
return n`)

// recoverJournal re-offers the journal to a restarted Redis on cn (see
// the top of this file). It runs before any other command of this node
// reaches the new process.
func (n *Node) recoverJournal(ctx context.Context, cn *redis.Conn) error {
	j := &n.jr
	if got, err := cn.Get(ctx, n.epochKey()).Result(); err != nil || got != n.epoch {
		return nil // the state is gone: the epoch check stops the node
	}
	j.mu.Lock()
	recs := slices.Clone(j.recs)
	dropped := j.dropped
	j.mu.Unlock()

	// leases
	n.mu.Lock()
	held := map[int]int64{}
	for p := range n.held {
		held[p] = n.fence[p]
	}
	n.mu.Unlock()
	lost := 0
	for p, token := range held {
		ok, err := restoreLeaseScript.Eval(ctx, cn, n.leaseKeys(p), n.name, n.o.LeaseTTL.Milliseconds(), token).Int()
		if err != nil {
			return fmt.Errorf("restore lease %d: %w", p, err)
		}
		n.mu.Lock()
		if ok == 0 && n.held[p] && n.fence[p] == token {
			n.lease.LeasesLost++
			n.dropLocked(p)
			lost++
		}
		delete(n.until, p) // renewed before a page is stored under it (Confirm)
		n.mu.Unlock()
	}
	n.suspectInflight()

	// acknowledgements, then admissions, documents and schedules
	acks := map[int][]any{}
	var doneFPs []uint64
	addAck := func(t Task) {
		fp, b := urlKeys(t.URL)
		acks[t.Partition] = append(acks[t.Partition], t.ID, signedFP(fp), b)
		if !strings.HasPrefix(t.Referrer, RefreshMark) {
			doneFPs = append(doneFPs, fp)
		}
	}
	admits := map[int][]any{}
	sched := map[int][]any{}
	var docs []*jrec
	for _, r := range recs {
		switch r.kind {
		case jAck:
			for _, t := range r.tasks {
				addAck(t)
			}
		case jAdmit:
			for _, m := range r.byPart {
				for p, a := range m {
					admits[p] = append(admits[p], a...)
				}
			}
		case jSched:
			for _, m := range r.byPart {
				for p, a := range m {
					sched[p] = append(sched[p], a...)
				}
			}
		case jDoc:
			docs = append(docs, r)
		}
	}
	// pages committed whose acknowledgement is still queued: remembered
	// as done (their ack may find the entry lost)
	n.c.mu.Lock()
	for _, a := range n.c.acks {
		fp, _ := urlKeys(a.t.URL)
		if !strings.HasPrefix(a.t.Referrer, RefreshMark) {
			doneFPs = append(doneFPs, fp)
		}
	}
	n.c.mu.Unlock()

	var acked, marked, left, queued, rescheduled int64
	for _, p := range slices.Sorted(maps.Keys(acks)) {
		args := append([]any{group, n.name, n.key(p, "s"), n.b0, seenFill}, acks[p]...)
		v, err := redoAckScript.Eval(ctx, cn, []string{n.key(p, "q"), n.key(p, "acked"), n.key(p, "added")}, args...).Int64Slice()
		if err != nil {
			return fmt.Errorf("acknowledge again in partition %d: %w", p, err)
		}
		acked, marked, left = acked+v[0], marked+v[1], left+v[2]
	}
	for _, p := range slices.Sorted(maps.Keys(admits)) {
		args := append([]any{n.key(p, "s"), n.b0, seenFill}, admits[p]...)
		v, err := admitScript.Eval(ctx, cn, []string{n.key(p, "q"), n.key(p, "added")}, args...).Int64Slice()
		if err != nil {
			return fmt.Errorf("admit again to partition %d: %w", p, err)
		}
		queued += int64(len(v))
	}
	slices.SortStableFunc(docs, func(a, b *jrec) int { return cmpID(a.id, b.id) })
	docs = slices.CompactFunc(docs, func(a, b *jrec) bool { return a.id == b.id })
	inplace, appended, err := n.restoreDocs(ctx, cn, docs)
	if err != nil {
		return err
	}
	for _, p := range slices.Sorted(maps.Keys(sched)) {
		v, err := restoreSchedScript.Eval(ctx, cn, []string{n.key(p, "due"), n.key(p, "rec")}, sched[p]...).Int64()
		if err != nil {
			return fmt.Errorf("restore refresh schedule of partition %d: %w", p, err)
		}
		rescheduled += v
	}

	// what this node committed, and what it has in flight now
	now := time.Now()
	n.mu.Lock()
	inflight := make([]entry, 0, len(n.inflight))
	for e := range n.inflight {
		inflight = append(inflight, e)
	}
	n.mu.Unlock()
	j.mu.Lock()
	if j.done == nil {
		j.done, j.wasInflight = map[uint64]bool{}, map[entry]bool{}
	}
	for _, fp := range doneFPs {
		j.done[fp] = true
	}
	for _, e := range inflight {
		j.wasInflight[e] = true
	}
	for _, r := range j.recs {
		if !r.at.IsZero() {
			r.at = now // offered again now: kept journalKeep from now
		}
	}
	j.mu.Unlock()
	j.hasDone.Store(true)
	j.recoveries.Add(1)
	n.log.Warn("cluster: Redis restarted (new run_id); re-offered what it may have lost in its last seconds",
		"leases_lost", lost, "leases_held", len(held)-lost, "acks_redone", acked, "acked_urls_marked_seen", marked, "acks_left_to_another_node", left,
		"urls_queued_again", queued, "doc_entries_restored", inplace, "doc_entries_appended_again", appended,
		"refreshes_restored", rescheduled, "journal_records", len(recs), "journal_records_dropped_to_memory_bound", dropped)
	return nil
}

func signedFP(fp uint64) string { return fmt.Sprint(int64(fp)) }

// Recoveries is how many times this node re-offered its journal to a
// restarted Redis.
func (n *Node) Recoveries() int64 { return n.jr.recoveries.Load() }

// journalRound records a round's admissions and acknowledgements before
// it is sent.
func (n *Node) journalRound(admits []*admitReq, acks []ackReq) []*jrec {
	if !n.jr.on {
		return nil
	}
	var recs []*jrec
	if len(admits) > 0 {
		recs = append(recs, admitRec(admits))
	}
	if len(acks) > 0 {
		recs = append(recs, ackRec(acks))
	}
	return n.jr.add(recs...)
}

// ackUnfetched acknowledges the entries Take held back: their URLs'
// pages are committed here already (an admission re-offered after a
// restart queued them again), so they are not fetched twice.
func (n *Node) ackUnfetched() {
	n.mu.Lock()
	auto := n.auto
	n.auto = nil
	n.mu.Unlock()
	for _, t := range auto {
		n.AckAfter(nil, t, nil)
	}
	if len(auto) > 0 {
		n.log.Info("cluster: entries of pages this node stored already acknowledged without a fetch", "entries", len(auto))
	}
}

// claimID is the entry ID a claimed URL's record carries: no stream entry
// has it, so the recovery marks the URL seen (redoAckScript).
const claimID = "0-1"

// journalClaim records a URL Claim marked seen (and done): the recovery
// marks it seen again if Redis lost it.
func (n *Node) journalClaim(p int, url string) {
	if !n.jr.on {
		return
	}
	r := &jrec{kind: jAck, tasks: []Task{{Item: Item{URL: url}, Partition: p, ID: claimID}}, size: len(url) + 96}
	n.jr.stamp(n.jr.add(r), time.Now())
}

// JournalPeak is the most memory the journal held (bytes, estimated) and
// its records then.
func (n *Node) JournalPeak() (bytes, records int) {
	n.jr.mu.Lock()
	defer n.jr.mu.Unlock()
	return n.jr.peak, n.jr.peakN
}
