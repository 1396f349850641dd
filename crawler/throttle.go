package crawler

import (
	"fmt"
	"net/http"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/bloomcrawl/bloomcrawl/configs"
)

// Adaptive politeness (politeness.adaptive, politeness.max_delay,
// politeness.host_failures): each host's delay follows how it answers.
// It rises when the host answers 429 or 503 (and Retry-After then holds
// the whole host), when a request gets no response, and when its latency
// grows; it falls back slowly toward its floor (politeness.delay, or the
// robots.txt Crawl-delay) while the host answers well. A host whose
// requests keep failing is set aside: its remaining URLs are recorded as
// errors (reason ReasonHostFailing) instead of being fetched.

// ReasonHostFailing is the URL record reason of a URL not fetched because
// its host was set aside after politeness.host_failures failures in a row.
const ReasonHostFailing = "host_failing"

// Adaptive politeness's constants.
const (
	// minRaise is the least delay a 429, 503, 5xx or failed connection
	// sets.
	minRaise = 250 * time.Millisecond
	// decay is the factor the delay falls by after each good answer.
	decay = 0.95
	// limitMargin and limitMemory: for limitMemory after a 429 or 503 the
	// delay does not fall below limitMargin times the delay that was
	// answered with it (the host's rate limit is just above).
	limitMargin = 1.2
	limitMemory = 2 * time.Minute
	// slowFactor and slowMargin: a host's latency has grown when its
	// moving average is more than slowFactor times its best plus
	// slowMargin; the delay then moves toward that latency.
	slowFactor = 2
	slowMargin = 50 * time.Millisecond
	// latencyWeight is the weight of a new sample in the moving average.
	latencyWeight = 0.3
)

// hostDelaySetter is where the delays go (the frontier).
type hostDelaySetter interface {
	SetHostDelay(host string, d time.Duration)
	Pause(host string, until time.Time)
	Drain(host string)
}

// throttle holds the per-host pace. Safe for concurrent use.
type throttle struct {
	adaptive  bool
	base, max time.Duration // politeness.delay, politeness.max_delay
	failLimit int           // politeness.host_failures (0: never)
	timeout   time.Duration // fetch.timeout
	front     hostDelaySetter
	now       func() time.Time

	mu    sync.Mutex
	hosts map[string]*hostPace

	setAside, limited atomic.Int64
}

// hostPace is one host's state.
type hostPace struct {
	floor      time.Duration // politeness.delay or the Crawl-delay
	delay      time.Duration // in force (>= floor)
	latency    time.Duration // moving average
	best       time.Duration // lowest moving average seen
	limitDelay time.Duration // the delay a 429 or 503 was answered at
	limitAt    time.Time
	raisedAt   time.Time // when the delay last rose on a failure
	fails      int       // failed requests in a row
	down       string    // set aside: why ("" while not)
	limited    int64     // 429 and 503 answers
}

func newThrottle(p configs.Politeness, timeout time.Duration, front hostDelaySetter) *throttle {
	return &throttle{timeout: timeout, adaptive: p.Adaptive, base: p.Delay.Std(), max: max(p.MaxDelay.Std(), p.Delay.Std()),
		failLimit: p.HostFailures, front: front, now: time.Now, hosts: map[string]*hostPace{}}
}

// host returns host's state, made if new. Holds t.mu.
func (t *throttle) host(host string) *hostPace {
	h := t.hosts[host]
	if h == nil {
		h = &hostPace{floor: t.base, delay: t.base}
		t.hosts[host] = h
	}
	return h
}

// setFloor sets host's least delay (a robots.txt Crawl-delay, 0 for
// none) and passes the delay in force to the frontier.
func (t *throttle) setFloor(host string, d time.Duration) {
	t.mu.Lock()
	h := t.host(host)
	h.floor = max(d, t.base)
	h.delay = max(h.delay, h.floor)
	if !t.adaptive {
		h.delay = h.floor
	}
	delay := h.delay
	t.mu.Unlock()
	t.front.SetHostDelay(host, delay)
}

// slowed reports whether host's delay rose above its floor or the host
// was set aside.
func (t *throttle) slowed(host string) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	h := t.hosts[host]
	return h != nil && (h.delay > h.floor || h.down != "")
}

// hostDown is the error of a fetch not made because its host was set
// aside.
type hostDown struct {
	host, why string
}

func (e *hostDown) Error() string {
	return fmt.Sprintf("host %s set aside, not fetched: %s", e.host, e.why)
}

// down returns a *hostDown when host was set aside, else nil.
func (t *throttle) down(host string) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if h := t.hosts[host]; h != nil && h.down != "" {
		return &hostDown{host: host, why: h.down}
	}
	return nil
}

