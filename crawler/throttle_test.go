package crawler

import (
	"fmt"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/bloomcrawl/bloomcrawl/configs"
)

// rateLimited serves, on ip, a home page linking n pages, and answers
// 429 with Retry-After: 1 to a request that comes when it has answered
// rate requests in the last second (robots.txt included). It counts its
// 429s.
type rateLimited struct {
	*loopHost
	mu     sync.Mutex
	served []time.Time
	n429   atomic.Int64
	start  time.Time   // the crawl's start
	at429  []time.Time // when it answered 429
}

// later counts the 429s answered more than d after the first.
func (s *rateLimited) later(d time.Duration) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, at := range s.at429 {
		if at.Sub(s.at429[0]) > d {
			n++
		}
	}
	return n
}

func newRateLimited(t *testing.T, ip string, n, rate int) *rateLimited {
	s := &rateLimited{}
	var links []string
	for i := range n {
		links = append(links, a(fmt.Sprintf("/p%d", i)))
	}
	s.loopHost = serveLoopHost(t, ip, 600, func(w http.ResponseWriter, r *http.Request) bool {
		now := time.Now()
		s.mu.Lock()
		for len(s.served) > 0 && now.Sub(s.served[0]) >= time.Second {
			s.served = s.served[1:]
		}
		limited := len(s.served) >= rate
		if limited {
			s.at429 = append(s.at429, now)
		} else {
			s.served = append(s.served, now)
		}
		s.mu.Unlock()
		if limited {
			s.n429.Add(1)
			w.Header().Set("Retry-After", "1")
			http.Error(w, "slow down", http.StatusTooManyRequests)
			return true
		}
		if r.URL.Path == "/" {
			fmt.Fprint(w, pageOf("home", 601, links...))
			return true
		}
		return false
	})
	return s
}

// TestAdaptive429: a host that answers 429 (Retry-After: 1) past 30
// requests a second, crawled with 8 requests in flight and no delay,
// once with a fixed delay and once with adaptive politeness. The fixed
// crawl keeps hitting the limit; the adaptive one gets the first burst
// (the requests in flight when the first 429 came), slows the host,
// stores every page and sees few 429s after that burst. The figures are
// logged (docs/access.md).
func TestAdaptive429(t *testing.T) {
	if testing.Short() {
		t.Skip("two crawls of about 10 s")
	}
	const pages, rate = 120, 30
	run := func(adaptive bool) (accessRun, *rateLimited, time.Duration) {
		site := newRateLimited(t, "127.0.0.1", pages, rate)
		cfg := accessConfig(site.url("/"), "127.0.0.1")
		cfg.Politeness.Concurrency = 8
		cfg.Politeness.PerHostParallelism = 8
		cfg.Politeness.Adaptive = adaptive
		start := time.Now()
		site.start = start
		r := accessCrawl(t, cfg, "", "", func(c *Crawler) { c.o.RetryBackoff = time.Second })
		if r.err != nil {
			t.Fatal(r.err)
		}
		return r, site, time.Since(start)
	}
	fixed, fsite, fdur := run(false)
	adapt, asite, adur := run(true)
	report := func(name string, r accessRun, s *rateLimited, d time.Duration) {
		s.mu.Lock()
		defer s.mu.Unlock()
		first, last := 0.0, 0.0
		burst := 0
		if n := len(s.at429); n > 0 {
			first, last = s.at429[0].Sub(s.start).Seconds(), s.at429[n-1].Sub(s.start).Seconds()
			for _, at := range s.at429 {
				if at.Sub(s.at429[0]) <= time.Second {
					burst++
				}
			}
		}
		t.Logf("%s: %d pages stored of %d, %d errors, %d answers 429 (%d within 1s of the first, at %.2fs; the last at %.2fs), %d requests, %.1fs",
			name, r.stored(), pages+1, r.stats.Errors, s.n429.Load(), burst, first, last, s.total(), d.Seconds())
	}
	report("fixed delay", fixed, fsite, fdur)
	report("adaptive", adapt, asite, adur)
	if adapt.stored() != pages+1 || adapt.stats.Errors != 0 {
		t.Errorf("adaptive: %d pages stored, %d errors; want %d and 0", adapt.stored(), adapt.stats.Errors, pages+1)
	}
	if n := asite.later(time.Second); n > 3 {
		t.Errorf("adaptive: %d answers 429 more than 1s after the first, want at most 3", n)
	}
	if nf, na := fsite.later(time.Second), asite.later(time.Second); nf < 10 || nf < 3*na {
		t.Errorf("fixed delay: %d answers 429 more than 1s after the first, adaptive %d: want at least 10, and 3 times as many", nf, na)
	}
	if adapt.stats.Limited != asite.n429.Load() {
		t.Errorf("stats count %d answers 429, the site sent %d", adapt.stats.Limited, asite.n429.Load())
	}
}

