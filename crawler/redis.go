package crawler

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/bloomcrawl/bloomcrawl/cluster"
	"github.com/bloomcrawl/bloomcrawl/contentdedup"
	"github.com/bloomcrawl/bloomcrawl/frontier"
	"github.com/bloomcrawl/bloomcrawl/internal/dedupstore"
	"github.com/bloomcrawl/bloomcrawl/storage"
)

// clusterState is the part of *cluster.Node the crawler needs in cluster
// mode (Options.Cluster).
type clusterState interface {
	Admit(ctx context.Context, items []cluster.Item) (int, error)
	AdmitAsync(items []cluster.Item) *cluster.Pending
	Take(ctx context.Context, limit int) ([]cluster.Task, error)
	AckAfter(dep *cluster.Pending, t cluster.Task, sent func())
	Ack(ctx context.Context, t cluster.Task) error
	Release(t cluster.Task)
	Finished(ctx context.Context) (bool, error)
	Held() []int
	// FalsePositives is 0: the cluster's seen-state is exact (reported
	// with dedup.verify as on one node).
	FalsePositives() uint64
	State() cluster.LeaseState
	Report(func() cluster.Counters)
	TakeBudget(ctx context.Context, tasks []cluster.Task, maxTotal, maxPerHost int) ([]bool, error)
	Partition(host string) int
	SetReleaseGate(gate func(partition int) time.Time)
	Confirm(ctx context.Context, t cluster.Task) (bool, error)
	Claim(ctx context.Context, url string) (bool, error)
	docLog
}

// The Redis backend: in cluster mode the cluster (Redis) is the queue and
// the URL filter: the URLs a page links to go to Cluster.Admit instead of
// the local queue, and a feeder takes entries of the partitions this node
// holds a lease on and passes them through the local frontier, which keeps
// doing per-host politeness. Every entry handed out was admitted once
// cluster-wide, so the local frontier admits whatever it is given
// (admitAll). The document decisions go through the cluster's document
// log (clusterDedup).

// clusterWorkers is a cluster node's workers per fetch slot
// (politeness.concurrency): the others decide, store and wait for the
// document log while concurrency fetches are in flight (a page waits a
// group-commit round, 2-20 ms, for its verdict; on the 2-core bench
// machine one node made 3,173 pages/s with 4 workers a slot, 4,086 with 8,
// 4,285 with 12, while the plain crawl made about 5,000).
const clusterWorkers = 8

// clusterRoom is the feeder's room per fetch slot: it takes entries when
// fewer than clusterRoom/2 × concurrency of those it took are not yet
// acknowledged (what a node killed -9 leaves to fetch again). An entry
// counts until its ack is sent, which waits for a group-commit round
// (≤ 20 ms) after the page is stored, so the room bounds pages/s at about
// room ÷ (fetch + verdict + ack wait): on the 2-core bench machine one node
// made 0.64× the plain crawl's pages/s with 8 and 0.82× with 16; 24 made
// 1.06× the pages/s of 16 (alternated pairs, docs/cluster.md).
const clusterRoom = 24

// admitAll is the local frontier's URL filter in cluster mode.
type admitAll struct{}

func (admitAll) TestAndAdd(string) bool { return false }

// redisQueue is the urlQueue of a cluster node: the partition streams of
// the partitions it holds a lease on, fed into the local frontier.
type redisQueue struct {
	node        clusterState
	front       *frontier.Frontier
	store       pageStore
	log         *slog.Logger
	concurrency int // politeness.concurrency
	maxDepth    int // scope.max_depth (negative: none)
	// scope.max_pages and scope.max_pages_per_host, counted cluster-wide
	// (withinLimits; 0: none)
	maxPages, maxPagesHost int
	release                func()
	continuous             bool             // recrawl.continuous: never finished
	sched                  *clusterSchedule // its refresh schedule (redisrefresh.go; nil: none)

	// the task of each entry fed from the cluster, by seq, and how many
	// are not yet finished
	tasks     sync.Map
	taskCount atomic.Int64
	wake      chan struct{} // a task finished: the feeder may have room
}

// newRedisQueue holds front open (Frontier.Hold) until run sees the
// cluster finished.
func newRedisQueue(node clusterState, front *frontier.Frontier, store pageStore, log *slog.Logger, concurrency, maxDepth int) *redisQueue {
	return &redisQueue{node: node, front: front, store: store, log: log, concurrency: concurrency, maxDepth: maxDepth, release: front.Hold(),
		wake: make(chan struct{}, 1)}
}

func (q *redisQueue) next(ctx context.Context) (frontier.Entry, error) { return q.front.Next(ctx) }

// hop: the frontier keeps this node's per-host politeness.
func (q *redisQueue) hop(ctx context.Context, e frontier.Entry, host string) error {
	return q.front.Hop(ctx, e, host)
}

// fetched releases e's host in the frontier once its fetch is over: a
// page then waits for its document-log verdict without holding one of its
// host's per_host_parallelism slots.
func (q *redisQueue) fetched(e frontier.Entry) { q.front.Fetched(e) }

