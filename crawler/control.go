package crawler

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"mime"
	"net/url"
	"regexp"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gocolly/colly/v2"

	"github.com/bloomcrawl/bloomcrawl/frontier"
	"github.com/bloomcrawl/bloomcrawl/storage"
	"github.com/bloomcrawl/bloomcrawl/urlfilter"
)

// The crawl's control surface, for an operator watching it (the web
// console): pause, resume and stop; URL exclusions added and removed while
// it runs; and what it is doing per host, per status code and content
// type, and the URLs it failed or skipped lately. Everything here is safe
// to call from any goroutine during Run.

// ReasonExcluded is the reason of the URL record written for a queued URL
// that an exclusion (AddExclusion) took out of the queue.
const ReasonExcluded = "excluded"

// ExclusionsMetaKey is the store's meta key under which the exclusions are
// kept (a JSON array of patterns), so that a resumed crawl keeps them.
const ExclusionsMetaKey = "crawl/exclusions"

// Crawl states, as State reports them.
const (
	StateStarting  = "starting"  // Run has not yet rebuilt its state
	StateRunning   = "running"   // fetching
	StatePaused    = "paused"    // Pause: no new fetch starts
	StateIdle      = "idle"      // continuous crawl waiting for the next refresh: nothing queued, nothing in flight
	StateFinishing = "finishing" // stopping (Stop or the caller's ctx): in-flight fetches are finishing
	StateFinished  = "finished"  // Run has returned
)

// Skip is a URL the crawl failed to fetch or chose not to fetch.
type Skip struct {
	URL    string
	Reason string // SkipError, SkipRobots, SkipScope, SkipTooLarge, SkipExcluded, SkipType
	Detail string // the error, or the rule that applied
	Status int    // HTTP status (0: none)
	At     time.Time
}

// Skip reasons.
const (
	SkipError    = "error"     // a network error, an HTTP status >= 400, an undecodable page
	SkipRobots   = "robots"    // disallowed by robots.txt
	SkipScope    = "scope"     // a link out of scope (scope.*: hosts, exclude, depth, length)
	SkipTooLarge = "too-large" // a body over fetch.max_body_bytes
	SkipExcluded = "excluded"  // an exclusion added while the crawl runs
	SkipType     = "type"      // a content type not parsed (fetch.content_types)
)

// skipsPerReason is how many of the latest skips Skipped keeps per reason.
const skipsPerReason = 50

// HostState is what the crawl knows about one host now.
type HostState struct {
	frontier.HostState
	Fetched int64 // responses received this run
	Errors  int64 // failed fetches this run (SkipError, SkipTooLarge)
	Bytes   int64 // body bytes received this run
	// Robots is the state of the host's robots.txt: "read", "reading",
	// "unreachable: CAUSE", or "" (not read: not obeyed, or no fetch yet).
	Robots string
	// Throttled reports whether adaptive politeness slowed the host down
	// (its delay above politeness.delay and robots.txt's Crawl-delay) or
	// set it aside.
	Throttled bool
}

// Breakdown counts this run's responses by HTTP status code and by content
// type (the media type, without parameters; "" when none was sent).
type Breakdown struct {
	Status      map[int]int64
	ContentType map[string]int64
	Bytes       int64 // body bytes received
	// OtherHosts sums the counters of the hosts that Hosts no longer
	// counts one by one (Options.HostCounters).
	OtherHosts OtherHosts
}

// DefaultHostCounters is Options.HostCounters' default.
const DefaultHostCounters = 1000

// OtherHosts are the fetch counters (HostState's) of the hosts pushed out
// of the per-host counters: the crawl counts at most Options.HostCounters
// hosts one by one. When a host not counted yet is fetched and the table
// is full, the host with the lowest Fetched + Errors (the one that came
// latest, among equals) leaves it and its counters are added
// here. So the hosts kept are those with the most fetches, give or take
// the latest comer; a host that leaves and is fetched again starts from
// zero, its earlier counters staying here. Every fetch is counted once,
// by its host or here.
type OtherHosts struct {
	Hosts   int64 // hosts pushed out (a host pushed out twice counts twice)
	Fetched int64
	Errors  int64
	Bytes   int64
}

