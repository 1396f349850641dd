package frontier

import (
	"container/heap"
	"context"
	"errors"
	"fmt"
	"net/url"
	"sync"
	"time"

	"github.com/bloomcrawl/bloomcrawl/internal/mapped"
)

// ErrExhausted is returned by Next when nothing is queued, nothing is being
// fetched and nothing is reserved: the crawl is complete.
var ErrExhausted = errors.New("frontier: exhausted")

// Entry is one queued URL.
type Entry struct {
	Seq      uint64 // assigned by Reserve (or read back from the store); > 0
	URL      string // canonical absolute URL
	Depth    int    // link distance from a seed (seeds are 0)
	Referrer string // canonical URL of the page the link was found on ("" for seeds)
	Hints    *Hints // what a sitemap said about the URL; nil for none
	// Queued is when Reserve or Refresh made the entry (zero for an entry
	// read back from the store): the start of its discovery-to-fetch delay.
	Queued time.Time
}

// Candidate is a URL offered to Reserve.
type Candidate struct {
	URL      string // canonical absolute URL (the URL filter key)
	Depth    int
	Referrer string
	Hints    *Hints // carried to the Entry
}

// Hints are what a sitemap said about a URL. The frontier carries them
// with the URL's entry and does not read them.
type Hints struct {
	Sitemap       bool      // the URL is a sitemap (or sitemap index) to read, not a page
	Probe         bool      // a sitemap guessed, not declared (a host's /sitemap.xml)
	LastMod       time.Time // the sitemap's <lastmod>
	NewsPublished time.Time // a Google News sitemap's <news:publication_date>
	NewsTitle     string    // and <news:title>
}

// urlFilter is the URL filter: TestAndAdd reports whether key was (or,
// for a probabilistic filter, appears to have been) added before, and adds it.
type urlFilter interface {
	TestAndAdd(key string) (seen bool)
}

// batchFilter is a urlFilter that can also test-and-add many keys in one
// call, overlapping their memory accesses (urlfilter's filters can): seen[i]
// must be what TestAndAdd(keys[i]) would return, called in order, so a key
// repeated within keys is new only once. Reserve uses it when Filter has it.
type batchFilter interface {
	TestAndAddBatch(keys []string, seen []bool)
}

// oneByOne gives a urlFilter without a batch method the batch form.
type oneByOne struct{ urlFilter }

func (s oneByOne) TestAndAddBatch(keys []string, seen []bool) {
	for i, k := range keys {
		seen[i] = s.TestAndAdd(k)
	}
}

// queueStore is where the queue lives beyond the in-memory window: pending
// entries with Seq > after, in Seq order, at most limit of them.
type queueStore interface {
	QueueScan(after uint64, limit int) ([]Entry, error)
}

// DefaultRecentBytes is the Options.RecentBytes a crawl uses unless
// configured otherwise (configs reads it for dedup.verify_cache_bytes):
// 128 MiB.
const DefaultRecentBytes = 128 << 20

