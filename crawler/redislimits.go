package crawler

import (
	"context"
	"fmt"
	"strings"

	"github.com/bloomcrawl/bloomcrawl/cluster"
)

// withinLimits returns the tasks within the crawl's page limits
// (scope.max_pages, scope.max_pages_per_host), counted cluster-wide
// (cluster.Node.TakeBudget); the others are acknowledged without being
// fetched, as the local frontier never queues URLs beyond them. A
// continuous crawl's refreshes do not count (as on one node).
func (q *redisQueue) withinLimits(ctx context.Context, tasks []cluster.Task) ([]cluster.Task, error) {
	if q.maxPages <= 0 && q.maxPagesHost <= 0 {
		return tasks, nil
	}
	var refreshes []cluster.Task
	if q.sched != nil {
		counted := tasks[:0:0]
		for _, t := range tasks {
			if strings.HasPrefix(t.Referrer, cluster.RefreshMark) {
				refreshes = append(refreshes, t)
			} else {
				counted = append(counted, t)
			}
		}
		tasks = counted
	}
	ok, err := q.node.TakeBudget(ctx, tasks, q.maxPages, q.maxPagesHost)
	if err != nil {
		for _, t := range append(tasks, refreshes...) {
			q.node.Release(t)
		}
		return nil, fmt.Errorf("crawler: %w", err)
	}
	kept := refreshes
	for i, t := range tasks {
		if ok[i] {
			kept = append(kept, t)
			continue
		}
		if err := q.node.Ack(ctx, t); err != nil {
			return nil, fmt.Errorf("crawler: beyond the page limits: %w", err)
		}
	}
	return kept, nil
}
