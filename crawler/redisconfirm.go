package crawler

import (
	"context"
	"fmt"

	"github.com/bloomcrawl/bloomcrawl/cluster"
	"github.com/bloomcrawl/bloomcrawl/frontier"
)

// confirmed reports whether this node may still commit e: an entry that
// was in flight when Redis became unreachable is committed only if the
// node still holds its partition's lease (cluster.Node.Confirm, which
// renews it); otherwise the lease may have expired meanwhile and the
// partition's next owner fetches and stores the page, so this node leaves
// it (no page stored by two nodes).
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
		q.log.Warn("cluster: lease lost while Redis was unreachable; the page is left to its partition's new owner", "url", e.URL)
	}
	return own, nil
}
