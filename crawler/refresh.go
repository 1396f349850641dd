package crawler

import (
	"container/heap"
	"context"
	"fmt"
	"hash/fnv"
	"regexp"
	"sync"
	"time"

	"github.com/bloomcrawl/bloomcrawl/configs"
	"github.com/bloomcrawl/bloomcrawl/frontier"
	"github.com/bloomcrawl/bloomcrawl/storage"
)

// refresher is a continuous crawl's refresh schedule (recrawl.seeds_every,
// recrawl.rules): every fetched page that a rule matches is due again one
// interval after its fetch. The schedule is not stored on its own: a
// page's next due time is its URL record's FetchedAt plus its interval
// (plus its stagger), so a restarted crawl (even after kill -9) rebuilds it
// from the URL records it reads anyway, and a refresh that was queued when
// the crawl stopped is still in the stored queue.
type refresher struct {
	seeds      map[string]bool
	seedsEvery time.Duration
	rules      []refreshRule

	mu      sync.Mutex
	items   map[string]*refreshItem
	once    int // items off the schedule, queued once (every 0: queueNow)
	due     refreshHeap
	changed chan struct{} // closed and replaced when an earlier due time appears
}

type refreshRule struct {
	re    *regexp.Regexp
	every time.Duration
}

type refreshItem struct {
	url     string
	every   time.Duration // 0: not on the schedule, queued once (queueNow)
	sitemap bool          // read as a sitemap, not fetched as a page
	next    time.Time     // when it is due (valid when index >= 0)
	queued  bool          // a refresh entry for it is queued or being fetched
	dueAt   time.Time     // with queued: when that refresh was due
	index   int           // in the due heap; -1 when not there
}

// newRefresher returns the schedule rc (recrawl.*) describes, or nil when
// it refreshes nothing.
func newRefresher(rc configs.Recrawl, seeds []string) (*refresher, error) {
	r := &refresher{seeds: map[string]bool{}, seedsEvery: rc.SeedsEvery.Std(),
		items: map[string]*refreshItem{}, changed: make(chan struct{})}
	for _, s := range seeds {
		r.seeds[s] = true
	}
	for i, rule := range rc.Rules {
		re, err := regexp.Compile(rule.Match)
		if err != nil {
			return nil, fmt.Errorf("recrawl.rules[%d].match: %w", i, err)
		}
		r.rules = append(r.rules, refreshRule{re: re, every: rule.Every.Std()})
	}
	if r.seedsEvery <= 0 && len(r.rules) == 0 {
		return nil, nil
	}
	return r, nil
}

// interval returns how often u is fetched again (0: never).
func (r *refresher) interval(u string) time.Duration {
	if r.seeds[u] && r.seedsEvery > 0 {
		return r.seedsEvery
	}
	for _, rule := range r.rules {
		if rule.re.MatchString(u) {
			return rule.every
		}
	}
	return 0
}

// stagger is u's fixed offset added to every due time, up to a tenth of
// its interval, so that the many hubs of one host found at the same time do
// not all fall due at once. It depends on the URL only (the same after a
// restart).
func stagger(u string, every time.Duration) time.Duration {
	span := every / 10
	if span <= 0 {
		return 0
	}
	h := fnv.New64a()
	h.Write([]byte(u))
	return time.Duration(h.Sum64() % uint64(span))
}

// restored schedules a URL record read back from the store (a sitemap
// too, when a rule matches its URL: it is read again at that interval).
func (r *refresher) restored(rec storage.URLRecord) {
	if rec.Reason == "redirect" || rec.FetchedAt.IsZero() {
		return
	}
	r.fetched(rec.URL, rec.FetchedAt, rec.Hints.Sitemap)
}

// queuedAtStart marks u as queued: a refresh entry (or its first fetch)
// that an earlier run left in the stored queue.
func (r *refresher) queuedAtStart(u string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if it := r.items[u]; it != nil {
		r.remove(it)
		it.queued, it.dueAt = true, time.Time{}
	}
}

// fetched schedules u's next refresh one interval (plus its stagger) after
// at, its fetch time, if a rule matches it (sitemap: u was read as a
// sitemap, and is read again so); a URL no rule matches that was queued
// once (queueNow) leaves the schedule.
func (r *refresher) fetched(u string, at time.Time, sitemap bool) {
	every := r.interval(u)
	r.mu.Lock()
	defer r.mu.Unlock()
	it := r.items[u]
	if every <= 0 {
		if it != nil {
			r.remove(it)
			delete(r.items, u)
			if it.every == 0 {
				r.once--
			}
		}
		return
	}
	if it == nil {
		it = &refreshItem{url: u, index: -1}
		r.items[u] = it
	} else if it.every == 0 {
		r.once-- // queued once, and on the schedule from now on
	}
	it.every, it.sitemap = every, sitemap
	it.queued, it.dueAt = false, time.Time{}
	it.next = at.Add(every + stagger(u, every))
	if it.index >= 0 {
		heap.Fix(&r.due, it.index)
	} else {
		heap.Push(&r.due, it)
	}
	if it.index == 0 {
		close(r.changed)
		r.changed = make(chan struct{})
	}
}

