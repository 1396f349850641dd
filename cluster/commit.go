package cluster

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
)

// Group commit: what the node's workers send Redis on the per-page path
// (admissions of the URLs their pages link to, acknowledgements, document
// log appends) is queued here and sent by one goroutine (commitLoop) in
// one pipeline per round: one admit script per partition touched (all
// that partition's URLs, whatever pages they came from), one ack script
// per partition (variadic XACK/XDEL), one XADD for all the documents
// logged (with the log's new entries read back in the same pipeline). A
// round starts as soon as the previous one returned and something waits,
// so the batch grows with the load and a lone page waits one round trip.
//
// Guarantees: an ack is sent only in a round after the admission of its
// page's links returned (AckAfter), so the links of a page are queued
// before it counts as done; an admission or append fails as a whole and
// its callers get the error; a failed ack round stops the node (Take
// returns the error), its entries stay pending and are handed out again.

// roundEvery is the shortest time between two rounds' starts;
// lazyEvery the longest an admission or ack waits for a round (they
// ride with the documents' rounds once that old).
const (
	roundEvery = 2 * time.Millisecond
	lazyEvery  = 20 * time.Millisecond
)

// Pending is a queued admission (AdmitAsync): Wait for its outcome, or
// pass it to AckAfter.
type Pending struct {
	done  chan struct{}
	err   error
	fresh int
}

// Wait returns the number of URLs the admission queued, or its error.
func (p *Pending) Wait(ctx context.Context) (int, error) {
	select {
	case <-p.done:
		return p.fresh, p.err
	case <-ctx.Done():
		return 0, ctx.Err()
	}
}

func (p *Pending) finished() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// admitReq is one AdmitAsync call: its URLs' script arguments by
// partition.
type admitReq struct {
	byPart map[int][]any // admitArgs tuples
	fps    []uint64      // their fingerprints (forgotten locally on failure)
	p      *Pending
}

// ackReq is one entry to acknowledge once dep (if any) succeeded; p (if
// any) is closed when the ack returned.
type ackReq struct {
	t    Task
	dep  *Pending
	p    *Pending
	sent func() // called once the ack was sent (or failed)
}

// docReq is one document to append to the log; its reference is set when
// the round returned.
type docReq struct {
	e   DocEntry
	ref DocRef
	p   *Pending
}

// committer is the node's queue of work for the next round.
type committer struct {
	mu     sync.Mutex
	admits []*admitReq
	acks   []ackReq
	docs   []*docReq
	err    error // a failed ack round: the node stops
	closed bool  // the loop has ended: nothing more is sent
	// lazySince is when the oldest admission or ack waiting was queued
	// (zero: none); urgent says a caller waits on one (Admit, Ack)
	lazySince time.Time
	urgent    bool
	kick      chan struct{}
	rounds    int64 // rounds sent (pipelines)
}

func (c *committer) signal() {
	select {
	case c.kick <- struct{}{}:
	default:
	}
}

// AdmitAsync queues items for admission to the cluster-wide seen-state
// and their partitions' streams (the new ones are queued, each once
// cluster-wide) and returns at once. URLs this node has already offered
// (its local cache) are not sent again.
func (n *Node) AdmitAsync(items []Item) *Pending { return n.admit(items, false) }

func (n *Node) admit(items []Item, urgent bool) *Pending {
	p := &Pending{done: make(chan struct{})}
	req := &admitReq{byPart: map[int][]any{}, p: p}
	for _, it := range items {
		u, err := urlHost(it.URL)
		if err != nil {
			p.err = fmt.Errorf("cluster: admit %q: %w", it.URL, err)
			n.local.forget(req.fps)
			close(p.done)
			return p
		}
		fp, b := urlKeys(it.URL)
		if !n.local.add(fp, b) {
			continue
		}
		req.fps = append(req.fps, fp)
		part := n.Partition(u)
		req.byPart[part] = admitArgs(req.byPart[part], it, fp, b)
	}
	if len(req.fps) == 0 {
		close(p.done)
		return p
	}
	if err := n.enqueueLazy(urgent, func() { n.c.admits = append(n.c.admits, req) }); err != nil {
		n.local.forget(req.fps)
		p.err = err
		close(p.done)
	}
	return p
}

