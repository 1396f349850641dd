package crawler

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/bloomcrawl/bloomcrawl/cluster"
	"github.com/bloomcrawl/bloomcrawl/configs"
	"github.com/bloomcrawl/bloomcrawl/frontier"
	"github.com/bloomcrawl/bloomcrawl/storage"
)

// clusterState is the part of *cluster.Node the crawler needs in cluster
// mode (Options.Cluster).
type clusterState interface {
	Admit(ctx context.Context, items []cluster.Item) (int, error)
	Take(ctx context.Context, limit int) ([]cluster.Task, error)
	Ack(ctx context.Context, t cluster.Task) error
	Release(t cluster.Task)
	Finished(ctx context.Context) (bool, error)
	Held() []int
	// FalsePositives counts the false positives of the cluster's Bloom
	// seen-state this node caught (and queued) with dedup.verify.
	FalsePositives() uint64
	State() cluster.LeaseState
	Report(func() cluster.Counters)
	docLog
}

// In cluster mode the cluster (Redis) is the queue and the seen-state: the
// URLs a page links to go to Cluster.Admit instead of the local queue, and
// a feeder takes entries of the partitions this node holds a lease on and
// passes them through the local frontier, which keeps doing per-host
// politeness. Every entry handed out was admitted once cluster-wide, so
// the local frontier admits whatever it is given (admitAll).

// admitAll is the local frontier's seen-set in cluster mode.
type admitAll struct{}

func (admitAll) TestAndAdd(string) bool { return false }

// CheckCluster refuses, naming the option, what cluster mode does not
// support: each node would apply it to its own share only (page limits),
// it needs a schedule the cluster does not share (recrawl.continuous), or
// the cluster's seen-state in Redis replaces it (dedup.filter). Sitemaps
// listed in scope.sitemaps are refused too; "auto" (the default) reads
// none in cluster mode.
func CheckCluster(cfg *configs.Config) error {
	s := cfg.Scope
	switch {
	case cfg.Recrawl.Continuous:
		return errors.New("recrawl.continuous (--continuous) is not supported in cluster mode yet (the refresh schedule is each node's own)")
	case s.MaxPages > 0:
		return errors.New("scope.max_pages is not supported in cluster mode yet (each node would count only its own pages)")
	case s.MaxPagesPerHost > 0:
		return errors.New("scope.max_pages_per_host is not supported in cluster mode yet (the count is not shared by the nodes)")
	case len(s.Sitemaps.URLs) > 0:
		return errors.New("scope.sitemaps: sitemaps are not read in cluster mode yet: set it to off (auto reads none in cluster mode)")
	case cfg.Dedup.Filter != configs.DefaultFilter:
		return fmt.Errorf("dedup.filter %s does not apply in cluster mode: the URL seen-state is Bloom bits in Redis (sized by dedup.capacity and dedup.target_fp); remove dedup.filter", cfg.Dedup.Filter)
	}
	return nil
}

// clusterCounters are this node's counters as the cluster publishes them
// (cluster.Node.Report).
func (c *Crawler) clusterCounters() cluster.Counters {
	return cluster.Counters{Pages: c.fetched.Load(), Stored: c.stored.Load(), Duplicates: c.dups.Load(), Errors: c.errs.Load()}
}

// clusterSeeds admits the seeds to the cluster (every node offers them;
// they are queued once).
func (c *Crawler) clusterSeeds(ctx context.Context) error {
	seeds, err := c.seedURLs()
	if err != nil {
		return err
	}
	var items []cluster.Item
	for _, u := range seeds {
		items = append(items, cluster.Item{URL: u})
	}
	if _, err := c.o.Cluster.Admit(ctx, items); err != nil {
		return fmt.Errorf("crawler: queue seeds: %w", err)
	}
	return nil
}