// Options configures a Frontier. The zero value of every field is its
// default, except RecentBytes, whose zero is a cache of no bytes.
type Options struct {
	// Confirm, if set, makes the URL filter exact: a "seen" answer is
	// believed only if the URL was admitted by this frontier and not yet
	// published, is among the URLs published last (RecentBytes), or Confirm's
	// store knows it (one Known call per Reserve run, with every
	// candidate of the run that needs it); otherwise it was a false
	// positive of the filter, and the URL is admitted and counted
	// (Stats.FalsePositives). nil trusts the URL filter (a Bloom false
	// positive then drops a URL).
	Confirm knownStore
	// RecentBytes is the memory in which Confirm remembers the URLs
	// published (and confirmed) last, exactly, so that links to them need
	// no store read; the oldest are forgotten first. A URL costs 8 bytes
	// plus its path (what follows scheme://host:port, which is stored once
	// for its URLs, among the 8,192 origins used last) and 11 bytes of hash
	// table: DefaultRecentBytes holds about 3,200,000 URLs with 20-byte
	// paths, at most about 4,170,000. 0 (or anything under 1 KiB)
	// remembers none: the size means the same here as in the crawl's
	// config (dedup.verify_cache_bytes), whose default is
	// DefaultRecentBytes.
	RecentBytes int
	// SpillDir, if set, is a directory where Confirm's cache of recent
	// URLs keeps its arrays, in an unlinked memory-mapped file (page
	// cache, like the store's tables, rather than Go heap; see
	// internal/mapped). Close releases them. "" keeps them on the heap.
	SpillDir string
	// Filter is the URL filter every candidate is tested against. Required.
	// If it also has TestAndAddBatch (urlfilter's filters do), Reserve tests
	// each call's candidates through it in one batch.
	Filter urlFilter
	// Store holds the queue beyond the window. nil keeps the whole queue in
	// memory (Window is then ignored).
	Store queueStore
	// Window is the number of queued entries kept in memory. Default 50,000.
	Window int
	// PerHostParallelism is how many entries of one host may be handed out
	// at once. Default 2.
	PerHostParallelism int
	// Delay is the minimum time between two hand-outs for one host.
	// Default 0.
	Delay time.Duration
	// MaxDepth: candidates deeper than this are dropped before the filter test.
	// Negative means unlimited. Default 0 = seeds only (as in configs).
	MaxDepth int
	// MaxPerHost caps the URLs ever queued per host (0 = unlimited).
	MaxPerHost int
	// MaxTotal caps the URLs ever queued (0 = unlimited).
	MaxTotal int
	// HoldNewHosts hands out a host's entries one at a time until
	// SetHostDelay has been called for the host, so that a delay learnt
	// while fetching the host's first entry (robots.txt's Crawl-delay)
	// applies from its second request on. Default false.
	HoldNewHosts bool
	// Continuous makes Next wait instead of returning ErrExhausted when
	// nothing is queued: more entries come from Refresh (a continuous
	// crawl). Next then returns only an entry, ctx.Err() or, after Close,
	// ErrExhausted.
	Continuous bool
}

// Frontier is a concurrent-safe crawl queue. See the package doc.
type Frontier struct {
	o      Options
	filter batchFilter // o.Filter, or o.Filter one by one
	conf   *confirmer  // nil without Options.Confirm
	// arrays holds conf's cache (Options.SpillDir); nil: the heap
	arrays *mapped.File

	mu       sync.Mutex
	changed  chan struct{} // closed and replaced on every state change
	hosts    map[string]*hostQueue
	ready    hostHeap // hosts that have entries and may be handed one now
	mem      map[uint64]struct{}
	inflight map[uint64]string // seq → the host it holds ("" between two hops: Hop)
	pending  map[uint64]struct{}
	nextSeq  uint64
	queued   map[string]int // host → URLs ever queued (MaxPerHost)
	total    int            // URLs ever queued (MaxTotal)
	// Candidates that passed the limit checks and are being tested by a
	// Reserve (only counted when MaxTotal or MaxPerHost is set); tested is
	// signalled when a Reserve has counted the outcome of its candidates.
	testing     int
	testingHost map[string]int
	tested      *sync.Cond

	// spillFrom is the lowest sequence number that may be in the store but
	// not in memory; 0 when the store holds nothing beyond memory.
	spillFrom    uint64
	scanning     bool
	doneInScan   map[uint64]struct{}
	spilledInRun uint64 // lowest seq spilled while a scan was running
	closed       bool
	err          error // sticky store error from a refill
	holds        int   // Hold calls not yet released

	// hostDelay holds the hosts SetHostDelay was called for: their delay
	// when it is longer than Options.Delay, else 0.
	hostDelay map[string]time.Duration
	drained   map[string]bool // hosts whose entries go out at once (Drain)
}

type hostQueue struct {
	name     string
	q        []Entry
	active   int
	readyAt  time.Time
	handedAt time.Time // last hand-out
	index    int       // in ready heap; -1 when not there
	timer    *time.Timer
	hops     int // Hop calls waiting for this host: Next hands none of its entries out meanwhile
}

// New returns an empty frontier.
func New(o Options) (*Frontier, error) {
	if o.Filter == nil {
		return nil, errors.New("frontier: Options.Filter is required")
	}
	if o.Window <= 0 {
		o.Window = 50_000
	}
	if o.PerHostParallelism <= 0 {
		o.PerHostParallelism = 2
	}
	if o.Delay < 0 {
		return nil, fmt.Errorf("frontier: negative Delay %v", o.Delay)
	}
	filter, ok := o.Filter.(batchFilter)
	if !ok {
		filter = oneByOne{o.Filter}
	}
	f := &Frontier{
		o:           o,
		filter:      filter,
		testingHost: map[string]int{},
		changed:     make(chan struct{}),
		hosts:       map[string]*hostQueue{},
		mem:         map[uint64]struct{}{},
		inflight:    map[uint64]string{},
		pending:     map[uint64]struct{}{},
		queued:      map[string]int{},
		hostDelay:   map[string]time.Duration{},
		nextSeq:     1,
	}
	f.tested = sync.NewCond(&f.mu)
	if o.Confirm != nil {
		if o.SpillDir != "" && o.RecentBytes > 0 {
			var err error
			if f.arrays, err = mapped.Create(o.SpillDir); err != nil {
				return nil, fmt.Errorf("frontier: %w", err)
			}
		}
		f.conf = newConfirmer(o.Confirm, o.RecentBytes, f.arrays)
	}
	return f, nil
}