// enqueue adds work for the next round, or returns errClosed once the
// node has closed.
func (n *Node) enqueue(add func()) error {
	n.c.mu.Lock()
	if n.c.closed {
		n.c.mu.Unlock()
		return errClosed
	}
	add()
	n.c.mu.Unlock()
	n.c.signal()
	return nil
}

// enqueueLazy is enqueue for an admission or ack: sent within lazyEvery,
// or in the next round when urgent (its caller waits for it).
func (n *Node) enqueueLazy(urgent bool, add func()) error {
	return n.enqueue(func() {
		add()
		if n.c.lazySince.IsZero() {
			n.c.lazySince = time.Now()
		}
		n.c.urgent = n.c.urgent || urgent
	})
}

// Admit queues items as AdmitAsync does and waits for the round that
// sends them: it returns how many were queued.
func (n *Node) Admit(ctx context.Context, items []Item) (int, error) {
	return n.admit(items, true).Wait(ctx)
}

// AckAfter queues the acknowledgement of t, sent in a round after dep
// (nil: none) succeeded: t's entry is acknowledged, deleted and counted
// done; sent (if not nil) is called when the round returned, whatever
// its outcome. Call it only after t's page is committed to the local
// store.
func (n *Node) AckAfter(dep *Pending, t Task, sent func()) {
	n.ackCommitted(t)
	if n.enqueueLazy(false, func() { n.c.acks = append(n.c.acks, ackReq{t: t, dep: dep, sent: sent}) }) != nil {
		n.Release(t) // left pending: handed out again
		if sent != nil {
			sent()
		}
	}
}

// Ack records t as done (as AckAfter with no dependency) and waits for
// the round that sends it.
func (n *Node) Ack(ctx context.Context, t Task) error {
	p := &Pending{done: make(chan struct{})}
	if err := n.enqueueLazy(true, func() { n.c.acks = append(n.c.acks, ackReq{t: t, p: p}) }); err != nil {
		n.Release(t)
		return err
	}
	_, err := p.Wait(ctx)
	return err
}

// commitErr is the error of a failed ack round, if any.
func (n *Node) commitErr() error {
	n.c.mu.Lock()
	defer n.c.mu.Unlock()
	return n.c.err
}

// commitLoop sends rounds while there is work, until stop; then it sends
// what is left once.
func (n *Node) commitLoop() {
	defer close(n.commitDone)
	var last time.Time
	pace := func() {
		// at most one round every roundEvery: what the workers produce
		// meanwhile goes in the next one
		if d := roundEvery - time.Since(last); d > 0 {
			t := time.NewTimer(d)
			select {
			case <-t.C:
			case <-n.stop:
			}
			t.Stop()
		}
		last = time.Now()
	}
	for {
		var due <-chan time.Time
		n.c.mu.Lock()
		since := n.c.lazySince
		n.c.mu.Unlock()
		var t *time.Timer
		if !since.IsZero() {
			t = time.NewTimer(time.Until(since.Add(lazyEvery)))
			due = t.C
		}
		select {
		case <-n.c.kick:
		case <-due:
		case <-n.stop:
			n.round(true)
			n.round(true) // acks waiting on the last admissions
			n.c.mu.Lock()
			n.c.closed = true
			admits, acks, docs := n.c.admits, n.c.acks, n.c.docs
			n.c.admits, n.c.acks, n.c.docs = nil, nil, nil
			n.c.mu.Unlock()
			n.failRound(errClosed, admits, acks, docs)
			return
		}
		if t != nil {
			t.Stop()
		}
		pace()
		for n.round(false) {
			pace()
		}
	}
}