// Exclusion is a pattern added while the crawl runs: queued URLs it
// matches are taken out of the queue unfetched.
type Exclusion struct {
	Pattern string // a Go regular expression, matched anywhere in the canonical URL
	Matched int64  // URLs it took out of the queue this run
	re      *regexp.Regexp
	n       *atomic.Int64
}

// control is the control surface's state, embedded in Crawler.
type control struct {
	pauseMu sync.Mutex
	resumed chan struct{} // non-nil while paused; closed by Resume

	stopMu  sync.Mutex
	stop    context.CancelFunc // cancels Run's context (nil outside Run)
	stopped bool               // Stop called
	ended   <-chan struct{}    // Run's context's Done: Stop, or the caller's cancel

	state    atomic.Value // string: StateStarting..StateFinished
	inflight atomic.Int64

	exclMu sync.Mutex                  // serializes changes (and their store writes)
	excl   atomic.Pointer[[]Exclusion] // read on every entry without a lock

	obsMu     sync.Mutex
	hostCount map[string]*hostCount // at most Options.HostCounters hosts
	hostSeq   int64                 // hostCount entries made
	other     OtherHosts            // counters of the hosts pushed out of hostCount
	status    map[int]int64
	types     map[string]int64
	bytes     int64
	skips     map[string]*skipRing
}

type hostCount struct {
	fetched, errors, bytes int64
	seq                    int64 // when the entry was made (control.hostSeq)
}

// hostCounter returns host's counters, making an entry for a host not
// counted yet; with limit entries already, the entry with the lowest
// fetched + errors (the latest made, among equals) is pushed out first, its
// counters added to the other hosts'. Called with obsMu held.
func (ct *control) hostCounter(host string, limit int) *hostCount {
	if h := ct.hostCount[host]; h != nil {
		return h
	}
	if len(ct.hostCount) >= limit {
		var out string
		var low *hostCount
		for k, h := range ct.hostCount {
			if low == nil || h.fetched+h.errors < low.fetched+low.errors ||
				(h.fetched+h.errors == low.fetched+low.errors && h.seq > low.seq) {
				out, low = k, h
			}
		}
		delete(ct.hostCount, out)
		ct.other.Hosts++
		ct.other.Fetched += low.fetched
		ct.other.Errors += low.errors
		ct.other.Bytes += low.bytes
	}
	ct.hostSeq++
	h := &hostCount{seq: ct.hostSeq}
	ct.hostCount[host] = h
	return h
}

// skipRing holds the latest skips of one reason.
type skipRing struct {
	buf  [skipsPerReason]Skip
	next int
	n    int
}

func (r *skipRing) add(s Skip) {
	r.buf[r.next] = s
	r.next = (r.next + 1) % len(r.buf)
	r.n = min(r.n+1, len(r.buf))
}

// bind starts Run under control: ctx, cancelled by Stop, replaces the
// caller's, and the exclusions kept in the store are loaded.
func (c *Crawler) bindControl(ctx context.Context) (context.Context, error) {
	ctx, cancel := context.WithCancel(ctx)
	c.ctl.stopMu.Lock()
	c.ctl.stop, c.ctl.ended = cancel, ctx.Done()
	if c.ctl.stopped {
		cancel()
	}
	c.ctl.stopMu.Unlock()
	c.ctl.state.Store(StateStarting)
	if ms, ok := c.o.Store.(metaStore); ok {
		b, err := ms.GetMeta(ExclusionsMetaKey)
		switch {
		case errors.Is(err, storage.ErrNotFound):
		case err != nil:
			return ctx, fmt.Errorf("crawler: read exclusions: %w", err)
		default:
			var pats []string
			if err := json.Unmarshal(b, &pats); err != nil {
				return ctx, fmt.Errorf("crawler: exclusions kept in the store (meta %s): %w", ExclusionsMetaKey, err)
			}
			var list []Exclusion
			for _, p := range pats {
				e, err := newExclusion(p)
				if err != nil {
					return ctx, fmt.Errorf("crawler: exclusions kept in the store: %w", err)
				}
				list = append(list, e)
			}
			c.ctl.excl.Store(&list)
			if len(list) > 0 {
				c.log.Info("exclusions kept from an earlier run", "patterns", pats)
			}
		}
	}
	return ctx, nil
}