// roundTrip learns from one request to req's host, answered with resp
// or failed with err, took after it was sent: a 429 or 503 (its
// Retry-After holds the whole host), another 5xx, a proxy's 407 or no
// response is a
// failure (the delay doubles, to at least minRaise), anything else a
// good answer (the latency is learnt; the delay falls back slowly, or
// moves toward a latency that has grown). A request cut off by the
// crawl's own deadline or shutdown counts only when the request itself
// took at least half of fetch.timeout (else the time went to waiting in
// the queue).
func (t *throttle) roundTrip(req *http.Request, resp *http.Response, err error, took time.Duration) {
	host := req.URL.Host
	failed, limited := false, false
	var retryIn time.Duration
	var hasRetry bool
	var what string
	switch {
	case err != nil:
		if req.Context().Err() != nil && took < t.timeout/2 {
			return
		}
		failed, what = true, errText(err)
	case resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode == http.StatusServiceUnavailable:
		failed, limited, what = true, true, fmt.Sprintf("HTTP %d", resp.StatusCode)
		retryIn, hasRetry = retryAfter(resp.Header.Get("Retry-After"))
	case resp.StatusCode >= 500 || resp.StatusCode == http.StatusProxyAuthRequired:
		failed, what = true, fmt.Sprintf("HTTP %d", resp.StatusCode)
	}
	now := t.now()
	t.mu.Lock()
	h := t.host(host)
	if h.down != "" {
		t.mu.Unlock()
		return // set aside: nothing more to learn
	}
	old := h.delay
	var pause time.Time
	drain := false
	if failed {
		h.fails++
		if limited {
			h.limited++
			t.limited.Add(1)
			if !now.Add(-took).Before(h.raisedAt) {
				h.limitDelay, h.limitAt = h.delay, now
			}
		}
		if t.adaptive {
			if !now.Add(-took).Before(h.raisedAt) {
				// (a request sent before the last raise answers for
				// the old delay: no second raise for it)
				h.delay = min(max(2*h.delay, minRaise, h.floor), t.max)
				h.raisedAt = now
			}
			pause = now.Add(h.delay)
			if hasRetry {
				pause = now.Add(min(retryIn, maxRetryWait))
			}
		}
		if t.failLimit > 0 && h.fails >= t.failLimit && h.down == "" {
			h.down = fmt.Sprintf("%d requests in a row failed (politeness.host_failures), the last: %s", h.fails, what)
			t.setAside.Add(1)
			drain = true
		}
	} else {
		h.fails = 0
		if t.adaptive {
			h.learn(took)
			if h.slow() {
				h.delay = min((h.delay+h.latency)/2, t.max) // slower: toward the latency
			} else {
				d := time.Duration(float64(h.delay) * decay)
				if !h.limitAt.IsZero() && now.Sub(h.limitAt) < limitMemory {
					d = max(d, time.Duration(limitMargin*float64(h.limitDelay)))
				}
				if d < h.floor+time.Millisecond {
					d = h.floor
				}
				h.delay = min(d, h.delay)
			}
		}
	}
	delay := h.delay
	t.mu.Unlock()
	switch {
	case drain:
		// its URLs are recorded, not fetched: no reason to wait
		t.front.Drain(host)
	case delay != old:
		t.front.SetHostDelay(host, delay)
	}
	if !pause.IsZero() && !drain {
		t.front.Pause(host, pause)
	}
}

// slow reports whether h's latency has grown (to more than slowFactor
// times its best plus slowMargin) and is above its delay.
func (h *hostPace) slow() bool {
	return h.latency > slowFactor*h.best+slowMargin && h.latency > h.delay
}

// learn adds a latency sample to h's moving average.
func (h *hostPace) learn(took time.Duration) {
	if h.latency == 0 {
		h.latency = took
	} else {
		h.latency = time.Duration(latencyWeight*float64(took) + (1-latencyWeight)*float64(h.latency))
	}
	if h.best == 0 || h.latency < h.best {
		h.best = h.latency
	}
}

// HostPace is one host's pace in Stats: its delay in force and how it
// has been answering.
type HostPace struct {
	Host         string  `json:"host"`
	DelaySeconds float64 `json:"delay_s"`
	Failures     int     `json:"failures_in_a_row,omitempty"`
	Limited      int64   `json:"limited,omitempty"` // 429 and 503 answers
	SetAside     bool    `json:"set_aside,omitempty"`
}

// maxReportedHosts bounds the hosts Stats lists (the slowest first).
const maxReportedHosts = 20

// report adds the throttle's state to s: the hosts whose delay differs
// from politeness.delay, that failed or were set aside (the slowest
// maxReportedHosts), and the counters.
func (t *throttle) report(s *Stats) {
	s.HostsSetAside, s.Limited = t.setAside.Load(), t.limited.Load()
	t.mu.Lock()
	var out []HostPace
	for name, h := range t.hosts {
		if h.delay == t.base && h.fails == 0 && h.down == "" {
			continue
		}
		out = append(out, HostPace{Host: name, DelaySeconds: h.delay.Seconds(), Failures: h.fails, Limited: h.limited, SetAside: h.down != ""})
	}
	t.mu.Unlock()
	sort.Slice(out, func(a, b int) bool {
		if out[a].DelaySeconds != out[b].DelaySeconds {
			return out[a].DelaySeconds > out[b].DelaySeconds
		}
		return out[a].Host < out[b].Host
	})
	if len(out) > maxReportedHosts {
		out = out[:maxReportedHosts]
	}
	s.HostDelays = out
}
