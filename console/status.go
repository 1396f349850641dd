package console

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"runtime/metrics"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/bloomcrawl/bloomcrawl/storage"
)

// Status is one reading of the crawl and its store: what the status view
// shows and /console/events pushes (as JSON).
type Status struct {
	Time    time.Time `json:"time"`
	State   string    `json:"state"` // the crawl's state; "store" without a crawl
	Elapsed float64   `json:"elapsed_s"`
	// This run's counters (crawler.Stats).
	Fetched    int64 `json:"fetched"`
	Stored     int64 `json:"stored"`
	Duplicates int64 `json:"duplicates"`
	Queued     int64 `json:"queued"`
	Errors     int64 `json:"errors"`
	Robots     int64 `json:"robots"`
	NonHTML    int64 `json:"non_html"`
	InFlight   int   `json:"in_flight"`
	// RateNow is URLs done per second over the last 5 s; RateAvg over the
	// run; BytesNow body bytes received per second over the last 5 s.
	RateNow  float64 `json:"rate_now"`
	RateAvg  float64 `json:"rate_avg"`
	BytesNow float64 `json:"bytes_now"`
	Bytes    int64   `json:"bytes"`
	// ETA is the estimated seconds until the queue is empty at the rate
	// it shrank over the last minute; -1 when it did not shrink.
	ETA float64 `json:"eta_s"`
	// Memory: the process's anonymous resident memory (RssAnon, Linux)
	// and the Go heap's live objects.
	RSSAnon int64 `json:"rss_anon"`
	GoHeap  int64 `json:"go_heap"`
	// Disk: the store's size, the free space on its filesystem and the
	// free space below which the crawl stops (-1: no threshold).
	DiskUsed int64 `json:"disk_used"`
	DiskFree int64 `json:"disk_free"`
	DiskStop int64 `json:"disk_stop"`
	// The URL filter: its false positives caught (nil: not counted),
	// the new URLs it admitted, and the rate its formula predicts now.
	FalsePositives *uint64 `json:"false_positives,omitempty"`
	FilterKeys     uint64  `json:"filter_keys"`
	PredictedFP    float64 `json:"predicted_fp"`
	TargetFP       float64 `json:"target_fp"`
	Capacity       uint64  `json:"capacity"`
	FilterVariant  string  `json:"filter_variant,omitempty"`
	// Continuous crawl.
	Refreshed      int64 `json:"refreshed"`
	NotModified    int64 `json:"not_modified"`
	Changed        int64 `json:"changed"`
	BehindSchedule int64 `json:"behind_schedule"`
	// The store's totals (as /v1/stats), from a reading at most a few
	// scans old.
	StorePages      int `json:"store_pages"`
	StoreURLs       int `json:"store_urls"`
	StoreDuplicates int `json:"store_duplicates"`
	StoreQueue      int `json:"store_queue"`
	StoreHosts      int `json:"store_hosts"`
}

// sample is one point of the history.
type sample struct {
	T                                               int64 // unix ms
	Queued, Fetched, Stored, Dups, Done, Errors     int64
	Bytes                                           int64
	Refreshed, NotModified, Changed, BehindSchedule int64
}

// history keeps the crawl's samples: the newest n at full resolution; when
// full, every other old sample is dropped so the whole crawl stays drawn.
type history struct {
	mu  sync.Mutex
	max int
	s   []sample
}

func newHistory(max int) *history { return &history{max: max} }

func (h *history) add(s sample) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if len(h.s) >= h.max {
		// thin the older half: keep every other sample
		half := len(h.s) / 2
		kept := h.s[:0]
		for i, x := range h.s {
			if i >= half || i%2 == 0 {
				kept = append(kept, x)
			}
		}
		h.s = kept
	}
	h.s = append(h.s, s)
}

func (h *history) all() []sample {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]sample(nil), h.s...)
}

// rate returns the change per second of f over the last d, from the
// samples (0 with fewer than two).
func (h *history) rate(d time.Duration, f func(sample) int64) float64 {
	h.mu.Lock()
	defer h.mu.Unlock()
	if len(h.s) < 2 {
		return 0
	}
	last := h.s[len(h.s)-1]
	first := last
	for i := len(h.s) - 2; i >= 0; i-- {
		first = h.s[i]
		if last.T-first.T >= d.Milliseconds() {
			break
		}
	}
	if last.T == first.T {
		return 0
	}
	return float64(f(last)-f(first)) / (float64(last.T-first.T) / 1000)
}