// Resume prepares the frontier for a store that already holds pending
// entries: it scans the whole stored queue once, adds each entry's URL to
// the URL filter, counts it against MaxPerHost/MaxTotal, and continues
// numbering after the highest sequence number. Entries are then read back
// through Next as usual. It returns the number of pending entries. Call it
// before any other method but Restore.
func (f *Frontier) Resume(ctx context.Context) (int, error) {
	if f.o.Store == nil {
		return 0, errors.New("frontier: Resume needs Options.Store")
	}
	var after uint64
	n := 0
	for {
		if err := ctx.Err(); err != nil {
			return n, err
		}
		batch, err := f.o.Store.QueueScan(after, 10_000)
		if err != nil {
			return n, fmt.Errorf("frontier: resume: scan queue after %d: %w", after, err)
		}
		for _, e := range batch {
			f.o.Filter.TestAndAdd(e.URL)
			f.mu.Lock()
			if n == 0 {
				f.spillFrom = e.Seq
			}
			f.account(hostOf(e.URL))
			if e.Seq >= f.nextSeq {
				f.nextSeq = e.Seq + 1
			}
			f.mu.Unlock()
			after = e.Seq
			n++
		}
		if len(batch) < 10_000 {
			return n, nil
		}
	}
}

// Restore adds a URL the crawl already recorded (a URL record read back
// from the store when resuming) to the URL filter and counts it against its
// host's MaxPerHost budget and MaxTotal.
func (f *Frontier) Restore(rawURL string) {
	f.o.Filter.TestAndAdd(rawURL)
	f.mu.Lock()
	f.account(hostOf(rawURL))
	f.mu.Unlock()
}

// Claim admits a URL that is recorded without being queued (a redirect
// alias of a fetched page): if the URL filter has not seen it (confirmed as
// in Reserve when Options.Confirm is set), Claim adds it, counts it
// against MaxPerHost/MaxTotal and reports true; otherwise it reports false
// and the caller does not record it. With Options.Confirm, call Release
// with the claimed URLs once the commit recording them has returned.
func (f *Frontier) Claim(ctx context.Context, rawURL string) (bool, error) {
	seen := []bool{false}
	if err := f.testAndAdd(ctx, []string{rawURL}, seen); err != nil {
		return false, err
	}
	if seen[0] {
		return false, nil
	}
	f.mu.Lock()
	f.account(hostOf(rawURL))
	f.mu.Unlock()
	return true, nil
}

// Release ends the hold Claim put on urls, once the commit that recorded
// them has returned. Without Options.Confirm it does nothing.
func (f *Frontier) Release(urls []string) {
	if f.conf != nil {
		f.conf.release(urls, true)
	}
}

// testAndAdd tests keys against the URL filter, exactly when Options.Confirm
// is set.
func (f *Frontier) testAndAdd(ctx context.Context, keys []string, seen []bool) error {
	if f.conf == nil {
		f.filter.TestAndAddBatch(keys, seen)
		return nil
	}
	return f.conf.testAndAdd(ctx, f.filter, keys, seen)
}

func (f *Frontier) account(host string) {
	f.queued[host]++
	f.total++
}

