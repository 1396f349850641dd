package crawler

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/bloomcrawl/bloomcrawl/cluster"
	"github.com/bloomcrawl/bloomcrawl/contentdedup"
	"github.com/bloomcrawl/bloomcrawl/frontier"
	"github.com/bloomcrawl/bloomcrawl/internal/dedupstore"
	"github.com/bloomcrawl/bloomcrawl/storage"
)

// What differs between a crawl on one node and a node of a cluster crawl
// sits behind three interfaces, each with a local implementation
// (local.go) and a Redis one (redis.go, over package cluster). The
// pipeline (fetch → record → commit) is written once against them.

// urlQueue is where a crawl's URLs are queued, taken and finished: the
// frontier over the store's queue (localQueue), or the cluster's partition
// streams feeding the frontier, which keeps per-host politeness
// (redisQueue).
type urlQueue interface {
	// next hands out the next entry to process; frontier.ErrExhausted
	// when there is none left. Every entry it hands out is passed to
	// finish exactly once.
	next(ctx context.Context) (frontier.Entry, error)
	// enqueue queues candidates outside a page's commit (seeds, a
	// sitemap's URLs), tested against the URL filter; it returns how many
	// entries it queued on this node.
	enqueue(ctx context.Context, cands []frontier.Candidate) (int, error)
	// commit writes a processed entry's outcome in one step per store:
	// cm (its record or page), with links tested against the URL filter
	// and the new ones queued, and e dequeued (acknowledged). It returns
	// the change in the entries pending on this node.
	commit(ctx context.Context, e frontier.Entry, cm storage.Commit, links []frontier.Candidate) (int64, error)
	// finish ends e's life on this node, committed or not (then it stays
	// queued for a later run or another node).
	finish(e frontier.Entry)
	// wait puts e back, unfinished, to be handed out again no earlier
	// than until, with the rest of its host (a host whose robots.txt
	// cannot be read yet); finish must still follow.
	wait(e frontier.Entry, until time.Time)
	// hop moves e, handed out by next, to host for the next request of
	// its fetch (a redirect): e's host is released as finish releases it,
	// and hop blocks until host's politeness (delay, Crawl-delay,
	// parallelism) lets e send it a request (frontier.Hop); ctx's error
	// when ctx ends first. finish or wait release host.
	hop(ctx context.Context, e frontier.Entry, host string) error
	// fetched says e's requests are over: its host may be sent the next
	// request while e is decided and committed (finish still follows).
	fetched(e frontier.Entry)
	// run moves work to this node until the queue is finished or ctx
	// ends; the local queue has nothing to move and returns at once.
	run(ctx context.Context) error
	// report adds the queue's own state to s.
	report(s *Stats)
}

// urlFilterState is the URL filter's state beyond what enqueue and commit
// test: the redirect aliases claimed while recording a page, the URLs a
// resumed crawl had recorded, and the filter's false positives.
type urlFilterState interface {
	// claim admits a URL recorded without being queued (a redirect
	// alias); false: it was seen, and is not recorded again.
	claim(ctx context.Context, url string) (bool, error)
	// release ends the holds of claimed URLs once their commit returned.
	release(urls []string)
	// restored adds a URL the store recorded (resuming).
	restored(url string)
	// start marks the end of the resume rebuild: false positives among
	// the URLs already recorded are not counted.
	start()
	// report adds the false-positive counters to s.
	report(s *Stats)
}

// documents makes the document decisions (first seen wins): whether a
// parsed page is a new document or a duplicate of which one.
type documents interface {
	// index is what a resumed crawl rebuilds from the store's
	// fingerprints and URL records.
	index() dedupstore.Index
	// start readies the decisions after the resume rebuild.
	start(ctx context.Context) error
	// judge decides doc, fetched for e with record rec (rec.Node is set
	// for a duplicate of another node's document).
	judge(ctx context.Context, e frontier.Entry, j *job, rec *storage.URLRecord, doc *Document) (contentdedup.Verdict, error)
	// alias maps a redirect alias to its page's document.
	alias(url string, docID uint64)
}

