package urlfilter

import (
	"io"
	"sync/atomic"
)

// Audit wraps a Filter with an exact shadow set. Its TestAndAdd and Test
// answer with the exact truth, so a crawl run through an Audit loses no page
// to a false positive, while it counts how often the wrapped filter would
// have lost one. Audit is safe for concurrent use; it costs the exact set's
// memory (every distinct key is kept).
type Audit struct {
	f        Filter
	truth    *exact
	tested   atomic.Uint64
	distinct atomic.Uint64
	fps      atomic.Uint64
	forgot   atomic.Uint64
}

// NewAudit returns an Audit around f.
func NewAudit(f Filter) *Audit { return &Audit{f: f, truth: newExact()} }

// TestAndAdd records key in both the wrapped filter and the exact set and
// returns the exact answer. When the filter says seen and the exact set says
// new, it counts a false positive; when the filter says new but the key was
// seen (a chain that forgot it), it counts a forgotten key.
func (a *Audit) TestAndAdd(key string) bool { return a.record(key, a.f.TestAndAdd(key)) }

// record adds key to the exact set, counts the filter's answer fseen against
// the truth and returns the truth.
func (a *Audit) record(key string, fseen bool) bool {
	seen := a.truth.TestAndAdd(key)
	a.tested.Add(1)
	if !seen {
		a.distinct.Add(1)
		if fseen {
			a.fps.Add(1)
		}
	} else if !fseen {
		a.forgot.Add(1)
	}
	return seen
}

// Test returns the exact answer; it counts nothing.
func (a *Audit) Test(key string) bool { return a.truth.Test(key) }

// Stats returns the wrapped filter's Stats.
func (a *Audit) Stats() Stats { return a.f.Stats() }

// WriteTo snapshots the wrapped filter (not the shadow set).
func (a *Audit) WriteTo(w io.Writer) (int64, error) { return a.f.WriteTo(w) }

// Filter returns the wrapped filter.
func (a *Audit) Filter() Filter { return a.f }

// AuditCounts is a snapshot of an Audit's counters.
type AuditCounts struct {
	Tested         uint64  // TestAndAdd calls
	Distinct       uint64  // keys the exact set had not seen
	FalsePositives uint64  // distinct keys the filter called seen: pages it would have lost
	Forgotten      uint64  // repeated keys the filter called new (chains only)
	MeasuredFP     float64 // FalsePositives / Distinct
	PredictedFP    float64 // the wrapped filter's formula at its current fill
}

// Counts returns the counters so far.
func (a *Audit) Counts() AuditCounts {
	c := AuditCounts{Tested: a.tested.Load(), Distinct: a.distinct.Load(), FalsePositives: a.fps.Load(),
		Forgotten: a.forgot.Load(), PredictedFP: a.f.Stats().PredictedFP}
	if c.Distinct > 0 {
		c.MeasuredFP = float64(c.FalsePositives) / float64(c.Distinct)
	}
	return c
}

// FalsePositives returns the number of distinct keys the wrapped filter
// wrongly called seen.
func (a *Audit) FalsePositives() uint64 { return a.fps.Load() }