// Reserve tests each candidate, in order, against the URL filter and
// assigns a sequence number to every one not seen before. Candidates deeper
// than MaxDepth or beyond MaxPerHost/MaxTotal are dropped without a test.
// It returns the new entries and the URLs tested, in order (the URL trace).
// The new entries are handed out only after Publish. With Options.Confirm,
// "seen" answers are confirmed (see Options.Confirm) and the error is the
// store's, with no entries reserved from the run that failed.
//
// The candidates are tested in batches (one batch for the whole call unless
// a limit is close): a run of candidates goes to the URL filter together
// as long as each would pass the limit checks even if every candidate
// before it in the run, and every candidate other Reserve calls are
// testing, turned out new. The first candidate that might not pass ends the
// run and is checked again once the run's new entries are counted (or, if
// only other calls' candidates are in the way, once they are counted). So
// one call gives exactly the entries, trace and filter state of testing
// its candidates one by one, and concurrent calls never queue more than
// MaxTotal or MaxPerHost.
func (f *Frontier) Reserve(ctx context.Context, cands []Candidate) (fresh []Entry, tested []string, err error) {
	limited := f.o.MaxTotal > 0 || f.o.MaxPerHost > 0
	hosts := make([]string, len(cands))
	for i, c := range cands {
		if !f.tooDeep(c) {
			hosts[i] = hostOf(c.URL)
		}
	}
	var run []int
	var seen []bool
	now := time.Now()
	for i := 0; i < len(cands); {
		run = run[:0]
		f.mu.Lock()
		for ; i < len(cands); i++ {
			if f.tooDeep(cands[i]) {
				continue
			}
			host := hosts[i]
			if limited && f.overLimit(host, f.testing, f.testingHost[host]) {
				if len(run) > 0 {
					break // check it again once the run is counted
				}
				if f.overLimit(host, 0, 0) {
					continue // over a limit already: dropped
				}
				// Over only if other calls' candidates turn out new: wait
				// for their outcome, then check again.
				f.tested.Wait()
				i--
				continue
			}
			run = append(run, i)
			if limited {
				f.hold(host, 1)
			}
		}
		f.mu.Unlock()
		if len(run) == 0 {
			continue
		}
		first := len(tested)
		for _, ci := range run {
			tested = append(tested, cands[ci].URL)
		}
		if cap(seen) < len(run) {
			seen = make([]bool, len(run))
		}
		seen = seen[:len(run)]
		err = f.testAndAdd(ctx, tested[first:], seen)
		f.mu.Lock()
		if limited {
			f.tested.Broadcast()
		}
		for j, ci := range run {
			c, host := cands[ci], hosts[ci]
			if limited {
				f.hold(host, -1)
			}
			if seen[j] || err != nil {
				continue
			}
			f.account(host)
			e := Entry{Seq: f.nextSeq, URL: c.URL, Depth: c.Depth, Referrer: c.Referrer, Hints: c.Hints, Queued: now}
			f.nextSeq++
			f.pending[e.Seq] = struct{}{}
			fresh = append(fresh, e)
		}
		f.mu.Unlock()
		if err != nil {
			f.Cancel(fresh)
			return nil, tested, err
		}
	}
	return fresh, tested, nil
}

// Refresh reserves an entry for a URL that is fetched again (a scheduled
// refresh of a continuous crawl): it is not tested against the URL filter
// (the URL is in it) nor counted against MaxPerHost/MaxTotal/MaxDepth.
// Publish it after committing it, like Reserve's entries; it then waits
// for its host's politeness like any other entry.
func (f *Frontier) Refresh(c Candidate) Entry {
	f.mu.Lock()
	defer f.mu.Unlock()
	e := Entry{Seq: f.nextSeq, URL: c.URL, Depth: c.Depth, Referrer: c.Referrer, Hints: c.Hints, Queued: time.Now()}
	f.nextSeq++
	f.pending[e.Seq] = struct{}{}
	return e
}

func (f *Frontier) tooDeep(c Candidate) bool { return f.o.MaxDepth >= 0 && c.Depth > f.o.MaxDepth }

// overLimit reports whether a candidate of host is beyond MaxTotal or
// MaxPerHost if extra (all hosts) and extraHost (this host) more URLs
// than counted so far were queued. Holds f.mu.
func (f *Frontier) overLimit(host string, extra, extraHost int) bool {
	return (f.o.MaxTotal > 0 && f.total+extra >= f.o.MaxTotal) ||
		(f.o.MaxPerHost > 0 && f.queued[host]+extraHost >= f.o.MaxPerHost)
}

// hold counts (d = 1) or uncounts (d = −1) a candidate of host being
// tested. Holds f.mu.
func (f *Frontier) hold(host string, d int) {
	f.testing += d
	if f.testingHost[host] += d; f.testingHost[host] == 0 {
		delete(f.testingHost, host)
	}
}