// TestFailingHost: a host that answers 500 to every page is set aside
// after politeness.host_failures failed requests in a row: its other URLs
// are recorded as errors with the reason, unfetched, while the healthy
// host's pages are all crawled, and the crawl ends.
func TestFailingHost(t *testing.T) {
	bad := serveLoopHost(t, "127.0.0.2", 620, func(w http.ResponseWriter, r *http.Request) bool {
		if r.URL.Path == "/robots.txt" {
			return false // 404: allowed
		}
		http.Error(w, "broken", http.StatusInternalServerError)
		return true
	})
	var links []string
	for i := range 20 {
		links = append(links, a(fmt.Sprintf("/g%d", i)))
	}
	for i := range 30 {
		links = append(links, a(bad.url(fmt.Sprintf("/b%d", i))))
	}
	good := serveLoopHost(t, "127.0.0.1", 610, func(w http.ResponseWriter, r *http.Request) bool {
		if r.URL.Path == "/" {
			fmt.Fprint(w, pageOf("home", 611, links...))
			return true
		}
		return false
	})
	cfg := accessConfig(good.url("/"), "127.0.0.1", "127.0.0.2")
	cfg.Politeness.HostFailures = 5
	cfg.Politeness.MaxDelay = configs.Duration(time.Second)
	cfg.Fetch.Retries = 2
	start := time.Now()
	var c *Crawler
	r := accessCrawl(t, cfg, "", "", func(cr *Crawler) { c = cr })
	took := time.Since(start)
	if r.err != nil {
		t.Fatal(r.err)
	}
	aside, failed := 0, 0
	for u, rec := range r.recs {
		if !strings.HasPrefix(u, bad.url("/")) {
			continue
		}
		switch {
		case rec.Reason == ReasonHostFailing && rec.Status == 0 && strings.Contains(rec.Err, "HTTP 500"):
			aside++
		case rec.Status == http.StatusInternalServerError:
			failed++
		default:
			t.Errorf("%s: %+v", u, rec)
		}
	}
	pageHits := bad.total() - bad.count("/robots.txt")
	t.Logf("failing host: %d URLs fetched and failed, %d set aside unfetched, %d page requests; healthy host: %d pages stored; %.1fs",
		failed, aside, pageHits, r.stored(), took.Seconds())
	if r.stored() != 21 {
		t.Errorf("%d pages of the healthy host stored, want 21", r.stored())
	}
	if aside+failed != 30 || aside < 20 || r.stats.HostsSetAside != 1 {
		t.Errorf("%d set aside, %d failed, %d hosts set aside: want 30 in all, most set aside, 1 host", aside, failed, r.stats.HostsSetAside)
	}
	if pageHits > 5+4 { // host_failures, and the requests already in flight
		t.Errorf("the failing host got %d page requests, want about politeness.host_failures (5)", pageHits)
	}
	var found bool
	for _, h := range r.stats.HostDelays {
		if h.Host == bad.host() && h.SetAside {
			found = true
		}
	}
	if !found {
		t.Errorf("stats do not list %s as set aside: %+v", bad.host(), r.stats.HostDelays)
	}
	if line := c.Stats().ProgressLine(); !strings.Contains(line, bad.host()+" set aside") {
		t.Errorf("progress line %q does not show the host set aside", line)
	}
	reg := prometheus.NewRegistry()
	reg.MustRegister(c.Collectors()...)
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	var delay float64 = -1
	for _, mf := range mfs {
		if mf.GetName() != "bloomcrawl_crawl_host_delay_seconds" {
			continue
		}
		for _, m := range mf.GetMetric() {
			if m.GetLabel()[0].GetValue() == bad.host() {
				delay = m.GetGauge().GetValue()
			}
		}
	}
	if delay <= 0 {
		t.Errorf("/metrics: bloomcrawl_crawl_host_delay_seconds{host=%q} = %v, want the raised delay", bad.host(), delay)
	}
}

// delays records what a throttle sets.
type delays struct {
	mu     sync.Mutex
	delay  map[string]time.Duration
	paused map[string]time.Time
}

func (d *delays) SetHostDelay(host string, v time.Duration) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.delay[host] = v
}

