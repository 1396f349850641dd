package render

import (
	"fmt"
	"maps"
	"regexp"
	"sync"
)

// Mode says which pages are rendered.
type Mode string

// The modes.
const (
	Never  Mode = "never"  // no page (the default)
	Auto   Mode = "auto"   // the pages Detect or the host's learning say need it
	Always Mode = "always" // every HTML page
)

// ParseMode returns the mode named s, or an error naming the valid ones.
func ParseMode(s string) (Mode, error) {
	switch m := Mode(s); m {
	case Never, Auto, Always:
		return m, nil
	case "":
		return Never, nil
	}
	return "", fmt.Errorf("render: unknown mode %q (never, auto or always)", s)
}

// Rule sets the mode of the URLs Match matches (RE2, on the canonical
// URL, unanchored).
type Rule struct {
	Match *regexp.Regexp
	Mode  Mode
}

// Defaults of the Decider's learning.
const (
	DefaultLearnPages = 10 // decisions of a host before it is settled
	DefaultSample     = 20 // a settled host re-checks one page in this many
)

// Decider decides which pages to render: the first Rule that matches a
// URL sets its mode, else Mode. In auto mode a page is rendered when
// Detect finds a clue in its HTML, and each host learns: after
// LearnPages pages of a host whose outcomes all agree (every page needed
// a browser, or none did; a rendered page counts as needing it only when
// its render found more text or links than the server's HTML, see
// Observe), the host is settled: all its pages are rendered without a
// check, or none is; one page in Sample is still checked (and, when
// settled to "all", rendered and observed), and a page that disagrees
// sends the host back to learning. It is safe for concurrent use.
type Decider struct {
	mode       Mode
	rules      []Rule
	learnPages int
	sample     int

	mu     sync.Mutex
	hosts  map[string]*hostState
	counts map[string]int64 // decisions by reason ("" = not rendered)
	obs    [2]int64         // observations: rendered pages that needed it [1] or not [0]
}

// hostState is one host's learning.
type hostState struct {
	seen, needed int  // outcomes while learning
	settled      int8 // 0 learning, +1 render all, -1 render none
	since        int  // pages since settled
}

// NewDecider returns a Decider; learnPages and sample default to
// DefaultLearnPages and DefaultSample when <= 0.
func NewDecider(mode Mode, rules []Rule, learnPages, sample int) *Decider {
	if mode == "" {
		mode = Never
	}
	if learnPages <= 0 {
		learnPages = DefaultLearnPages
	}
	if sample <= 0 {
		sample = DefaultSample
	}
	return &Decider{mode: mode, rules: rules, learnPages: learnPages, sample: sample,
		hosts: map[string]*hostState{}, counts: map[string]int64{}}
}

// Active reports whether any page can be rendered (a mode or rule other
// than never).
func (d *Decider) Active() bool {
	if d.mode != Never {
		return true
	}
	for _, r := range d.rules {
		if r.Mode != Never {
			return true
		}
	}
	return false
}

// Decision is whether to render a page, and why.
type Decision struct {
	Render bool
	// Reason is why it is rendered (a Reason* constant), or "" when not.
	Reason string
	// Observe says the outcome is to be reported with Observe (auto
	// mode: a page the host learns from).
	Observe bool
	// Clue is what Detect found, when it ran.
	Clue Clue
}

// Decide decides whether to render the page at url (canonical) of host
// whose server HTML is page.
func (d *Decider) Decide(url, host string, page []byte) Decision {
	var dec Decision
	switch d.ruleMode(url, &dec) {
	case Never:
	case Always:
		dec.Render = true
		if dec.Reason == "" {
			dec.Reason = ReasonAlways
		}
	case Auto:
		d.mu.Lock()
		h := d.hosts[host]
		if h == nil {
			h = &hostState{}
			d.hosts[host] = h
		}
		settled := h.settled
		check := true
		if settled != 0 {
			h.since++
			check = h.since%d.sample == 0
		}
		d.mu.Unlock()
		switch {
		case settled > 0 && !check:
			dec.Render, dec.Reason = true, ReasonHost
		case settled < 0 && !check:
		default:
			dec.Clue = Detect(page)
			dec.Observe = true
			dec.Render, dec.Reason = dec.Clue.Needs(), dec.Clue.Reason
			if settled > 0 && !dec.Render {
				// settled to "all": the sample is rendered, and its
				// render tells whether the host still needs it
				dec.Render, dec.Reason = true, ReasonHost
			}
			if !dec.Render {
				d.observe(host, false)
				dec.Observe = false
			}
		}
	}
	d.mu.Lock()
	d.counts[dec.Reason]++
	d.mu.Unlock()
	return dec
}

// ruleMode returns the mode for url, setting dec.Reason to ReasonRule
// when a rule decided it.
func (d *Decider) ruleMode(url string, dec *Decision) Mode {
	for _, r := range d.rules {
		if r.Match.MatchString(url) {
			if r.Mode == Always {
				dec.Reason = ReasonRule
			}
			return r.Mode
		}
	}
	return d.mode
}

// Observe reports the outcome of a rendered page of host that Decide
// marked Observe: needed is whether the render found more than the
// server's HTML held.
func (d *Decider) Observe(host string, needed bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if needed {
		d.obs[1]++
	} else {
		d.obs[0]++
	}
	d.observeLocked(host, needed)
}

func (d *Decider) observe(host string, needed bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.observeLocked(host, needed)
}

func (d *Decider) observeLocked(host string, needed bool) {
	h := d.hosts[host]
	if h == nil {
		h = &hostState{}
		d.hosts[host] = h
	}
	if h.settled != 0 {
		if (h.settled > 0) != needed {
			*h = hostState{} // the sample disagrees: learn again
		}
		return
	}
	h.seen++
	if needed {
		h.needed++
	}
	if h.seen >= d.learnPages {
		switch h.needed {
		case h.seen:
			h.settled = 1
		case 0:
			h.settled = -1
		default:
			// mixed: keep deciding page by page, over a fresh window
			h.seen, h.needed = 0, 0
		}
	}
}

// Counts are a Decider's decisions so far.
type Counts struct {
	Checked  int64            `json:"checked"`  // pages decided
	Rendered int64            `json:"rendered"` // of which rendered
	Reasons  map[string]int64 `json:"reasons"`  // rendered pages by reason
	// NoGain are rendered pages whose render found nothing the server's
	// HTML lacked (what the learning uses to stop rendering a host).
	NoGain int64 `json:"no_gain"`
	// HostsAll and HostsNone are the hosts settled to render all or none
	// of their pages.
	HostsAll  int `json:"hosts_all"`
	HostsNone int `json:"hosts_none"`
}

// Counts returns the decisions so far.
func (d *Decider) Counts() Counts {
	d.mu.Lock()
	defer d.mu.Unlock()
	c := Counts{Reasons: map[string]int64{}, NoGain: d.obs[0]}
	for r, n := range maps.All(d.counts) {
		c.Checked += n
		if r != "" {
			c.Rendered += n
			c.Reasons[r] = n
		}
	}
	for _, h := range d.hosts {
		switch h.settled {
		case 1:
			c.HostsAll++
		case -1:
			c.HostsNone++
		}
	}
	return c
}