// round sends one pipeline of what is queued and ready, and reports
// whether it sent anything. Documents go in every round; admissions and
// acks wait up to lazyEvery (force, or a caller waiting on one, sends
// them at once).
func (n *Node) round(force bool) bool {
	c := &n.c
	c.mu.Lock()
	lazy := force || c.urgent || !c.lazySince.IsZero() && time.Since(c.lazySince) >= lazyEvery
	docs := c.docs
	c.docs = nil
	if !lazy {
		c.mu.Unlock()
		if len(docs) == 0 {
			return false
		}
		return n.send(nil, nil, docs)
	}
	admits := c.admits
	c.admits, c.urgent, c.lazySince = nil, false, time.Time{}
	var acks, later []ackReq
	for _, a := range c.acks {
		switch {
		case a.dep == nil || a.dep.finished() && a.dep.err == nil:
			acks = append(acks, a)
		case a.dep.finished():
			// its links were not queued: leave it pending (handed out
			// again), and the node stops
			if c.err == nil {
				c.err = a.dep.err
			}
			n.Release(a.t)
			if a.sent != nil {
				defer a.sent()
			}
		default:
			later = append(later, a)
		}
	}
	c.acks = later
	if len(later) > 0 {
		c.lazySince = time.Now()
	}
	c.mu.Unlock()
	if len(admits) == 0 && len(acks) == 0 && len(docs) == 0 {
		return false
	}
	return n.send(admits, acks, docs)
}