// taken reports whether u was fetched as a scheduled refresh, and how late
// (after its due time plus one interval it counts as behind schedule).
// Either way u is no longer queued; fetched schedules it again.
func (r *refresher) taken(u string, now time.Time) (refresh, behind bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	it := r.items[u]
	if it == nil || !it.queued {
		return false, false
	}
	refresh = true
	behind = it.every > 0 && !it.dueAt.IsZero() && now.Sub(it.dueAt) > it.every
	return refresh, behind
}

// queueNow marks u as queued for a refresh now, outside its schedule (a
// sitemap listed it with a lastmod newer than its last fetch): true unless
// a refresh of u is queued already.
func (r *refresher) queueNow(u string, now time.Time) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	it := r.items[u]
	if it == nil {
		it = &refreshItem{url: u, index: -1}
		r.items[u] = it
		r.once++
	}
	if it.queued {
		return false
	}
	r.remove(it)
	it.queued, it.dueAt = true, now
	return true
}

// isSitemap reports whether u is on the schedule as a sitemap.
func (r *refresher) isSitemap(u string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	it := r.items[u]
	return it != nil && it.sitemap
}

// popDue removes and returns the URLs due at now, marking them queued, and
// the time the next one is due (zero: none scheduled).
func (r *refresher) popDue(now time.Time, limit int) (urls []string, next time.Time, changed <-chan struct{}) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for r.due.Len() > 0 && !r.due[0].next.After(now) && len(urls) < limit {
		it := heap.Pop(&r.due).(*refreshItem)
		it.queued, it.dueAt = true, it.next
		urls = append(urls, it.url)
	}
	if r.due.Len() > 0 {
		next = r.due[0].next
	}
	return urls, next, r.changed
}

// unqueue puts urls back on the schedule, due now (their refresh could not
// be queued).
func (r *refresher) unqueue(urls []string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, u := range urls {
		if it := r.items[u]; it != nil && it.queued && it.index < 0 {
			it.queued = false
			heap.Push(&r.due, it)
		}
	}
}

// counts returns the URLs on the schedule (not those queued once by
// queueNow) and those due now, not yet queued. It visits only the due part of the heap (a min-heap: below an
// item not yet due nothing is due), so it costs time in proportion to the
// due URLs, not to the schedule (progress asks every few seconds; the
// refresher keeps the due part small by queueing it).
func (r *refresher) counts(now time.Time) (scheduled, due int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	stack := []int{0}
	for len(stack) > 0 {
		i := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if i >= len(r.due) || r.due[i].next.After(now) {
			continue
		}
		due++
		stack = append(stack, 2*i+1, 2*i+2)
	}
	return len(r.items) - r.once, due
}

func (r *refresher) remove(it *refreshItem) {
	if it.index >= 0 {
		heap.Remove(&r.due, it.index)
	}
}

// runRefresher queues every refresh when it falls due, until ctx ends: it commits
// the entries to the store's queue and publishes them to the frontier,
// where they wait for their host's politeness like any entry.
func (c *Crawler) runRefresher(ctx context.Context) error {
	r := c.refresh
	for {
		urls, next, changed := r.popDue(time.Now(), 1000)
		if len(urls) > 0 {
			cands := make([]frontier.Candidate, len(urls))
			for i, u := range urls {
				cands[i] = frontier.Candidate{URL: u}
				if r.isSitemap(u) {
					cands[i].Hints = &frontier.Hints{Sitemap: true}
				}
			}
			if err := c.queueRefreshes(ctx, cands); err != nil {
				r.unqueue(urls)
				if ctx.Err() != nil {
					return nil
				}
				return err
			}
			continue
		}
		var timer <-chan time.Time
		var t *time.Timer
		if !next.IsZero() {
			t = time.NewTimer(time.Until(next))
			timer = t.C
		}
		select {
		case <-ctx.Done():
		case <-changed:
		case <-timer:
		}
		if t != nil {
			t.Stop()
		}
		if ctx.Err() != nil {
			return nil
		}
	}
}

// queueRefreshes commits refresh entries for cands and publishes them.
func (c *Crawler) queueRefreshes(ctx context.Context, cands []frontier.Candidate) error {
	entries := make([]frontier.Entry, len(cands))
	for i, cand := range cands {
		// A refreshed page counts as a seed for scope.max_depth: its new
		// links are one level deep.
		cand.Depth = 0
		entries[i] = c.front.Refresh(cand)
	}
	if _, err := c.o.Store.Commit(ctx, storage.Commit{Enqueue: queueEntries(entries)}); err != nil {
		c.front.Cancel(entries)
		return fmt.Errorf("crawler: queue refreshes: %w", err)
	}
	c.front.Publish(entries)
	c.queued.Add(int64(len(entries)))
	return nil
}

// refreshHeap orders items by due time.
type refreshHeap []*refreshItem

func (h refreshHeap) Len() int           { return len(h) }
func (h refreshHeap) Less(i, j int) bool { return h[i].next.Before(h[j].next) }
func (h refreshHeap) Swap(i, j int) {
	h[i], h[j] = h[j], h[i]
	h[i].index, h[j].index = i, j
}
func (h *refreshHeap) Push(x any) {
	it := x.(*refreshItem)
	it.index = len(*h)
	*h = append(*h, it)
}
func (h *refreshHeap) Pop() any {
	old := *h
	it := old[len(old)-1]
	old[len(old)-1] = nil
	it.index = -1
	*h = old[:len(old)-1]
	return it
}
