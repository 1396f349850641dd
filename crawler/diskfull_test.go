package crawler

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/bloomcrawl/bloomcrawl/configs"
	"github.com/bloomcrawl/bloomcrawl/storage"
)

// fullDisk is a store whose disk has just filled up: a commit recording a
// fetched URL fails with a *storage.NoSpaceError, as storage's free-space
// watch answers (queueing the seeds still works).
type fullDisk struct{ *storage.DB }

func (s fullDisk) Commit(ctx context.Context, c storage.Commit) ([]uint64, error) {
	if c.Page != nil || c.URL != nil {
		return nil, fmt.Errorf("storage: commit: %w", &storage.NoSpaceError{Dir: s.Dir(), Free: 1 << 20, Reserve: 2 << 20})
	}
	return s.DB.Commit(ctx, c)
}

// TestFatalErrorAbortsInFlightFetches: when a commit fails for good (the
// disk is full), the crawl stops at once: the fetches in flight are
// aborted (their results could not be stored either) instead of running on
// to fetch.timeout, everything stays queued, and the error is returned.
func TestFatalErrorAbortsInFlightFetches(t *testing.T) {
	release := make(chan struct{}) // ends every handler: closed by the watchdog or at the end
	var once sync.Once
	end := func() { once.Do(func() { close(release) }) }
	defer end()
	watchdog := time.AfterFunc(60*time.Second, end)
	defer watchdog.Stop()
	var entered sync.WaitGroup
	entered.Add(2)
	var aborted atomic.Int32
	var exited sync.WaitGroup // the slow handlers
	exited.Add(2)
	mux := http.NewServeMux()
	for _, p := range []string{"/slow1", "/slow2"} {
		mux.HandleFunc(p, func(w http.ResponseWriter, r *http.Request) {
			defer exited.Done()
			entered.Done()
			select {
			case <-r.Context().Done():
				aborted.Add(1)
			case <-release:
			}
		})
	}
	mux.HandleFunc("/fast", func(w http.ResponseWriter, r *http.Request) {
		ready := make(chan struct{})
		go func() { entered.Wait(); close(ready) }()
		select { // answer once both slow fetches are in flight
		case <-ready:
		case <-release:
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, "<html><head><title>Fast</title></head><body><main><p>A page whose result cannot be stored because the disk is full.</p></main></body></html>")
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()
	cfg := siteConfig(srv.URL)
	cfg.Seeds = []string{srv.URL + "/slow1", srv.URL + "/slow2", srv.URL + "/fast"}
	cfg.Politeness.ObeyRobots = false
	cfg.Scope.Sitemaps.Off = true
	cfg.Fetch.Timeout = configs.Duration(10 * time.Minute)
	cfg.Fetch.Retries = 0
	dir := t.TempDir()
	db, err := storage.Open(dir, StoreOptions(cfg.Store))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	r := crawlDB(t, context.Background(), cfg, db, nil, nil, func(o *Options) { o.Store = fullDisk{db} })
	if !errors.Is(r.err, storage.ErrNoSpace) {
		t.Fatalf("Run: %v, want the store's ErrNoSpace", r.err)
	}
	exited.Wait() // the server sees the aborts, or the watchdog ends them
	if n := aborted.Load(); n != 2 {
		t.Errorf("%d of the 2 slow fetches in flight were aborted; the crawl waited for them instead", n)
	}
	if r.queue != 3 || len(r.urls) != 0 {
		t.Errorf("after the stop: %d queued, %d URLs recorded; want all 3 seeds still queued and none recorded", r.queue, len(r.urls))
	}
}