// Publish makes reserved entries available to Next. Call it after the
// entries are committed to the store. Entries that do not fit the window
// stay in the store only, to be read back later.
func (f *Frontier) Publish(entries []Entry) {
	if len(entries) == 0 {
		return
	}
	f.release(entries, true)
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, e := range entries {
		if _, ok := f.pending[e.Seq]; !ok {
			continue
		}
		delete(f.pending, e.Seq)
		f.push(e)
	}
	f.broadcast()
}

// Cancel drops reserved entries that could not be committed. Their URLs
// stay in the URL filter: the caller is expected to stop the crawl.
func (f *Frontier) Cancel(entries []Entry) {
	f.release(entries, false)
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, e := range entries {
		delete(f.pending, e.Seq)
	}
	f.broadcast()
}

// release ends the confirmer's hold on the entries' URLs.
func (f *Frontier) release(entries []Entry, committed bool) {
	if f.conf == nil || len(entries) == 0 {
		return
	}
	urls := make([]string, len(entries))
	for i, e := range entries {
		urls[i] = e.URL
	}
	f.conf.release(urls, committed)
}

// push adds e to memory, or records it as spilled when the window is full
// or older entries wait in the store: an entry must not be handed out
// before entries queued earlier, or the crawl is no longer breadth-first
// and a page's depth (which MaxDepth limits) is the length of whatever path
// reached it first, not its distance from a seed.
func (f *Frontier) push(e Entry) {
	if f.o.Store != nil && (len(f.mem) >= f.o.Window || f.spillFrom != 0 || f.scanning) {
		f.spill(e.Seq)
		return
	}
	f.toMemory(e)
}

// toMemory appends e to its host's queue in memory.
func (f *Frontier) toMemory(e Entry) {
	f.mem[e.Seq] = struct{}{}
	h := f.hosts[hostOf(e.URL)]
	if h == nil {
		h = &hostQueue{name: hostOf(e.URL), index: -1}
		f.hosts[h.name] = h
	}
	h.q = append(h.q, e)
	f.fix(h, time.Now())
}

func (f *Frontier) spill(seq uint64) {
	if f.spillFrom == 0 || seq < f.spillFrom {
		f.spillFrom = seq
	}
	if f.scanning && (f.spilledInRun == 0 || seq < f.spilledInRun) {
		f.spilledInRun = seq
	}
}

// fix puts h in or out of the ready heap according to its state.
func (f *Frontier) fix(h *hostQueue, now time.Time) {
	limit := f.parallelism(h.name)
	eligible := len(h.q) > 0 && h.active < limit && !now.Before(h.readyAt) && h.hops == 0
	switch {
	case eligible && h.index < 0:
		heap.Push(&f.ready, h)
	case eligible:
		heap.Fix(&f.ready, h.index)
	case h.index >= 0:
		heap.Remove(&f.ready, h.index)
	}
	if !eligible && len(h.q) > 0 && h.active < limit && h.timer == nil && now.Before(h.readyAt) {
		// Waiting for the delay only: wake up when it has passed.
		h.timer = time.AfterFunc(h.readyAt.Sub(now), func() {
			f.mu.Lock()
			h.timer = nil
			f.fix(h, time.Now())
			f.broadcast()
			f.mu.Unlock()
		})
	}
	if len(h.q) == 0 && h.active == 0 && h.hops == 0 && h.timer == nil && !now.Before(h.readyAt) {
		delete(f.hosts, h.name)
	}
}

// SetHostDelay sets the minimum time between two requests to host
// (host[:port], as in the entries' URLs). A delay longer than
// Options.Delay replaces it for that host, and the host then gets one
// request at a time, the delay counted from the end of each request (from
// Done): requests to it start at least d apart. A shorter one leaves
// Options.Delay. Either way the host counts as known for HoldNewHosts.
// Safe for concurrent use; it lasts for the frontier's life.
func (f *Frontier) SetHostDelay(host string, d time.Duration) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if d <= f.o.Delay {
		d = 0
	}
	if f.drained[host] {
		return
	}
	f.hostDelay[host] = d
	if h := f.hosts[host]; h != nil {
		if d > 0 {
			h.readyAt = maxTime(h.readyAt, h.handedAt.Add(d))
		}
		f.fix(h, time.Now())
		f.broadcast()
	}
}

// HostDelay returns the delay in force for host: its SetHostDelay delay
// when that is longer than Options.Delay, else Options.Delay.
func (f *Frontier) HostDelay(host string) time.Duration {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.delay(host)
}

