package frontier

import (
	"time"
)

// HostState is one host's state in the frontier at the moment Hosts was
// called.
type HostState struct {
	Host string // host[:port], as in the entries' URLs
	// Queued are the host's entries in memory (the frontier's window of
	// Options.Window entries; entries spilled to the store are not
	// counted), Active its requests in flight.
	Queued, Active int
	// ReadyAt is the earliest time the host may be sent its next request
	// (its delay or Crawl-delay since the last one); zero or past: now.
	ReadyAt time.Time
	// Delay is the delay in force between two requests to the host
	// (Options.Delay, or a longer SetHostDelay).
	Delay time.Duration
}

// Hosts returns the state of every host the frontier holds now: hosts
// with entries queued in memory, requests in flight or a delay still
// running (a host drops out once it has none of these). The order is
// unspecified. It takes the frontier's lock for a copy of each host's
// few fields. Safe for concurrent use.
func (f *Frontier) Hosts() []HostState {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := make([]HostState, 0, len(f.hosts))
	for name, h := range f.hosts {
		out = append(out, HostState{Host: name, Queued: len(h.q), Active: h.active, ReadyAt: h.readyAt, Delay: f.delay(name)})
	}
	return out
}
