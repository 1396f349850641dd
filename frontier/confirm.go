package frontier

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/bloomcrawl/bloomcrawl/internal/mapped"
)

// knownStore confirms the URL filter's "seen" answers: Known reports, for
// each URL, whether the store holds it (recorded or queued). One call
// should be one batch of point reads.
type knownStore interface {
	Known(ctx context.Context, urls []string, known []bool) error
}

// confirmer makes the URL filter exact where it matters: a "seen" answer is
// believed only if the URL is held (admitted, its commit not yet
// published), among the recently published URLs, or known to the store;
// otherwise it was a false positive of the filter and the URL is admitted.
//
// Why no URL is admitted twice: a URL is held from the moment it is
// admitted until Publish, which the caller calls after the commit that
// wrote it (queued, or recorded for a Claim) has returned. So at any time
// an admitted URL is held or in the store. The filter test, the held and
// recent checks and the holding of a URL that goes to the store for
// confirmation all happen under mu, so two callers confirming the same URL
// cannot both miss: the second finds it held by the first, which then
// keeps it (a false positive, admitted) or drops it (the store knew it).
type confirmer struct {
	store knownStore

	mu     sync.Mutex
	held   map[string]struct{}
	recent *urlCache

	falsePositives, reads, keys, recentHits atomic.Uint64
}

func newConfirmer(s knownStore, recentBytes int, arrays *mapped.File) *confirmer {
	return &confirmer{store: s, held: map[string]struct{}{}, recent: newURLCache(recentBytes, arrays)}
}

// testAndAdd is filter.TestAndAddBatch made exact. Every key it reports new
// is held until release.
func (c *confirmer) testAndAdd(ctx context.Context, filter batchFilter, keys []string, out []bool) error {
	var ask []int
	c.mu.Lock()
	filter.TestAndAddBatch(keys, out)
	for i, k := range keys {
		// Look up only "seen" answers, recent first: a page's repeated
		// links (navigation) are mostly committed long ago.
		switch {
		case !out[i]:
			c.held[k] = struct{}{}
		case c.recent.has(k) || c.isHeld(k):
			c.recentHits.Add(1)
		default:
			c.held[k] = struct{}{} // until the store answers
			ask = append(ask, i)
		}
	}
	c.mu.Unlock()
	if len(ask) == 0 {
		return nil
	}
	urls := make([]string, len(ask))
	for j, i := range ask {
		urls[j] = keys[i]
	}
	known := make([]bool, len(ask))
	err := c.store.Known(ctx, urls, known)
	c.reads.Add(1)
	c.keys.Add(uint64(len(ask)))
	c.mu.Lock()
	defer c.mu.Unlock()
	if err != nil {
		for _, i := range ask {
			delete(c.held, keys[i])
		}
		for i, k := range keys {
			if !out[i] {
				delete(c.held, k)
			}
		}
		return fmt.Errorf("frontier: confirm %d seen URLs: %w", len(urls), err)
	}
	for j, i := range ask {
		if known[j] {
			delete(c.held, keys[i])
			c.remember(keys[i])
			continue
		}
		out[i] = false // a false positive of the filter: admitted, held
		c.falsePositives.Add(1)
	}
	return nil
}

// release ends the hold on urls (their commit returned) and remembers
// them as recent when committed is true.
func (c *confirmer) release(urls []string, committed bool) {
	if len(urls) == 0 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, u := range urls {
		delete(c.held, u)
		if committed {
			c.remember(u)
		}
	}
}

func (c *confirmer) isHeld(k string) bool { _, ok := c.held[k]; return ok }

// remember adds u to the recent URLs, forgetting the oldest when full.
// Holds mu.
func (c *confirmer) remember(u string) { c.recent.add(u) }

// forget empties the recent URLs for good (the cache then remembers
// nothing, and every "seen" answer not held goes to the store) and
// returns once no caller uses the old cache, so that its arrays can be
// released.
func (c *confirmer) forget() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.recent = newURLCache(0, nil)
}