// Pause stops the crawl from starting fetches; those in flight finish.
// Resume continues. Pausing a paused crawl does nothing.
func (c *Crawler) Pause() {
	c.ctl.pauseMu.Lock()
	defer c.ctl.pauseMu.Unlock()
	if c.ctl.resumed == nil {
		c.ctl.resumed = make(chan struct{})
	}
}

// Resume lets a paused crawl fetch again.
func (c *Crawler) Resume() {
	c.ctl.pauseMu.Lock()
	defer c.ctl.pauseMu.Unlock()
	if c.ctl.resumed != nil {
		close(c.ctl.resumed)
		c.ctl.resumed = nil
	}
}

// Stop ends the crawl as cancelling Run's context does: no new fetch
// starts, fetches in flight get Options.Grace to finish, what is left stays
// queued for the next run, and Run returns context.Canceled. It does not
// wait for Run to return.
func (c *Crawler) Stop() {
	c.ctl.stopMu.Lock()
	defer c.ctl.stopMu.Unlock()
	c.ctl.stopped = true
	if c.ctl.stop != nil {
		c.ctl.stop()
	}
}

// State returns the crawl's state: one of StateStarting .. StateFinished.
func (c *Crawler) State() string {
	s, _ := c.ctl.state.Load().(string)
	switch {
	case s == "":
		return StateStarting
	case s != StateRunning:
		return s
	}
	c.ctl.stopMu.Lock()
	stopping := c.ctl.stopped
	if ended := c.ctl.ended; ended != nil {
		select {
		case <-ended:
			stopping = true
		default:
		}
	}
	c.ctl.stopMu.Unlock()
	c.ctl.pauseMu.Lock()
	paused := c.ctl.resumed != nil
	c.ctl.pauseMu.Unlock()
	switch {
	case stopping:
		return StateFinishing
	case paused:
		return StatePaused
	case c.settings.Recrawl.Continuous && c.queued.Load() == 0 && c.ctl.inflight.Load() == 0:
		return StateIdle
	}
	return StateRunning
}

// InFlight returns the number of URLs being fetched or processed now.
func (c *Crawler) InFlight() int { return int(c.ctl.inflight.Load()) }

// waitRunning blocks while the crawl is paused; false when ctx ends first.
func (c *Crawler) waitRunning(ctx context.Context) bool {
	for {
		c.ctl.pauseMu.Lock()
		ch := c.ctl.resumed
		c.ctl.pauseMu.Unlock()
		if ch == nil {
			return ctx.Err() == nil
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return false
		}
	}
}

// nextEntry is the queue's next entry, taken only while the crawl is not
// paused: a worker that was waiting for an entry when the crawl was
// paused holds it, unfetched, until Resume (or gives it back at the end).
func (c *Crawler) nextEntry(ctx context.Context) (frontier.Entry, error) {
	if !c.waitRunning(ctx) {
		return frontier.Entry{}, ctx.Err()
	}
	e, err := c.queue.next(ctx)
	if err != nil {
		return e, err
	}
	if !c.waitRunning(ctx) {
		c.queue.finish(e) // stays queued
		return frontier.Entry{}, ctx.Err()
	}
	return e, nil
}