func (d *delays) Drain(host string) {}

func (d *delays) Pause(host string, until time.Time) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.paused[host] = until
}

// TestThrottleRules: the delay's rises and falls, by the rules of
// politeness.adaptive, on a clock the test moves.
func TestThrottleRules(t *testing.T) {
	rec := &delays{delay: map[string]time.Duration{}, paused: map[string]time.Time{}}
	p := configs.Default().Politeness
	p.Delay = configs.Duration(100 * time.Millisecond)
	p.MaxDelay = configs.Duration(2 * time.Second)
	p.HostFailures = 4
	th := newThrottle(p, 30*time.Second, rec)
	now := time.Unix(1e9, 0)
	th.now = func() time.Time { return now }
	req, _ := http.NewRequest("GET", "http://h.example/", nil)
	// answer: a request sent at now, answered took later
	answer := func(status int, retry string, took time.Duration) time.Duration {
		now = now.Add(took)
		resp := &http.Response{StatusCode: status, Header: http.Header{}}
		if retry != "" {
			resp.Header.Set("Retry-After", retry)
		}
		th.roundTrip(req, resp, nil, took)
		th.mu.Lock()
		defer th.mu.Unlock()
		return th.hosts["h.example"].delay
	}
	if d := answer(200, "", 5*time.Millisecond); d != 100*time.Millisecond {
		t.Fatalf("a good answer: delay %v, want politeness.delay", d)
	}
	if th.slowed("h.example") {
		t.Errorf("a good answer: host reported throttled")
	}
	if d := answer(429, "3", 5*time.Millisecond); d != 250*time.Millisecond {
		t.Errorf("429: delay %v, want 250ms (at least minRaise)", d)
	}
	if until := rec.paused["h.example"]; until.Sub(now) != 3*time.Second {
		t.Errorf("429 with Retry-After 3: host paused for %v, want 3s", until.Sub(now))
	}
	if !th.slowed("h.example") {
		t.Errorf("after a 429: host not reported throttled (console's hosts table)")
	}
	if d := answer(503, "", 5*time.Millisecond); d != 500*time.Millisecond {
		t.Errorf("503: delay %v, want doubled to 500ms", d)
	}
	// a 429 to a request sent before the last raise does not raise again
	now = now.Add(-20 * time.Millisecond) // sent 20ms before the 503 came
	if d := answer(429, "", 21*time.Millisecond); d != 500*time.Millisecond {
		t.Errorf("429 in flight before the raise: delay %v, want 500ms still", d)
	}
	// good answers: 5% down each, not below 1.2 × the delay the 503 came at
	var d time.Duration
	for range 40 {
		d = answer(200, "", 5*time.Millisecond)
	}
	if d != 300*time.Millisecond {
		t.Errorf("after 40 good answers within 2 minutes of a 503: delay %v, want 300ms (1.2 × 250ms)", d)
	}
	now = now.Add(3 * time.Minute)
	for range 60 {
		d = answer(200, "", 5*time.Millisecond)
	}
	if d != 100*time.Millisecond {
		t.Errorf("60 good answers later: delay %v, want back at politeness.delay", d)
	}
	if th.slowed("h.example") {
		t.Errorf("back at politeness.delay: host still reported throttled")
	}
	// latency grows from 5ms to 400ms: the delay moves toward it
	for range 10 {
		d = answer(200, "", 400*time.Millisecond)
	}
	if d < 300*time.Millisecond || d > 400*time.Millisecond {
		t.Errorf("latency 400ms (best 5ms): delay %v, want near 400ms", d)
	}
	// capped by max_delay; set aside after 4 failures in a row
	for range 4 {
		d = answer(500, "", time.Millisecond)
	}
	if d != 2*time.Second {
		t.Errorf("4 failures: delay %v, want max_delay 2s", d)
	}
	if err := th.down("h.example"); err == nil || !strings.Contains(err.Error(), "4 requests in a row failed") {
		t.Errorf("after 4 failures: down = %v", err)
	}
	// fixed delay: no change, but still set aside
	p.Adaptive = false
	fixed := newThrottle(p, 30*time.Second, rec)
	for range 3 {
		fixed.roundTrip(req, &http.Response{StatusCode: 429, Header: http.Header{}}, nil, time.Millisecond)
	}
	if h := fixed.hosts["h.example"]; h.delay != 100*time.Millisecond || fixed.down("h.example") != nil {
		t.Errorf("fixed: delay %v after 3 429s, down %v; want 100ms, not down", h.delay, fixed.down("h.example"))
	}
}
