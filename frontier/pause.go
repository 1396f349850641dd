package frontier

import "time"

// Pause holds host (host[:port], as in the entries' URLs) until until:
// none of its entries is handed out by Next, nor may a Hop enter it,
// before then (a host that answered 429 with Retry-After, or keeps
// failing). Entries in flight are not affected. Safe for concurrent use.
func (f *Frontier) Pause(host string, until time.Time) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.drained[host] {
		return
	}
	h := f.host(host)
	h.readyAt = maxTime(h.readyAt, until)
	f.fix(h, time.Now())
	f.broadcast()
}

// drainParallelism is the parallelism of a drained host: no limit.
const drainParallelism = 1 << 30

// Drain hands host's entries out from now on as fast as they are asked
// for: no delay, no parallelism limit, no pause (a host set aside, whose
// entries are recorded without being fetched). It lasts for the
// frontier's life. Safe for concurrent use.
func (f *Frontier) Drain(host string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.drained == nil {
		f.drained = map[string]bool{}
	}
	f.drained[host] = true
	f.hostDelay[host] = 0 // known, no delay of its own
	if h := f.hosts[host]; h != nil {
		h.readyAt = time.Time{}
		if h.timer != nil {
			h.timer.Stop()
			h.timer = nil
		}
		f.fix(h, time.Now())
		f.broadcast()
	}
}
