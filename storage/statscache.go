package storage

import (
	"context"
	"sync"
	"time"
)

// StatsCache serves the store's Stats to frequent readers (the HTTP API's
// /v1/stats and /metrics, the web console). DB.Stats scans the key space
// (about a second per million URLs), so a reading is reused for ten times
// as long as its scan took (scans then take at most a tenth of the time,
// however often clients ask; a small store's reading is milliseconds old);
// callers that arrive during a scan wait for it instead of starting their
// own. Safe for concurrent use; the zero value with DB set is ready.
type StatsCache struct {
	DB *DB

	mu    sync.Mutex
	until time.Time
	st    Stats
}

// Get returns a reading of the store's Stats, scanning the store when the
// last one is too old. A failed scan is returned and not kept.
func (c *StatsCache) Get() (Stats, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if time.Now().Before(c.until) {
		return c.st, nil
	}
	start := time.Now()
	// Not a caller's context: the scan answers every caller waiting on
	// mu, so one client going away must not fail the others.
	st, err := c.DB.Stats(context.Background())
	if err != nil {
		return st, err
	}
	c.st, c.until = st, time.Now().Add(10*time.Since(start))
	return st, nil
}