func (q *redisQueue) report(s *Stats) {
	ls := q.node.State()
	s.ClusterPartitions, s.ClusterLease = ls.Held, &ls
}

// enqueue admits cands to the cluster (every node offers the seeds; they
// are queued once). None is queued on this node directly.
func (q *redisQueue) enqueue(ctx context.Context, cands []frontier.Candidate) (int, error) {
	items := make([]cluster.Item, 0, len(cands))
	for _, c := range cands {
		items = append(items, cluster.Item{URL: c.URL, Depth: c.Depth, Referrer: clusterReferrer(c)})
	}
	_, err := q.node.Admit(ctx, items)
	return 0, err
}

// run moves entries from the cluster into the local frontier, at most
// clusterRoom × concurrency not yet done at a time (taken when at
// least half of that is free, so that a read brings several), until the
// cluster is finished
// (then it releases the frontier's hold, and the workers end when the
// local queue is empty) or ctx ends. When the cluster has nothing for this
// node it polls again after a wait that doubles from 20 ms to 320 ms, and
// asks whether the cluster is finished at most every 320 ms: an idle node
// costs Redis a few round trips a second.
func (q *redisQueue) run(ctx context.Context) error {
	defer q.release()
	limit := clusterRoom * q.concurrency
	const minIdle, maxIdle = 20 * time.Millisecond, 320 * time.Millisecond
	idle := minIdle
	var askedDone time.Time
	for ctx.Err() == nil {
		out := int(q.taskCount.Load())
		if room := limit - out; room >= (limit+1)/2 {
			tasks, err := q.node.Take(ctx, room)
			if err != nil {
				if ctx.Err() != nil {
					return nil
				}
				return fmt.Errorf("crawler: %w", err)
			}
			if len(tasks) > 0 {
				if err := q.feed(ctx, tasks); err != nil {
					return err
				}
				idle = minIdle
				continue
			}
			if out == 0 && !q.continuous && time.Since(askedDone) >= maxIdle {
				askedDone = time.Now()
				done, err := q.node.Finished(ctx)
				if err != nil {
					if ctx.Err() != nil {
						return nil
					}
					return fmt.Errorf("crawler: %w", err)
				}
				if done {
					return nil
				}
			}
		} else {
			idle = minIdle // busy: look again when half is done (wake)
		}
		t := time.NewTimer(idle)
		select {
		case <-ctx.Done():
		case <-t.C:
			if q.taskCount.Load() == 0 {
				// idle here: back off; while pages are in flight their
				// links arrive soon (the group commit sends them
				// within 20 ms)
				idle = min(2*idle, maxIdle)
			}
		case <-q.wake:
		}
		t.Stop()
	}
	return nil
}

// feed reserves and publishes tasks in the local frontier, remembering
// each entry's task for the ack.
func (q *redisQueue) feed(ctx context.Context, tasks []cluster.Task) error {
	tasks, err := q.withinLimits(ctx, tasks)
	if err != nil {
		return err
	}
	cands := make([]frontier.Candidate, len(tasks))
	for i, t := range tasks {
		ref, hints := queueHints(t.Referrer)
		cands[i] = frontier.Candidate{URL: t.URL, Depth: t.Depth, Referrer: ref, Hints: hints}
	}
	fresh, _, err := q.front.Reserve(context.WithoutCancel(ctx), cands)
	if err != nil {
		for _, t := range tasks {
			q.node.Release(t)
		}
		return fmt.Errorf("crawler: %w", err)
	}
	j := 0
	for _, t := range tasks {
		if j < len(fresh) && fresh[j].URL == t.URL {
			q.tasks.Store(fresh[j].Seq, t)
			q.taskCount.Add(1)
			j++
			continue
		}
		q.node.Release(t) // dropped (too deep): pending, redelivered after the lease TTL
	}
	q.front.Publish(fresh)
	return nil
}

// finish forgets e's task: acked by commit, or left pending in the
// cluster (a failed or abandoned fetch).
// wait does nothing: finish releases e's task to the cluster, which hands
// it out again (after the partition's owner has read robots.txt).
func (q *redisQueue) wait(frontier.Entry, time.Time) {}

func (q *redisQueue) finish(e frontier.Entry) {
	q.front.Done(e)
	if v, ok := q.tasks.LoadAndDelete(e.Seq); ok {
		q.node.Release(v.(cluster.Task))
		q.done()
	}
}

// done counts a task finished and wakes the feeder when half the room
// is free.
func (q *redisQueue) done() {
	if int(q.taskCount.Add(-1)) <= clusterRoom/2*q.concurrency {
		select {
		case q.wake <- struct{}{}:
		default:
		}
	}
}

