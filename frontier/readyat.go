package frontier

import "time"

// ReadyAt returns the latest time before which one of the hosts that
// match may not be sent a request (its delay or Crawl-delay since its
// last request), or the zero time when none waits. A cluster node hands a
// partition's hosts to another node only after it (the next owner then
// keeps their politeness). Safe for concurrent use.
func (f *Frontier) ReadyAt(match func(host string) bool) time.Time {
	f.mu.Lock()
	defer f.mu.Unlock()
	var t time.Time
	for name, h := range f.hosts {
		if h.readyAt.After(t) && match(name) {
			t = h.readyAt
		}
	}
	return t
}