// feed moves entries from the cluster into the local frontier, at most
// 2×concurrency not yet done at a time, until the cluster is finished
// (then it releases the frontier's hold, and the workers end when the
// local queue is empty) or ctx ends. When the cluster has nothing for this
// node it polls again after a wait that doubles from 20 ms to 320 ms, and
// asks whether the cluster is finished at most every 320 ms: an idle node
// costs Redis a few round trips a second.
func (c *Crawler) feed(ctx context.Context, release func()) error {
	defer release()
	limit := 2 * c.cfg.Politeness.Concurrency
	const minIdle, maxIdle = 20 * time.Millisecond, 320 * time.Millisecond
	idle := minIdle
	var askedDone time.Time
	for ctx.Err() == nil {
		out := int(c.taskCount.Load())
		if room := limit - out; room > 0 {
			tasks, err := c.o.Cluster.Take(ctx, room)
			if err != nil {
				if ctx.Err() != nil {
					return nil
				}
				return fmt.Errorf("crawler: %w", err)
			}
			if len(tasks) > 0 {
				if err := c.feedTasks(ctx, tasks); err != nil {
					return err
				}
				idle = minIdle
				continue
			}
			if out == 0 && time.Since(askedDone) >= maxIdle {
				askedDone = time.Now()
				done, err := c.o.Cluster.Finished(ctx)
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
			idle = minIdle // busy: look again soon
		}
		t := time.NewTimer(idle)
		select {
		case <-ctx.Done():
		case <-t.C:
		}
		t.Stop()
		idle = min(2*idle, maxIdle)
	}
	return nil
}

// feedTasks reserves and publishes tasks in the local frontier,
// remembering each entry's task for the ack.
func (c *Crawler) feedTasks(ctx context.Context, tasks []cluster.Task) error {
	cands := make([]frontier.Candidate, len(tasks))
	for i, t := range tasks {
		cands[i] = frontier.Candidate{URL: t.URL, Depth: t.Depth, Referrer: t.Referrer}
	}
	fresh, _, err := c.front.Reserve(context.WithoutCancel(ctx), cands)
	if err != nil {
		for _, t := range tasks {
			c.o.Cluster.Release(t)
		}
		return fmt.Errorf("crawler: %w", err)
	}
	j := 0
	for _, t := range tasks {
		if j < len(fresh) && fresh[j].URL == t.URL {
			c.tasks.Store(fresh[j].Seq, t)
			c.taskCount.Add(1)
			j++
			continue
		}
		c.o.Cluster.Release(t) // dropped (too deep): pending, redelivered after the lease TTL
	}
	c.front.Publish(fresh)
	return nil
}

// untask forgets e's task once e is processed: acked by commitCluster, or
// left pending in the cluster (a failed or abandoned fetch).
func (c *Crawler) untask(e frontier.Entry) {
	if v, ok := c.tasks.LoadAndDelete(e.Seq); ok {
		c.o.Cluster.Release(v.(cluster.Task))
		c.taskCount.Add(-1)
	}
}

// commitCluster is commit in cluster mode: the page's links go to the
// cluster (tested against the cluster-wide seen-state and queued in one
// step, before the local commit: a crash in between re-fetches the page
// and finds them seen), then the page is committed locally, then its
// entry is acked.
func (c *Crawler) commitCluster(ctx context.Context, e frontier.Entry, out outcome) error {
	defer c.front.Release(out.claimed)
	defer c.front.Done(e)
	wctx := context.WithoutCancel(ctx)
	for _, r := range out.extra {
		if _, err := c.o.Store.Commit(wctx, storage.Commit{URL: r}); err != nil {
			return fmt.Errorf("crawler: store redirect alias %s: %w", r.URL, err)
		}
	}
	var items []cluster.Item
	tested := out.trace
	for _, l := range out.links {
		if c.cfg.Scope.MaxDepth >= 0 && l.Depth > c.cfg.Scope.MaxDepth {
			continue
		}
		items = append(items, cluster.Item{URL: l.URL, Depth: l.Depth, Referrer: l.Referrer})
		tested = append(tested, l.URL)
	}
	if _, err := c.o.Cluster.Admit(wctx, items); err != nil {
		return fmt.Errorf("crawler: links of %s: %w", e.URL, err)
	}
	cm := out.cm
	cm.Trace = tested
	_, err := c.o.Store.Commit(wctx, cm)
	if errors.Is(err, storage.ErrTooLarge) && cm.Page != nil {
		c.log.Warn("page too large to store with its HTML; storing text only", "url", e.URL, "bytes", len(cm.Page.HTML))
		cm.Page.HTML = nil
		_, err = c.o.Store.Commit(wctx, cm)
	}
	if err != nil {
		return fmt.Errorf("crawler: store %s: %w", e.URL, err)
	}
	if v, ok := c.tasks.Load(e.Seq); ok {
		if err := c.o.Cluster.Ack(wctx, v.(cluster.Task)); err != nil {
			return fmt.Errorf("crawler: %w", err)
		}
	}
	c.done.Add(1)
	return nil
}
