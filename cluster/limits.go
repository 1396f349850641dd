package cluster

import (
	"context"
	"fmt"
	"strings"

	"github.com/redis/go-redis/v9"
)

// The crawl's page limits (scope.max_pages, scope.max_pages_per_host) hold
// cluster-wide: a node counts the entries it takes against counters in
// Redis before it fetches them, PREFIX:pages for all hosts and the hash
// PREFIX:{p:N}:hostpages (host → count) in the host's partition. An entry
// beyond a limit is acknowledged without being fetched. The counters only
// grow, so however the nodes' takes interleave no more than the limit are
// ever let through; an entry taken again after its node died counts again
// (the crawl then fetches fewer than the limit, never more).

// TakeBudget counts tasks against the limits (0: none) and reports, for
// each, whether it is within them. The per-host limit is counted first
// (one pipelined HINCRBY per host), then the total for the tasks within
// it (one INCRBY): one round trip per limit set.
func (n *Node) TakeBudget(ctx context.Context, tasks []Task, maxTotal, maxPerHost int) ([]bool, error) {
	ok := make([]bool, len(tasks))
	for i := range ok {
		ok[i] = true
	}
	if len(tasks) == 0 {
		return ok, nil
	}
	if maxPerHost > 0 {
		type hostKey struct {
			p    int
			host string
		}
		hostOf := make([]hostKey, len(tasks))
		count := map[hostKey]int64{}
		var order []hostKey
		for i, t := range tasks {
			h, err := urlHost(t.URL)
			if err != nil {
				return nil, fmt.Errorf("cluster: page budget of %q: %w", t.URL, err)
			}
			k := hostKey{t.Partition, strings.ToLower(h)}
			hostOf[i] = k
			if count[k] == 0 {
				order = append(order, k)
			}
			count[k]++
		}
		pipe := n.rdb.Pipeline()
		cmds := make(map[hostKey]*redis.IntCmd, len(order))
		for _, k := range order {
			cmds[k] = pipe.HIncrBy(ctx, n.key(k.p, "hostpages"), k.host, count[k])
		}
		if _, err := pipe.Exec(ctx); err != nil {
			return nil, fmt.Errorf("cluster: page budget per host: %w", err)
		}
		left := map[hostKey]int64{} // budget left for this batch
		for _, k := range order {
			before := cmds[k].Val() - count[k]
			left[k] = max(0, int64(maxPerHost)-before)
		}
		for i, k := range hostOf {
			if left[k] > 0 {
				left[k]--
			} else {
				ok[i] = false
			}
		}
	}
	if maxTotal > 0 {
		var want int64
		for _, y := range ok {
			if y {
				want++
			}
		}
		if want == 0 {
			return ok, nil
		}
		after, err := n.rdb.IncrBy(ctx, n.o.Prefix+":pages", want).Result()
		if err != nil {
			return nil, fmt.Errorf("cluster: page budget: %w", err)
		}
		left := max(0, int64(maxTotal)-(after-want))
		for i, y := range ok {
			if !y {
				continue
			}
			if left > 0 {
				left--
			} else {
				ok[i] = false
			}
		}
	}
	return ok, nil
}