// handle processes e unless an exclusion matches it, counting it in flight.
func (c *Crawler) handle(ctx, fetchCtx context.Context, e frontier.Entry) error {
	c.ctl.inflight.Add(1)
	defer c.ctl.inflight.Add(-1)
	if x := c.excludedBy(e.URL); x != nil {
		return c.skipExcluded(ctx, e, x)
	}
	return c.process(ctx, fetchCtx, e)
}

// excludedBy returns the exclusion that matches u, or nil.
func (c *Crawler) excludedBy(u string) *Exclusion {
	list := c.ctl.excl.Load()
	if list == nil {
		return nil
	}
	for i := range *list {
		if x := &(*list)[i]; x.re.MatchString(u) {
			return x
		}
	}
	return nil
}

// skipExcluded takes e out of the queue unfetched, with a URL record that
// says which exclusion did (so a resumed crawl does not queue it again).
func (c *Crawler) skipExcluded(ctx context.Context, e frontier.Entry, x *Exclusion) error {
	defer c.queue.finish(e)
	x.n.Add(1)
	detail := "excluded by pattern " + x.Pattern
	rec := &storage.URLRecord{URL: e.URL, Reason: ReasonExcluded, Err: detail, FetchedAt: time.Now().UTC(), Hints: storageHints(e.Hints)}
	n, err := c.queue.commit(context.WithoutCancel(ctx), e, storage.Commit{URL: rec, Dequeue: []uint64{e.Seq}}, nil)
	if err != nil {
		return fmt.Errorf("crawler: record excluded %s: %w", e.URL, err)
	}
	c.queued.Add(n)
	c.done.Add(1)
	c.skipped(Skip{URL: e.URL, Reason: SkipExcluded, Detail: detail, At: rec.FetchedAt})
	return nil
}

func newExclusion(pattern string) (Exclusion, error) {
	if pattern == "" {
		return Exclusion{}, errors.New("crawler: empty exclusion pattern")
	}
	re, err := regexp.Compile(pattern)
	if err != nil {
		return Exclusion{}, fmt.Errorf("crawler: exclusion %q: %w", pattern, err)
	}
	return Exclusion{Pattern: pattern, re: re, n: new(atomic.Int64)}, nil
}

// Exclusions returns the exclusions in force, in the order they were
// added, with the URLs each took out of the queue this run.
func (c *Crawler) Exclusions() []Exclusion {
	list := c.ctl.excl.Load()
	if list == nil {
		return nil
	}
	out := slices.Clone(*list)
	for i := range out {
		out[i].Matched = out[i].n.Load()
	}
	return out
}

// AddExclusion excludes the URLs pattern matches (a Go regular expression,
// matched anywhere in the canonical URL) from now on: queued ones are
// taken out of the queue unfetched as their turn comes (recorded with
// reason ReasonExcluded), and so are links found later. The pattern is
// kept in the store (ExclusionsMetaKey), so a resumed crawl keeps it.
// Errors: a malformed pattern, or the store's (then nothing changed).
// Adding a pattern already in force does nothing.
func (c *Crawler) AddExclusion(pattern string) error {
	x, err := newExclusion(pattern)
	if err != nil {
		return err
	}
	return c.changeExclusions(func(list []Exclusion) ([]Exclusion, bool) {
		if slices.ContainsFunc(list, func(e Exclusion) bool { return e.Pattern == pattern }) {
			return list, false
		}
		return append(list, x), true
	})
}

// RemoveExclusion ends the exclusion of pattern (URLs it already took out
// of the queue stay recorded as excluded); false if it was not in force.
func (c *Crawler) RemoveExclusion(pattern string) (bool, error) {
	found := false
	err := c.changeExclusions(func(list []Exclusion) ([]Exclusion, bool) {
		i := slices.IndexFunc(list, func(e Exclusion) bool { return e.Pattern == pattern })
		if i < 0 {
			return list, false
		}
		found = true
		return slices.Delete(list, i, i+1), true
	})
	return found, err
}

