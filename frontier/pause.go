package frontier

import "time"

// Pause holds host (host[:port], as in the entries' URLs) until until:
// none of its entries is handed out by Next, nor may a Hop enter it,
// before then (a host that answered 429 with Retry-After, or keeps
// failing). Entries in flight are not affected. Safe for concurrent use.
func (f *Frontier) Pause(host string, until time.Time) {
	f.mu.Lock()
	defer f.mu.Unlock()
	h := f.host(host)
	h.readyAt = maxTime(h.readyAt, until)
	f.fix(h, time.Now())
	f.broadcast()
}