// send sends one round's pipeline and gives each request its outcome.
func (n *Node) send(admits []*admitReq, acks []ackReq, docs []*docReq) bool {
	c := &n.c
	// a round waits out a Redis outage of up to RedisWait (the client's
	// retries) before it fails
	ctx, cancel := context.WithTimeout(context.Background(), n.o.RedisWait+n.o.LeaseTTL)
	defer cancel()
	start := time.Now()
	jrecs := n.journalRound(admits, acks)
	pipe := n.rdb.Pipeline()

	// admissions: one script per partition, the requests' URLs in order
	type part struct {
		p    int
		args []any
		reqs []*admitReq
		cnt  []int // URLs of each request in args
		cmd  *redis.Cmd
	}
	parts := map[int]*part{}
	for _, r := range admits {
		for p, a := range r.byPart {
			pt := parts[p]
			if pt == nil {
				pt = &part{p: p, args: []any{n.key(p, "s"), n.b0, seenFill}}
				parts[p] = pt
			}
			pt.args = append(pt.args, a...)
			pt.reqs = append(pt.reqs, r)
			pt.cnt = append(pt.cnt, len(a)/5)
		}
	}
	order := make([]*part, 0, len(parts))
	for _, pt := range parts {
		order = append(order, pt)
	}
	slices.SortFunc(order, func(a, b *part) int { return a.p - b.p })
	for _, pt := range order {
		pt.cmd = admitScript.EvalSha(ctx, pipe, []string{n.key(pt.p, "q"), n.key(pt.p, "added")}, pt.args...)
	}

	// acknowledgements: one script per partition
	ackBy := map[int][]any{}
	for _, a := range acks {
		ackBy[a.t.Partition] = append(ackBy[a.t.Partition], a.t.ID)
	}
	ackCmds := map[int]*redis.Cmd{}
	for p, ids := range ackBy {
		ackCmds[p] = ackScript.EvalSha(ctx, pipe, []string{n.key(p, "q"), n.key(p, "acked")}, append([]any{group, n.name}, ids...)...)
	}

	// documents: one entry for all, and the log read on
	var docAdd *redis.StringCmd
	var docRead *redis.XMessageSliceCmd
	var packed string
	if len(docs) > 0 {
		es := make([]DocEntry, len(docs))
		for i, d := range docs {
			es[i] = d.e
		}
		packed = packDocs(es)
		docAdd = pipe.XAdd(ctx, &redis.XAddArgs{Stream: n.docKey("log"), Values: []any{"n", n.name, "d", packed}})
		if from, ok := n.docs.fetchFrom(); ok {
			docRead = pipe.XRangeN(ctx, n.docKey("log"), "("+from, "+", int64(n.docs.batch))
		}
	}
	_, err := pipe.Exec(ctx)
	c.mu.Lock()
	c.rounds++
	c.mu.Unlock()
	if err != nil && !redis.HasErrorPrefix(err, "NOSCRIPT") {
		n.failRound(fmt.Errorf("cluster: commit round: %w", err), admits, acks, docs)
		return true
	}
	n.jr.stamp(jrecs, time.Now())
	n.jr.prune(start.Add(-journalKeep))

	// admissions' outcome
	for _, pt := range order {
		v, err := pt.cmd.Int64Slice()
		if redis.HasErrorPrefix(err, "NOSCRIPT") {
			// a shard that lost its scripts: run by source again (URLs
			// queued by the first try are seen now, not queued twice)
			v, err = admitScript.Run(ctx, n.rdb, []string{n.key(pt.p, "q"), n.key(pt.p, "added")}, pt.args...).Int64Slice()
		}
		if err != nil {
			err = fmt.Errorf("cluster: admit to partition %d: %w", pt.p, err)
			for _, r := range pt.reqs {
				if r.p.err == nil {
					r.p.err = err
				}
			}
			continue
		}
		// v: the 1-based positions of the URLs queued, in order
		off, k := 0, 0
		for i, r := range pt.reqs {
			for k < len(v) && int(v[k]) <= off+pt.cnt[i] {
				r.p.fresh++
				k++
			}
			off += pt.cnt[i]
		}
	}
	fresh := 0
	for _, r := range admits {
		if r.p.err != nil {
			n.local.forget(r.fps)
			r.p.fresh = 0
			c.mu.Lock()
			if c.err == nil {
				c.err = r.p.err // a page's links not queued: the node stops
			}
			c.mu.Unlock()
		}
		fresh += r.p.fresh
		close(r.p.done)
	}
	n.mu.Lock()
	n.admitted += int64(fresh)
	n.mu.Unlock()

	// acknowledgements' outcome
	var ackErr error
	for p, cmd := range ackCmds {
		v, err := cmd.Int64Slice()
		if redis.HasErrorPrefix(err, "NOSCRIPT") {
			v, err = ackScript.Run(ctx, n.rdb, []string{n.key(p, "q"), n.key(p, "acked")}, append([]any{group, n.name}, ackBy[p]...)...).Int64Slice()
		}
		if err != nil && ackErr == nil {
			ackErr = fmt.Errorf("cluster: ack in partition %d: %w", p, err)
		}
		if err == nil && len(v) == 2 && v[1] > 0 {
			n.log.Warn("cluster: acknowledgements refused: the partition's next owner has claimed the entries (this node's lease expired)",
				"partition", p, "entries", v[1])
		}
	}
	for _, a := range acks {
		n.Release(a.t)
		if a.p != nil {
			a.p.err = ackErr
			close(a.p.done)
		}
		if a.sent != nil {
			a.sent()
		}
	}
	if ackErr != nil {
		c.mu.Lock()
		if c.err == nil {
			c.err = ackErr
		}
		c.mu.Unlock()
	}

	// documents' outcome
	if docAdd != nil {
		id, err := docAdd.Result()
		if err == nil {
			n.journalDocs([]redis.XMessage{{ID: id, Values: map[string]any{"n": n.name, "d": packed}}})
		}
		if err == nil && docRead != nil {
			msgs, rerr := docRead.Result()
			if rerr == nil {
				n.journalDocs(msgs)
				n.docs.buffered(msgs)
			}
		}
		for i, d := range docs {
			d.ref = DocRef{ID: id, Index: i}
			d.p.err = err
			if err != nil {
				d.p.err = fmt.Errorf("cluster: document log %s: %w", n.docKey("log"), err)
			}
			close(d.p.done)
		}
	}
	return true
}

// failRound gives every request of a round that failed as a whole its
// error.
func (n *Node) failRound(err error, admits []*admitReq, acks []ackReq, docs []*docReq) {
	for _, r := range admits {
		n.local.forget(r.fps)
		r.p.err = err
		close(r.p.done)
	}
	for _, a := range acks {
		n.Release(a.t)
		if a.p != nil {
			a.p.err = err
			close(a.p.done)
		}
		if a.sent != nil {
			a.sent()
		}
	}
	if len(acks) > 0 || len(admits) > 0 {
		n.c.mu.Lock()
		if n.c.err == nil {
			n.c.err = err
		}
		n.c.mu.Unlock()
	}
	for _, d := range docs {
		d.p.err = err
		close(d.p.done)
	}
}

// Rounds returns the group-commit pipelines the node has sent.
func (n *Node) Rounds() int64 {
	n.c.mu.Lock()
	defer n.c.mu.Unlock()
	return n.c.rounds
}

var errClosed = errors.New("cluster: node closed")