// changeExclusions applies change to a copy of the list, writes the new
// list to the store and then puts it in force.
func (c *Crawler) changeExclusions(change func([]Exclusion) ([]Exclusion, bool)) error {
	c.ctl.exclMu.Lock()
	defer c.ctl.exclMu.Unlock()
	var list []Exclusion
	if old := c.ctl.excl.Load(); old != nil {
		list = slices.Clone(*old)
	}
	list, changed := change(list)
	if !changed {
		return nil
	}
	pats := make([]string, len(list))
	for i, x := range list {
		pats[i] = x.Pattern
	}
	if ms, ok := c.o.Store.(metaStore); ok {
		b, _ := json.Marshal(pats)
		if err := ms.PutMeta(ExclusionsMetaKey, b); err != nil {
			return fmt.Errorf("crawler: keep exclusions: %w", err)
		}
	}
	c.ctl.excl.Store(&list)
	return nil
}

// observe counts a fetch's response by host, status and content type,
// and keeps it among the latest skips when it failed or was not parsed.
func (c *Crawler) observe(e frontier.Entry, j *job, rec *storage.URLRecord) {
	host := hostOf(e.URL)
	now := time.Now()
	var skip *Skip
	switch {
	case j.blocked != nil || errors.Is(j.err, colly.ErrRobotsTxtBlocked):
		skip = &Skip{Reason: SkipRobots}
	case j.tooLarge != 0:
		skip = &Skip{Reason: SkipTooLarge}
	case j.nonHTML:
		skip = &Skip{Reason: SkipType, Detail: j.contentType}
	case j.err != nil || (rec != nil && rec.Err != ""):
		skip = &Skip{Reason: SkipError}
	}
	if skip != nil {
		skip.URL, skip.Status, skip.At = e.URL, j.status, now
		if rec != nil && rec.Err != "" {
			skip.Detail = rec.Err
		} else if j.err != nil && skip.Detail == "" {
			skip.Detail = errText(j.err)
		}
	}
	c.ctl.obsMu.Lock()
	defer c.ctl.obsMu.Unlock()
	if c.ctl.hostCount == nil {
		c.ctl.hostCount, c.ctl.status, c.ctl.types = map[string]*hostCount{}, map[int]int64{}, map[string]int64{}
	}
	limit := c.o.HostCounters
	if limit <= 0 {
		limit = DefaultHostCounters
	}
	h := c.ctl.hostCounter(host, limit)
	if j.status != 0 {
		h.fetched++
		c.ctl.status[j.status]++
		mt, _, _ := mime.ParseMediaType(j.contentType)
		if len(c.ctl.types) < 1000 { // a hostile server's made-up types do not grow it without end
			c.ctl.types[mt]++
		} else if _, ok := c.ctl.types[mt]; ok {
			c.ctl.types[mt]++
		}
	}
	n := int64(len(j.body))
	h.bytes += n
	c.ctl.bytes += n
	if skip != nil && (skip.Reason == SkipError || skip.Reason == SkipTooLarge) {
		h.errors++
	}
	if skip != nil {
		c.addSkipLocked(*skip)
	}
}

// skipped keeps s among the latest skips.
func (c *Crawler) skipped(s Skip) {
	c.ctl.obsMu.Lock()
	defer c.ctl.obsMu.Unlock()
	c.addSkipLocked(s)
}

func (c *Crawler) addSkipLocked(s Skip) {
	if c.ctl.skips == nil {
		c.ctl.skips = map[string]*skipRing{}
	}
	r := c.ctl.skips[s.Reason]
	if r == nil {
		r = &skipRing{}
		c.ctl.skips[s.Reason] = r
	}
	if s.Reason == SkipScope {
		// the same out-of-scope link is on many pages: keep it once
		for i := range r.n {
			if r.buf[i].URL == s.URL {
				return
			}
		}
	}
	r.add(s)
}

