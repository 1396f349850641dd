package crawler

import (
	"context"
	"fmt"
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/bloomcrawl/bloomcrawl/contentdedup"
	"github.com/bloomcrawl/bloomcrawl/frontier"
	"github.com/bloomcrawl/bloomcrawl/internal/dedupstore"
	"github.com/bloomcrawl/bloomcrawl/storage"
)

// The local backend: one node, its frontier over its store's queue, the
// URL filter (confirmed against the store with dedup.verify) and the
// content deduper's index.

// localQueue is the urlQueue of a crawl on one node: the frontier, whose
// new entries are written to the store in the commit that found them.
type localQueue struct {
	front *frontier.Frontier
	store pageStore
	log   *slog.Logger
}

func (q *localQueue) next(ctx context.Context) (frontier.Entry, error) { return q.front.Next(ctx) }

func (q *localQueue) enqueue(ctx context.Context, cands []frontier.Candidate) (int, error) {
	fresh, tested, err := q.front.Reserve(ctx, cands)
	if err != nil {
		return 0, err
	}
	if len(tested) == 0 {
		return 0, nil
	}
	if _, err := q.store.Commit(ctx, storage.Commit{Enqueue: queueEntries(fresh), Trace: tested}); err != nil {
		q.front.Cancel(fresh)
		return 0, err
	}
	q.front.Publish(fresh)
	return len(fresh), nil
}

// commit reserves the new links in the frontier, writes cm with them in
// one store commit and publishes them.
func (q *localQueue) commit(ctx context.Context, e frontier.Entry, cm storage.Commit, links []frontier.Candidate) (int64, error) {
	fresh, tested, err := q.front.Reserve(ctx, links)
	if err != nil {
		return 0, fmt.Errorf("crawler: links of %s: %w", e.URL, err)
	}
	cm.Enqueue = queueEntries(fresh)
	cm.Trace = append(cm.Trace, tested...)
	if err := commitPage(ctx, q.store, q.log, cm); err != nil {
		q.front.Cancel(fresh)
		return 0, fmt.Errorf("crawler: store %s: %w", e.URL, err)
	}
	q.front.Publish(fresh)
	return int64(len(fresh)) - 1, nil
}

func (q *localQueue) finish(e frontier.Entry) { q.front.Done(e) }

// wait holds e's host in the frontier until then (Done then does nothing).
func (q *localQueue) wait(e frontier.Entry, until time.Time) { q.front.Defer(e, until) }
func (q *localQueue) run(context.Context) error              { return nil }
func (q *localQueue) hop(ctx context.Context, e frontier.Entry, host string) error {
	return q.front.Hop(ctx, e, host)
}

// fetched: one node holds a host until the page is committed.
func (q *localQueue) fetched(frontier.Entry) {}

func (q *localQueue) report(*Stats) {}

// localFilter is the URL filter of a crawl on one node: the frontier's
// (Options.URLFilter), its answers confirmed against the store with
// dedup.verify.
type localFilter struct {
	front  *frontier.Frontier
	verify bool          // dedup.verify: the frontier counts the false positives it caught
	fp     func() uint64 // an audited filter's false positives (nil: none)
	fpBase atomic.Uint64 // fp's count when the resume rebuild ended
}

func (s *localFilter) claim(ctx context.Context, url string) (bool, error) {
	return s.front.Claim(ctx, url)
}
func (s *localFilter) release(urls []string) { s.front.Release(urls) }
func (s *localFilter) restored(url string)   { s.front.Restore(url) }

func (s *localFilter) start() {
	if s.fp != nil {
		// Collisions among URLs already fetched lose nothing: not counted.
		s.fpBase.Store(s.fp())
	}
}

func (s *localFilter) report(st *Stats) {
	if s.verify {
		fs := s.front.Stats()
		st.FalsePositives = &fs.FalsePositives
		st.FilterStoreReads, st.FilterStoreKeys, st.FilterMemoryHits = fs.ConfirmReads, fs.ConfirmKeys, fs.RecentHits
	}
	if s.fp != nil {
		// An audited filter answers with the truth: its count is the one.
		fp := s.fp() - s.fpBase.Load()
		st.FalsePositives = &fp
	}
}

// localDocs are the document decisions of a crawl on one node: the
// content deduper, rebuilt from the store when resuming.
type localDocs struct{ dd deduper }

func (d localDocs) index() dedupstore.Index     { return d.dd }
func (d localDocs) start(context.Context) error { return nil }
func (d localDocs) alias(url string, docID uint64) {
	d.dd.AddURL(url, docID)
}

func (d localDocs) judge(_ context.Context, e frontier.Entry, _ *job, rec *storage.URLRecord, doc *Document) (contentdedup.Verdict, error) {
	return d.dd.CheckCanonical(e.URL, rec.Hints.Canonical, doc.Title, doc.Text), nil
}