// delay is HostDelay. Holds f.mu.
func (f *Frontier) delay(host string) time.Duration {
	if f.drained[host] {
		return 0
	}
	if d := f.hostDelay[host]; d > 0 {
		return d
	}
	return f.o.Delay
}

// parallelism returns how many entries of host may be in flight. Holds f.mu.
func (f *Frontier) parallelism(host string) int {
	if f.drained[host] {
		return drainParallelism
	}
	d, known := f.hostDelay[host]
	if d > 0 || (f.o.HoldNewHosts && !known) {
		return 1
	}
	return f.o.PerHostParallelism
}

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

func (f *Frontier) broadcast() {
	close(f.changed)
	f.changed = make(chan struct{})
}

// Next blocks until an entry may be fetched and returns it; the caller must
// call Done with it once its result is committed. It returns ErrExhausted
// when the queue is empty and nothing is in flight or reserved (never,
// with Options.Continuous, before Close), ctx.Err()
// when ctx ends, or an error from the store.
func (f *Frontier) Next(ctx context.Context) (Entry, error) {
	for {
		f.mu.Lock()
		if f.closed {
			f.mu.Unlock()
			return Entry{}, ErrExhausted
		}
		if f.err != nil {
			err := f.err
			f.mu.Unlock()
			return Entry{}, err
		}
		if f.ready.Len() > 0 {
			now := time.Now()
			h := f.ready[0]
			e := h.q[0]
			h.q[0] = Entry{}
			h.q = h.q[1:]
			h.active++
			h.handedAt = now
			if d := f.delay(h.name); d > 0 {
				h.readyAt = now.Add(d)
			}
			f.fix(h, now)
			delete(f.mem, e.Seq)
			f.inflight[e.Seq] = h.name
			refill := f.needScan(f.refillBelow())
			f.mu.Unlock()
			if refill {
				// A failed refill is reported by the next call; e is good.
				f.scan()
			}
			return e, nil
		}
		if !f.o.Continuous && len(f.mem) == 0 && f.spillFrom == 0 && len(f.inflight) == 0 && len(f.pending) == 0 && !f.scanning && f.holds == 0 {
			f.mu.Unlock()
			return Entry{}, ErrExhausted
		}
		if f.needScan(f.refillBelow()) {
			// Nothing ready in memory (every host waits for its delay or
			// its parallelism): read on in the store rather than let the
			// hosts whose entries wait there idle.
			f.mu.Unlock()
			if err := f.scan(); err != nil {
				return Entry{}, err
			}
			continue
		}
		wait := f.changed
		f.mu.Unlock()
		select {
		case <-wait:
		case <-ctx.Done():
			return Entry{}, ctx.Err()
		}
	}
}

// refillBelow is the number of entries in memory under which spilled
// entries are read back: an eighth of the window drained. New entries wait
// in the store behind older ones (push), so memory is filled only by
// scans once anything is spilled; refilling early keeps hosts whose
// entries are all in the store from idling while memory holds entries of
// hosts that cannot be handed one (Crawl-delay), at one scan per eighth
// of a window handed out.
func (f *Frontier) refillBelow() int { return f.o.Window - f.o.Window/8 }

// needScan reports whether memory holds fewer than low entries while more
// are spilled in the store, and no scan runs. Holds f.mu.
func (f *Frontier) needScan(low int) bool {
	if f.spillFrom == 0 || f.scanning || len(f.mem) >= low {
		return false
	}
	f.scanning = true
	f.doneInScan = map[uint64]struct{}{}
	f.spilledInRun = 0
	return true
}

// scan reads spilled entries back from the store until the window is full.
func (f *Frontier) scan() error {
	f.mu.Lock()
	from := f.spillFrom
	room := f.o.Window - len(f.mem)
	f.mu.Unlock()
	limit := room
	if limit < 64 {
		limit = 64
	}
	batch, err := f.o.Store.QueueScan(from-1, limit)

	f.mu.Lock()
	defer f.mu.Unlock()
	defer f.broadcast()
	f.scanning = false
	if err != nil {
		f.err = fmt.Errorf("frontier: read queue after %d: %w", from-1, err)
		return f.err
	}
	next := uint64(0) // lowest seq not yet read back
	for i, e := range batch {
		if len(f.mem) >= f.o.Window {
			next = e.Seq
			break
		}
		_, inMem := f.mem[e.Seq]
		_, inFlight := f.inflight[e.Seq]
		_, isPending := f.pending[e.Seq]
		_, isDone := f.doneInScan[e.Seq]
		if !inMem && !inFlight && !isPending && !isDone {
			f.toMemory(e)
		}
		if i == len(batch)-1 && len(batch) == limit {
			next = e.Seq + 1
		}
	}
	if f.spilledInRun != 0 && (next == 0 || f.spilledInRun < next) {
		next = f.spilledInRun
	}
	f.spillFrom = next
	f.doneInScan = nil
	return nil
}

