package urlfilter

import (
	"io"
	"strings"
	"sync"
	"testing"
)

// prefixFilter is a test filter whose false positives are known by
// construction: it calls every key starting with "lost-" seen.
type prefixFilter struct {
	mu   sync.Mutex
	seen map[string]bool
}

func (p *prefixFilter) TestAndAdd(k string) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if strings.HasPrefix(k, "lost-") || p.seen[k] {
		return true
	}
	p.seen[k] = true
	return false
}
func (p *prefixFilter) Test(k string) bool                 { return strings.HasPrefix(k, "lost-") || p.seen[k] }
func (p *prefixFilter) Stats() Stats                       { return Stats{Variant: "prefix", Bits: 800} }
func (p *prefixFilter) WriteTo(w io.Writer) (int64, error) { return 0, nil }

// stream: 10 distinct keys, 3 of them "lost-", each repeated; total 25.
var stream = []string{"a", "b", "lost-1", "a", "c", "lost-2", "b", "d", "lost-1", "e", "f", "a", "g", "lost-3",
	"g", "g", "b", "c", "d", "e", "f", "lost-2", "lost-3", "a", "b"}

func TestAuditCounts(t *testing.T) {
	a := NewAudit(&prefixFilter{seen: map[string]bool{}})
	var admitted []string
	for _, k := range stream {
		if !a.TestAndAdd(k) {
			admitted = append(admitted, k)
		}
	}
	if len(admitted) != 10 {
		t.Errorf("audit admitted %v, want all 10 distinct keys (nothing lost)", admitted)
	}
	c := a.Counts()
	if c.Tested != 25 || c.Distinct != 10 || c.FalsePositives != 3 || a.FalsePositives() != 3 || c.MeasuredFP != 0.3 {
		t.Errorf("counts %+v", c)
	}
}
