package crawler

import (
	"context"
	"fmt"

	"github.com/bloomcrawl/bloomcrawl/cluster"
	"github.com/bloomcrawl/bloomcrawl/frontier"
)

// confirmed reports whether this node may still commit e: only while it
// holds e's partition under the lease its entry was taken with
// (cluster.Node.Confirm: known locally while the lease is fresh; after a
// pause or a Redis outage, renewed in one round trip). Otherwise the
// lease may have expired meanwhile and the partition's next owner fetches
// and stores the page, so this node drops it (no page stored by two
// nodes).
func (q *redisQueue) confirmed(ctx context.Context, e frontier.Entry) (bool, error) {
	v, ok := q.tasks.Load(e.Seq)
	if !ok {
		return true, nil
	}
	own, err := q.node.Confirm(ctx, v.(cluster.Task))
	if err != nil {
		return false, fmt.Errorf("crawler: %s: %w", e.URL, err)
	}
	if !own {
		q.log.Warn("cluster: lease lost (node paused or Redis unreachable past the lease TTL); page dropped, left to its partition's new owner", "url", e.URL)
	}
	return own, nil
}
