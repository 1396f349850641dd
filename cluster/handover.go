package cluster

import "time"

// SetReleaseGate sets when a partition this node gives up may be released
// at the earliest (gate: the time its hosts' politeness windows end here;
// the zero time for at once). Until then the partition is drained but
// kept, so the next owner's first request to one of its hosts comes no
// sooner after this node's last than the host's delay or Crawl-delay.
// Default none (released once none of its entries is in flight).
func (n *Node) SetReleaseGate(gate func(partition int) time.Time) {
	n.mu.Lock()
	n.gate = gate
	n.mu.Unlock()
}

// gateOpen reports whether partition p may be released now. n.mu must be
// held.
func (n *Node) gateOpen(p int, now time.Time) bool {
	return n.gate == nil || !now.Before(n.gate(p))
}