// commit: the page's links go to the cluster's group commit (tested
// against the cluster-wide seen-state and queued in one step), the page
// is committed locally, and its entry's ack is queued to follow the
// links' admission (AckAfter): the worker waits for neither. A crash
// before the ack leaves the entry pending: the page is fetched again and
// its links found seen.
func (q *redisQueue) commit(ctx context.Context, e frontier.Entry, cm storage.Commit, links []frontier.Candidate) (int64, error) {
	var items []cluster.Item
	for _, l := range links {
		if q.maxDepth >= 0 && l.Depth > q.maxDepth {
			continue
		}
		items = append(items, cluster.Item{URL: l.URL, Depth: l.Depth, Referrer: clusterReferrer(l)})
		cm.Trace = append(cm.Trace, l.URL)
	}
	admitted := q.node.AdmitAsync(items)
	if own, err := q.confirmed(ctx, e); !own {
		return 0, err
	}
	if err := commitPage(ctx, q.store, q.log, cm); err != nil {
		return 0, fmt.Errorf("crawler: store %s: %w", e.URL, err)
	}
	if v, ok := q.tasks.LoadAndDelete(e.Seq); ok {
		// the task counts against the feeder's room until its ack is
		// sent: what a node killed -9 leaves to fetch again is bounded
		// by that room
		t := v.(cluster.Task)
		q.node.AckAfter(q.rescheduled(admitted, e, t, cm), t, q.done)
	}
	return 0, nil
}

// redisFilter is the URL filter of a cluster node: the cluster's exact
// seen-state, tested by Admit (the local frontier admits all: admitAll);
// with dedup.verify its false positives (none) are reported as on one
// node.
type redisFilter struct {
	front  *frontier.Frontier
	verify bool
	node   clusterState
	fpBase atomic.Uint64
}

// claim admits a redirect alias cluster-wide (cluster.Node.Claim: marked
// seen, not queued), so that no node fetches it again.
func (s *redisFilter) claim(ctx context.Context, url string) (bool, error) {
	if fresh, err := s.front.Claim(ctx, url); err != nil || !fresh {
		return fresh, err
	}
	fresh, err := s.node.Claim(ctx, url)
	if err != nil || !fresh {
		s.front.Release([]string{url})
	}
	return fresh, err
}
func (s *redisFilter) release(urls []string) { s.front.Release(urls) }
func (s *redisFilter) restored(url string)   { s.front.Restore(url) }

func (s *redisFilter) start() {
	if s.verify {
		s.fpBase.Store(s.node.FalsePositives())
	}
}

func (s *redisFilter) report(st *Stats) {
	if s.verify {
		fs := s.front.Stats()
		st.FilterStoreReads, st.FilterStoreKeys, st.FilterMemoryHits = fs.ConfirmReads, fs.ConfirmKeys, fs.RecentHits
		fp := s.node.FalsePositives() - s.fpBase.Load()
		st.FalsePositives = &fp
	}
}

// redisDocs are the document decisions of a cluster node: through the
// cluster's document log (clusterDedup), never rebuilt from this store.
type redisDocs struct {
	cd     *clusterDedup
	dd     deduper
	store  pageStore
	params string // the rules every node must share (CheckDocParams)
	log    *slog.Logger
}

func (d *redisDocs) index() dedupstore.Index { return noIndex{} }

// report: the document log's malformed entries skipped.
func (d *redisDocs) report(s *Stats) { d.cd.report(s) }

// alias: the document log maps the aliases (judge passes them).
func (d *redisDocs) alias(string, uint64) {}

func (d *redisDocs) start(ctx context.Context) error {
	n, err := d.cd.start(ctx, d.params)
	if err != nil {
		return fmt.Errorf("crawler: %w", err)
	}
	d.log.Info("cluster document log replayed", "entries", n)
	return nil
}

// judge signs the page here and decides it through the document log
// (clusterDedup.check). A duplicate of a document another node stored
// names that node in rec. A page whose verdict is its own URL's document
// (the URL step matched the document's first URL: the node that first
// judged it died before acknowledging it, and the page was fetched
// again) is stored here as that document, unless this store already has
// it.
func (d *redisDocs) judge(ctx context.Context, e frontier.Entry, j *job, rec *storage.URLRecord, doc *Document) (contentdedup.Verdict, error) {
	sig, sim := d.dd.Prepare(doc.Title, doc.Text)
	var aliases []string
	for _, u := range j.chain {
		if a := u.String(); a != e.URL {
			aliases = append(aliases, a)
		}
	}
	v, node, err := d.cd.check(context.WithoutCancel(ctx), e.URL, rec.Hints.Canonical, sig, sim, aliases)
	if err != nil {
		return v, fmt.Errorf("crawler: content dedup of %s: %w", e.URL, err)
	}
	if v.Duplicate && v.Reason == contentdedup.ReasonURL && v.MatchURL == e.URL {
		if _, err := d.store.Page(storage.DocID(v.DocID)); errors.Is(err, storage.ErrNotFound) {
			v.Duplicate, v.Reason, v.MatchURL, v.Similar = false, contentdedup.ReasonNew, "", sim
			return v, nil
		} else if err != nil {
			return v, fmt.Errorf("crawler: content dedup of %s: %w", e.URL, err)
		}
	}
	if v.Duplicate && node != d.cd.node {
		rec.Node = node
	}
	return v, nil
}

// docParams are the content-dedup rules every node of a cluster must
// share (cluster.Node.CheckDocParams): dd's content distance
// (dedup.simhash_threshold).
func docParams(dd deduper) string {
	return fmt.Sprintf("simhash_threshold=%d", dd.Threshold())
}