// sample reads the crawl every o.SampleEvery until ctx ends.
func (c *Console) sample(ctx context.Context) {
	t := time.NewTicker(c.o.SampleEvery)
	defer t.Stop()
	for {
		c.hist.add(c.takeSample())
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

func (c *Console) takeSample() sample {
	st := c.o.Crawl.Stats()
	b := c.o.Crawl.Breakdown()
	return sample{T: time.Now().UnixMilli(), Queued: st.Queued, Fetched: st.Fetched, Stored: st.Stored, Dups: st.Duplicates,
		Done: int64(st.PagesPerSecond*st.Seconds + 0.5), Errors: st.Errors, Bytes: b.Bytes,
		Refreshed: st.Refreshed, NotModified: st.NotModified, Changed: st.Changed, BehindSchedule: st.BehindSchedule}
}

// status reads everything the status view shows.
func (c *Console) status() Status {
	s := Status{Time: time.Now(), State: "store", ETA: -1, DiskStop: -1}
	if cr := c.o.Crawl; cr != nil {
		st := cr.Stats()
		s.State = cr.State()
		s.Elapsed = st.Seconds
		s.Fetched, s.Stored, s.Duplicates, s.Queued, s.Errors = st.Fetched, st.Stored, st.Duplicates, st.Queued, st.Errors
		s.Robots, s.NonHTML, s.InFlight = st.Robots, st.NonHTML, cr.InFlight()
		s.RateAvg = st.PagesPerSecond
		s.Refreshed, s.NotModified, s.Changed, s.BehindSchedule = st.Refreshed, st.NotModified, st.Changed, st.BehindSchedule
		s.FalsePositives = st.FalsePositives
		s.RateNow = c.hist.rate(5*time.Second, func(x sample) int64 { return x.Done })
		s.BytesNow = c.hist.rate(5*time.Second, func(x sample) int64 { return x.Bytes })
		s.Bytes = cr.Breakdown().Bytes
		if drain := -c.hist.rate(time.Minute, func(x sample) int64 { return x.Queued }); drain > 0 && s.Queued > 0 {
			s.ETA = float64(s.Queued) / drain
		} else if s.Queued == 0 {
			s.ETA = 0
		}
		if fs, ok := cr.FilterStats(); ok {
			s.FilterKeys, s.PredictedFP, s.TargetFP, s.Capacity, s.FilterVariant = fs.Keys, fs.PredictedFP, fs.TargetFP, fs.Capacity, fs.Variant
		}
	}
	s.RSSAnon = rssAnon()
	s.GoHeap = goHeap()
	if sp, err := c.o.Store.Space(); err == nil {
		s.DiskFree, s.DiskStop = sp.Free, sp.Need()
	}
	if st, err := c.store.get(); err == nil {
		s.DiskUsed = st.DiskBytes
		s.StorePages, s.StoreURLs, s.StoreDuplicates, s.StoreQueue, s.StoreHosts = st.Pages, st.URLs, st.Duplicates, st.Queue, st.Hosts
	}
	return s
}

// storeStats is the store's Stats through a storage.StatsCache.
type storeStats struct {
	db   *storage.DB
	once sync.Once
	c    *storage.StatsCache
}

func (s *storeStats) get() (storage.Stats, error) {
	s.once.Do(func() { s.c = &storage.StatsCache{DB: s.db} })
	return s.c.Get()
}

// rssAnon returns the process's RssAnon in bytes (0 where /proc is
// missing).
func rssAnon() int64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "RssAnon:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return kb << 10
		}
	}
	return 0
}

// goHeap returns the bytes of live and not yet swept heap objects.
func goHeap() int64 {
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return int64(s[0].Value.Uint64())
}

func (c *Console) statusPage(w http.ResponseWriter, r *http.Request) {
	c.render(w, r, "status", "Crawl status", c.status())
}

func (c *Console) statusJSON(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, c.status())
}

// historyJSON answers the samples as columns, as uPlot takes them:
// {"t":[unix s...],"queued":[...],"fetched":[...],"stored":[...],...}.
func (c *Console) historyJSON(w http.ResponseWriter, r *http.Request) {
	all := c.hist.all()
	cols := map[string][]float64{}
	for _, k := range []string{"t", "queued", "fetched", "stored", "refreshed", "not_modified", "changed", "behind_schedule"} {
		cols[k] = make([]float64, len(all))
	}
	for i, s := range all {
		cols["t"][i] = float64(s.T) / 1000
		cols["queued"][i] = float64(s.Queued)
		cols["fetched"][i] = float64(s.Fetched)
		cols["stored"][i] = float64(s.Stored)
		cols["refreshed"][i] = float64(s.Refreshed)
		cols["not_modified"][i] = float64(s.NotModified)
		cols["changed"][i] = float64(s.Changed)
		cols["behind_schedule"][i] = float64(s.BehindSchedule)
	}
	writeJSON(w, cols)
}

// events streams a Status every SampleEvery as server-sent events until
// the client goes away or the console's context ends.
func (c *Console) events(w http.ResponseWriter, r *http.Request) {
	rc := http.NewResponseController(w)
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	t := time.NewTicker(c.o.SampleEvery)
	defer t.Stop()
	fmt.Fprintf(w, "retry: 2000\n\n")
	for {
		// the server's WriteTimeout would cut the stream: extend it per event
		rc.SetWriteDeadline(time.Now().Add(30 * time.Second))
		b, _ := json.Marshal(c.status())
		if _, err := fmt.Fprintf(w, "data: %s\n\n", b); err != nil {
			return
		}
		if err := rc.Flush(); err != nil {
			return
		}
		select {
		case <-r.Context().Done():
			return
		case <-c.ctx.Done():
			return
		case <-t.C:
		}
	}
}

func writeJSON(w http.ResponseWriter, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.Write(append(b, '\n'))
}