// skippedLink keeps a link that was not followed among the latest skips.
func (c *Crawler) skippedLink(u *url.URL, err error) {
	c.skipped(Skip{URL: u.String(), Reason: SkipScope, Detail: errText(err), At: time.Now()})
}

// Skipped returns the latest URLs the crawl failed or did not fetch, up to
// 50 per reason, newest first.
func (c *Crawler) Skipped() []Skip {
	c.ctl.obsMu.Lock()
	var out []Skip
	for _, r := range c.ctl.skips {
		for i := range r.n {
			out = append(out, r.buf[(r.next-1-i+len(r.buf))%len(r.buf)])
		}
	}
	c.ctl.obsMu.Unlock()
	slices.SortStableFunc(out, func(a, b Skip) int { return b.At.Compare(a.At) })
	return out
}

// Breakdown returns this run's responses counted by status code and
// content type.
func (c *Crawler) Breakdown() Breakdown {
	c.ctl.obsMu.Lock()
	defer c.ctl.obsMu.Unlock()
	b := Breakdown{Status: make(map[int]int64, len(c.ctl.status)), ContentType: make(map[string]int64, len(c.ctl.types)), Bytes: c.ctl.bytes,
		OtherHosts: c.ctl.other}
	for k, v := range c.ctl.status {
		b.Status[k] = v
	}
	for k, v := range c.ctl.types {
		b.ContentType[k] = v
	}
	return b
}

// Hosts returns the state of every host the frontier holds now (queued,
// in flight or in its delay) and of the hosts fetched from this run whose
// counters the crawl keeps (at most Options.HostCounters: the others'
// are summed in Breakdown's OtherHosts).
func (c *Crawler) Hosts() []HostState {
	byHost := map[string]*HostState{}
	if c.front != nil {
		for _, h := range c.front.Hosts() {
			byHost[h.Host] = &HostState{HostState: h}
		}
	}
	c.ctl.obsMu.Lock()
	for host, n := range c.ctl.hostCount {
		h := byHost[host]
		if h == nil {
			h = &HostState{HostState: frontier.HostState{Host: host}}
			if c.front != nil {
				h.Delay = c.front.HostDelay(host)
			}
			byHost[host] = h
		}
		h.Fetched, h.Errors, h.Bytes = n.fetched, n.errors, n.bytes
	}
	c.ctl.obsMu.Unlock()
	out := make([]HostState, 0, len(byHost))
	for _, h := range byHost {
		if c.robotsTxt != nil && c.settings.Politeness.ObeyRobots {
			h.Robots = c.robotsTxt.state(h.Host)
		}
		if c.throttle != nil {
			h.Throttled = c.throttle.slowed(h.Host)
		}
		out = append(out, *h)
	}
	slices.SortFunc(out, func(a, b HostState) int {
		if a.Host < b.Host {
			return -1
		}
		if a.Host > b.Host {
			return 1
		}
		return 0
	})
	return out
}

// state describes host's robots.txt: "read", "reading", "unreachable:
// CAUSE", or "" when it was never asked for. The scheme is not known here:
// https is looked up first, then http.
func (rc *robotsCache) state(host string) string {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	e := rc.hosts["https://"+host]
	if e == nil {
		e = rc.hosts["http://"+host]
	}
	switch {
	case e == nil:
		return ""
	case e.fetching != nil && e.rules == nil:
		return "reading"
	case e.rules != nil:
		return "read"
	}
	return "unreachable: " + e.cause
}

// FilterStats returns the URL filter's size and predicted false-positive
// rate now; ok is false when the crawl has no local filter that reports
// them (cluster mode: the seen-state lives in Redis).
func (c *Crawler) FilterStats() (st urlfilter.Stats, ok bool) {
	if c.o.Cluster != nil {
		return st, false
	}
	f, ok := c.o.URLFilter.(interface{ Stats() urlfilter.Stats })
	if !ok {
		return st, false
	}
	return f.Stats(), true
}
