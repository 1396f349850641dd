package cluster

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"
)

// The crawl's epoch tells a Redis that lost the crawl's state (restarted
// without persistence, or flushed) from an empty frontier: the first node
// writes a random value to PREFIX:epoch, every node remembers it, and a
// node that finds it gone or changed stops with ErrStateLost instead of
// taking the empty counters for a finished crawl.

// ErrStateLost is wrapped by the error of a node whose crawl state in
// Redis is gone.
var ErrStateLost = errors.New("cluster: the crawl's state in Redis is gone")

func (n *Node) epochKey() string { return n.o.Prefix + ":epoch" }

// setEpoch writes the crawl's epoch unless a node did before, and
// remembers it.
func (n *Node) setEpoch(ctx context.Context) error {
	v := fmt.Sprintf("%d-%s", time.Now().UnixNano(), n.name)
	if err := n.rdb.SetNX(ctx, n.epochKey(), v, 0).Err(); err != nil {
		return fmt.Errorf("cluster: %w", err)
	}
	got, err := n.rdb.Get(ctx, n.epochKey()).Result()
	if err != nil {
		return fmt.Errorf("cluster: %w", err)
	}
	n.epoch = got
	return nil
}

// checkEpoch returns an error wrapping ErrStateLost when the crawl's
// epoch is no longer in Redis (or another crawl's is), else nil or the
// error of the read.
func (n *Node) checkEpoch(ctx context.Context) error {
	got, err := n.rdb.Get(ctx, n.epochKey()).Result()
	if err != nil && !errors.Is(err, redis.Nil) {
		return fmt.Errorf("cluster: read %s: %w", n.epochKey(), err)
	}
	if got == n.epoch {
		return nil
	}
	what := "missing"
	if got != "" {
		what = fmt.Sprintf("%q, not this crawl's %q", got, n.epoch)
	}
	return fmt.Errorf("%w (key %s %s): Redis restarted without persistence or the database was flushed, so the queue, the seen-state and the document log are lost; node %s stops. "+
		"To resume, crawl again: start every node with its config and a new --store (the stores of this run keep what it stored), or run Redis with appendonly yes so that a restart keeps the state (docs/cluster.md, \"Redis restarts\")",
		ErrStateLost, n.epochKey(), what, n.name)
}

// lostOr returns the ErrStateLost error when the crawl's state is gone
// (an error of Redis may be its first sign), else err.
func (n *Node) lostOr(ctx context.Context, err error) error {
	if lost := n.checkEpoch(ctx); errors.Is(lost, ErrStateLost) {
		return lost
	}
	return err
}