// Done releases an entry handed out by Next. Call it after the entry's
// result is committed (its seq dequeued), or after deciding to leave it
// queued for the next run (e.g. on shutdown): then it stays in the store
// and is not handed out again by this frontier.
func (f *Frontier) Done(e Entry) {
	f.mu.Lock()
	defer f.mu.Unlock()
	h, ok := f.handBack(e)
	if !ok {
		return
	}
	if f.doneInScan != nil {
		f.doneInScan[e.Seq] = struct{}{}
	}
	if h != nil {
		f.endRequest(h, time.Now())
	}
	f.broadcast()
}

// endRequest ends a request to h's host at now: a Crawl-delay counts from
// the end of the previous request. Holds f.mu.
func (f *Frontier) endRequest(h *hostQueue, now time.Time) {
	if d := f.hostDelay[h.name]; d > 0 && !f.drained[h.name] {
		h.readyAt = maxTime(h.readyAt, now.Add(d))
	}
	f.fix(h, now)
}

// handBack ends e's hand-out and returns the queue of the host it holds
// (made again if it was dropped meanwhile; nil between two hops); ok is
// false when e is not handed out. f.mu must be held.
func (f *Frontier) handBack(e Entry) (h *hostQueue, ok bool) {
	host, ok := f.inflight[e.Seq]
	if !ok {
		return nil, false
	}
	delete(f.inflight, e.Seq)
	if host == "" {
		return nil, true
	}
	h = f.host(host)
	h.active--
	return h, true
}

// host returns host's queue, made if there is none. f.mu must be held.
func (f *Frontier) host(name string) *hostQueue {
	h := f.hosts[name]
	if h == nil {
		h = &hostQueue{name: name, index: -1}
		f.hosts[name] = h
	}
	return h
}

// Fetched ends e's request to the host it holds, as Hop does before it
// waits (its Crawl-delay counted from now), while e stays handed out
// until Done: the host may be sent its next request while e's result is
// still being decided and committed. It does nothing when e holds no
// host.
func (f *Frontier) Fetched(e Entry) {
	f.mu.Lock()
	defer f.mu.Unlock()
	host, ok := f.inflight[e.Seq]
	if !ok || host == "" {
		return
	}
	h := f.host(host)
	h.active--
	f.inflight[e.Seq] = ""
	f.endRequest(h, time.Now())
	f.broadcast()
}

// Hop moves e, handed out by Next, to host for the next request of its
// fetch (a redirect to host): the host e holds is released as Done
// releases it (its Crawl-delay counted from now), then Hop blocks until
// host may be sent a request under the rules Next follows (its delay or
// Crawl-delay since its last request, and its parallelism), and holds it
// for e; Done (or Defer) releases it. A hop to e's own host waits for that
// host's delay too. While a Hop waits, Next hands out none of host's
// queued entries, so redirects are not starved by the host's own queue.
// e holds one host at a time, so two fetches redirecting to each other's
// hosts cannot wait on each other. On ctx's end it returns ctx.Err() with
// e holding no host (Done still follows).
func (f *Frontier) Hop(ctx context.Context, e Entry, host string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	cur, ok := f.inflight[e.Seq]
	if !ok {
		return fmt.Errorf("frontier: Hop of entry %d, not handed out", e.Seq)
	}
	now := time.Now()
	if cur != "" {
		h := f.host(cur)
		h.active--
		f.inflight[e.Seq] = ""
		f.endRequest(h, now)
		f.broadcast()
	}
	for {
		h := f.host(host)
		now = time.Now()
		if h.active < f.parallelism(host) && !now.Before(h.readyAt) {
			h.active++
			h.handedAt = now
			if d := f.delay(host); d > 0 {
				h.readyAt = now.Add(d)
			}
			f.inflight[e.Seq] = host
			f.fix(h, now)
			return nil
		}
		var timer <-chan time.Time
		if now.Before(h.readyAt) {
			t := time.NewTimer(h.readyAt.Sub(now))
			defer t.Stop()
			timer = t.C
		}
		h.hops++
		f.fix(h, now)
		wait := f.changed
		f.mu.Unlock()
		var err error
		select {
		case <-wait:
		case <-timer:
		case <-ctx.Done():
			err = ctx.Err()
		}
		f.mu.Lock()
		h.hops--
		f.fix(h, time.Now())
		if err != nil {
			f.broadcast()
			return err
		}
	}
}