// commitPage writes cm to store; a page too large to store with its HTML
// is stored with its text and fingerprints only.
func commitPage(ctx context.Context, store pageStore, log *slog.Logger, cm storage.Commit) error {
	_, err := store.Commit(ctx, cm)
	if errors.Is(err, storage.ErrTooLarge) && cm.Page != nil {
		// Keep the text and fingerprints; drop the raw HTML that did not fit.
		log.Warn("page too large to store with its HTML; storing text only", "url", cm.Page.URL, "bytes", len(cm.Page.HTML))
		cm.Page.HTML = nil
		_, err = store.Commit(ctx, cm)
	}
	return err
}

// newBackend builds the crawl's frontier and backend from the options: a
// cluster node's when Options.Cluster is set, else the local one. It is
// the one place where the two modes differ.
func (c *Crawler) newBackend() error {
	if c.o.Cluster != nil {
		return c.newRedisBackend()
	}
	return c.newLocalBackend()
}

// newLocalBackend: the frontier tests URLs against Options.URLFilter.
func (c *Crawler) newLocalBackend() error {
	o := &c.o
	front, err := c.newFrontier(o.URLFilter)
	if err != nil {
		return err
	}
	c.front = front
	c.queue = &localQueue{front: front, store: o.Store, log: c.log}
	c.filter = &localFilter{front: front, verify: c.settings.Verify, fp: o.FalsePositives}
	c.docs = localDocs{o.Dedup}
	return nil
}

// newRedisBackend: the cluster is the queue and the URL filter (URLFilter
// and FalsePositives are ignored).
func (c *Crawler) newRedisBackend() error {
	o, s := &c.o, c.settings
	// the page limits are the cluster's (redisQueue.withinLimits), not
	// this node's frontier's
	fs := s
	fs.Scope.MaxPages, fs.Scope.MaxPagesPerHost = 0, 0
	front, err := frontier.New(frontierOptions(fs, admitAll{}, o.Store, o.Window, o.MappedArrays))
	if err != nil {
		return fmt.Errorf("crawler: %w", err)
	}
	c.front = front
	// a partition given up is released once its hosts' politeness
	// windows have passed here: the next owner keeps them
	node := o.Cluster
	node.SetReleaseGate(func(p int) time.Time {
		return front.ReadyAt(func(host string) bool { return node.Partition(host) == p })
	})
	o.Cluster.Report(func() cluster.Counters {
		return cluster.Counters{Pages: c.fetched.Load(), Stored: c.stored.Load(), Duplicates: c.dups.Load(), Errors: c.errs.Load(),
			Refreshed: c.refreshed.Load(), NotModified: c.notModified.Load(), Changed: c.changed.Load(), BehindSchedule: c.behind.Load()}
	})
	q := newRedisQueue(o.Cluster, front, o.Store, c.log, s.Politeness.Concurrency, s.Scope.MaxDepth)
	q.maxPages, q.maxPagesHost = s.Scope.MaxPages, s.Scope.MaxPagesPerHost
	q.continuous = s.Recrawl.Continuous
	c.queue = q
	// a page waits for the document log's verdict after its fetch: more
	// workers than fetch slots keep politeness.concurrency requests in
	// flight meanwhile
	c.workers = clusterWorkers * s.Politeness.Concurrency
	c.fetchSlots = make(chan struct{}, s.Politeness.Concurrency)
	c.filter = &redisFilter{front: front, verify: s.Verify, node: o.Cluster}
	c.docs = &redisDocs{cd: newClusterDedup(o.Cluster, o.Dedup, c.log), dd: o.Dedup, store: o.Store, log: c.log,
		params: docParams(o.Dedup)}
	return nil
}
