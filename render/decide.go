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
	DefaultLearnPages = 10 // outcomes in a row that settle a host
	DefaultSample     = 20 // a host settled to "none" still renders one flagged page in this many
)

// Decider decides which pages to render: the first Rule that matches a
// URL sets its mode, else Mode. In auto mode a page is rendered when
// Detect finds a clue in its HTML, and each host learns from the outcome
// of its renders (Observe: did the render find more text or links than
// the server's HTML?):
//
//   - after LearnPages pages in a row that were flagged and whose render
//     gained, on a host none of whose pages went unflagged, the host is
//     settled to "all": every page of it is rendered without a check (a
//     page the check would miss included), until a render gains nothing;
//   - after LearnPages renders in a row that gained nothing (the check's
//     false positives on that host), the host is settled to "none":
//     flagged pages are not rendered, but one in Sample of them is, and
//     a render that gains sends the host back to learning.
//
// A page the check does not flag is never rendered on a host that is not
// settled to "all". It is safe for concurrent use.
type Decider struct {
	mode       Mode
	rules      []Rule
	learnPages int
	sample     int

	mu      sync.Mutex
	hosts   map[string]*hostState
	counts  map[string]int64 // decisions by reason ("" = not rendered)
	obs     [2]int64         // observations: rendered pages that gained [1] or not [0]
	skipped int64            // flagged pages not rendered: their host settled to "none"
}

// hostState is one host's learning.
type hostState struct {
	gained, noGain int  // pages in a row flagged whose render gained; renders in a row that gained nothing
	settled        int8 // 0 learning, +1 render all, -1 render none
	mixed          bool // a page of the host was not flagged: never settled to "all"
	flagged        int  // flagged pages since settled to none
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

// Decide decides whether to render the page at url (canonical) of host;
// check is the cheap check of its server HTML (Detect or DetectNode),
// called only when the decision needs it.
func (d *Decider) Decide(url, host string, check func() Clue) Decision {
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
		settled := d.host(host).settled
		d.mu.Unlock()
		if settled > 0 {
			dec.Render, dec.Reason, dec.Observe = true, ReasonHost, true
			break
		}
		dec.Clue = check()
		if !dec.Clue.Needs() {
			d.mu.Lock()
			if h := d.host(host); h.settled == 0 {
				h.gained, h.mixed = 0, true // the host is not all scripts
			}
			d.mu.Unlock()
			break
		}
		dec.Render, dec.Reason, dec.Observe = true, dec.Clue.Reason, true
		if settled < 0 {
			d.mu.Lock()
			h := d.host(host)
			h.flagged++
			if h.flagged%d.sample != 0 {
				dec.Render, dec.Reason, dec.Observe = false, "", false
				d.skipped++
			}
			d.mu.Unlock()
		}
	}
	d.mu.Lock()
	d.counts[dec.Reason]++
	d.mu.Unlock()
	return dec
}

// host returns host's state, made if new. d.mu must be held.
func (d *Decider) host(name string) *hostState {
	h := d.hosts[name]
	if h == nil {
		h = &hostState{}
		d.hosts[name] = h
	}
	return h
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
// marked Observe: gained is whether the render found more than the
// server's HTML held.
func (d *Decider) Observe(host string, gained bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	h := d.host(host)
	if gained {
		d.obs[1]++
	} else {
		d.obs[0]++
	}
	switch {
	case h.settled > 0 && !gained, h.settled < 0 && gained:
		*h = hostState{mixed: h.mixed} // the host changed: learn again
	case h.settled != 0:
	case gained:
		h.noGain = 0
		if h.gained++; h.gained >= d.learnPages && !h.mixed {
			h.settled = 1
		}
	default:
		h.gained = 0
		if h.noGain++; h.noGain >= d.learnPages {
			h.settled = -1
		}
	}
}

// Counts are a Decider's decisions so far.
type Counts struct {
	Checked  int64            `json:"checked"`  // pages decided
	Rendered int64            `json:"rendered"` // of which decided to render (failed renders included)
	Reasons  map[string]int64 `json:"reasons"`  // rendered pages by reason
	// NoGain are rendered pages whose render found nothing the server's
	// HTML lacked (what the learning uses to stop rendering a host);
	// Skipped the pages the check flagged and that were not rendered,
	// their host having learned that renders gain nothing.
	NoGain  int64 `json:"no_gain"`
	Skipped int64 `json:"skipped"`
	// HostsAll and HostsNone are the hosts settled to render all or none
	// of their pages.
	HostsAll  int `json:"hosts_all"`
	HostsNone int `json:"hosts_none"`
}

// Counts returns the decisions so far.
func (d *Decider) Counts() Counts {
	d.mu.Lock()
	defer d.mu.Unlock()
	c := Counts{Reasons: map[string]int64{}, NoGain: d.obs[0], Skipped: d.skipped}
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