// Defer puts e, handed out by Next, back at the head of its host's queue
// and holds the whole host until until: none of the host's entries is
// handed out before then (a host whose robots.txt cannot be read yet). It
// ends e's hand-out as Done does (releasing the host a Hop moved it to);
// a later Done for e does nothing.
func (f *Frontier) Defer(e Entry, until time.Time) {
	f.mu.Lock()
	defer f.mu.Unlock()
	h, ok := f.handBack(e)
	if !ok {
		return
	}
	now := time.Now()
	home := f.host(hostOf(e.URL))
	if h != nil && h != home {
		f.endRequest(h, now)
	}
	home.q = append([]Entry{e}, home.q...)
	f.mem[e.Seq] = struct{}{}
	home.readyAt = maxTime(home.readyAt, until)
	f.fix(home, now)
	f.broadcast()
}

// Hold keeps Next from returning ErrExhausted until release is called
// (once; later calls do nothing): a caller that will still Reserve and
// Publish entries coming from elsewhere (a cluster node's feeder) holds the
// frontier open while its queue is empty.
func (f *Frontier) Hold() (release func()) {
	f.mu.Lock()
	f.holds++
	f.mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			f.mu.Lock()
			defer f.mu.Unlock()
			f.holds--
			f.broadcast()
		})
	}
}

// Close makes every current and later Next call return ErrExhausted and
// stops the delay timers. Entries stay where they are (in the store). With
// Options.SpillDir it also releases the cache of recent URLs (a later
// Reserve confirms against the store alone).
func (f *Frontier) Close() {
	f.mu.Lock()
	f.closed = true
	for _, h := range f.hosts {
		if h.timer != nil {
			h.timer.Stop()
		}
	}
	f.broadcast()
	f.mu.Unlock()
	if f.arrays != nil {
		f.conf.forget()
		f.arrays.Close()
	}
}

// Stats is a snapshot of the frontier's counters.
type Stats struct {
	InMemory int  // entries queued in memory
	InFlight int  // entries handed out and not Done
	Reserved int  // entries reserved and not published
	Hosts    int  // hosts with queued or in-flight entries
	Spilled  bool // more entries wait in the store

	// With Options.Confirm: the URL filter's "seen" answers the store did
	// not know (false positives, admitted), the store read batches made and
	// URLs looked up to confirm the others, and the "seen" answers
	// confirmed in memory (held or recent URLs) with no store read.
	FalsePositives, ConfirmReads, ConfirmKeys, RecentHits uint64
}

// Stats returns the current counters.
func (f *Frontier) Stats() Stats {
	f.mu.Lock()
	defer f.mu.Unlock()
	s := Stats{InMemory: len(f.mem), InFlight: len(f.inflight), Reserved: len(f.pending),
		Hosts: len(f.hosts), Spilled: f.spillFrom != 0}
	if c := f.conf; c != nil {
		s.FalsePositives, s.ConfirmReads = c.falsePositives.Load(), c.reads.Load()
		s.ConfirmKeys, s.RecentHits = c.keys.Load(), c.recentHits.Load()
	}
	return s
}

// hostOf returns the host[:port] of an absolute URL ("" if it has none).
func hostOf(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return ""
	}
	return u.Host
}

// hostHeap orders hosts by the sequence number of their first entry.
type hostHeap []*hostQueue

func (h hostHeap) Len() int           { return len(h) }
func (h hostHeap) Less(i, j int) bool { return h[i].q[0].Seq < h[j].q[0].Seq }
func (h hostHeap) Swap(i, j int) {
	h[i], h[j] = h[j], h[i]
	h[i].index = i
	h[j].index = j
}
func (h *hostHeap) Push(x any) {
	q := x.(*hostQueue)
	q.index = len(*h)
	*h = append(*h, q)
}
func (h *hostHeap) Pop() any {
	old := *h
	q := old[len(old)-1]
	old[len(old)-1] = nil
	q.index = -1
	*h = old[:len(old)-1]
	return q
}
