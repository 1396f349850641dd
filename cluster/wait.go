package cluster

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
)

// retryOptions returns go-redis's retry settings for a client that keeps
// trying a command for about wait when Redis cannot be reached: backoff
// from 100 ms doubling to 1 s (with go-redis's jitter), enough tries to
// cover wait. A command Redis ran but whose answer was lost may run
// twice: the crawl's scripts are safe to repeat (an admit queues nothing
// seen, an ack counts an entry once, a repeated document log entry is a
// duplicate of its own URL), and a page budget counted twice lets fewer
// pages through, never more.
func retryOptions(wait time.Duration) (tries int, minBackoff, maxBackoff time.Duration) {
	minBackoff, maxBackoff = 100*time.Millisecond, time.Second
	tries = 4 + int(wait/maxBackoff) // 100+200+400+800 ms, then 1 s each
	return tries, minBackoff, maxBackoff
}

// downLog tells, through Options.Logger, when Redis stops answering this
// node's connections and when it answers again (a dial hook: every new
// connection goes through it); when it stops, the entries in flight on
// the node become suspect (see Confirm).
type downLog struct {
	n     *Node
	log   *slog.Logger
	url   string
	wait  time.Duration
	mu    sync.Mutex
	since time.Time // first failed dial of the current outage; zero when up
}

func (d *downLog) DialHook(next redis.DialHook) redis.DialHook {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := next(ctx, network, addr)
		d.mu.Lock()
		defer d.mu.Unlock()
		switch {
		case err != nil && d.since.IsZero():
			d.since = time.Now()
			d.n.suspectInflight()
			d.log.Warn("cluster: Redis unreachable; waiting for it", "redis", d.url, "addr", addr, "err", err, "gives_up_after", d.wait)
		case err == nil && !d.since.IsZero():
			d.log.Info("cluster: Redis answers again", "redis", d.url, "addr", addr, "down", time.Since(d.since).Round(time.Millisecond))
			d.since = time.Time{}
		}
		return c, err
	}
}

func (d *downLog) ProcessHook(next redis.ProcessHook) redis.ProcessHook { return next }
func (d *downLog) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return next
}

// suspectInflight marks every entry in flight on the node suspect: Redis
// is unreachable, and its partition's lease may expire before the node
// commits it.
func (n *Node) suspectInflight() {
	n.mu.Lock()
	defer n.mu.Unlock()
	for e := range n.inflight {
		n.suspect[e] = true
	}
}

// Confirm reports whether this node may still commit t (store its page
// locally, then Ack it): only while it holds t's partition under the lease
// (fencing token) t was handed out with. In the normal case that is known
// without Redis: the lease was renewed at most LeaseTTL/3 ago, and until
// its renewal was sent + LeaseTTL - LeaseTTL/10 (monotonic clock) no other
// node can have it. Past that moment (the node was paused, as by SIGSTOP,
// or its renewals did not get through) and for an entry in flight when
// Redis became unreachable, t is confirmed only if renewing the lease under
// t's token succeeds (one round trip), which also extends it. An entry not
// confirmed is left to the partition's next owner (Release it): that
// owner claims it and stores the page, so it is stored once.
func (n *Node) Confirm(ctx context.Context, t Task) (bool, error) {
	e := entry{t.Partition, t.ID}
	n.mu.Lock()
	sus := n.suspect[e]
	delete(n.suspect, e)
	held := n.held[t.Partition] && n.fence[t.Partition] == t.fence
	fresh := time.Now().Before(n.until[t.Partition])
	n.mu.Unlock()
	if !held {
		return false, nil // lost, or lost and taken again under a new token
	}
	if !sus && fresh {
		return true, nil
	}
	ok, err := n.renew(ctx, t.Partition, t.fence)
	if err != nil {
		return false, fmt.Errorf("cluster: confirm lease %d: %w", t.Partition, err)
	}
	if !ok {
		n.mu.Lock()
		if n.held[t.Partition] && n.fence[t.Partition] == t.fence {
			n.lease.LeasesLost++
			n.dropLocked(t.Partition)
		}
		n.mu.Unlock()
	}
	return ok, nil
}
