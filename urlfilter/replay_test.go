package urlfilter

import (
	"context"
	"io"
	"runtime"
	"slices"
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

func TestReplayCounts(t *testing.T) {
	tiny := mustNew(t, Options{Variant: VariantClassic, Capacity: 1, BitsPerKey: 64}) // 64 bits: saturates
	res, err := Replay(context.Background(), slices.Values(stream), []ReplayFilter{
		{"prefix", &prefixFilter{seen: map[string]bool{}}},
		{"exact", NewExact()},
		{"chain", mustNew(t, Options{Variant: VariantChain, Window: 2, Generations: 2, TargetFP: 0.01})},
		{"tiny", tiny},
	})
	if err != nil {
		t.Fatal(err)
	}
	p, x, c := res[0], res[1], res[2]
	if p.Tested != 25 || p.Distinct != 10 || p.FalsePositives != 3 || p.Forgotten != 0 || p.MeasuredFP != 0.3 || p.BitsPerKey != 80 {
		t.Errorf("prefix filter: %+v", p)
	}
	if x.FalsePositives != 0 || x.Forgotten != 0 || x.Distinct != 10 || x.Variant != VariantExact {
		t.Errorf("exact: %+v", x)
	}
	// A chain remembering only 2-4 keys forgets most repeats.
	if c.Forgotten == 0 || c.Forgotten > 15 {
		t.Errorf("chain: %+v", c)
	}
	// The saturated 64-bit filter: its FP count equals an independent
	// recount on a twin filter.
	twin := mustNew(t, Options{Variant: VariantClassic, Capacity: 1, BitsPerKey: 64})
	seen := map[string]bool{}
	var want uint64
	for _, k := range stream {
		if twin.TestAndAdd(k) && !seen[k] {
			want++
		}
		seen[k] = true
	}
	if res[3].FalsePositives != want {
		t.Errorf("tiny filter: %d false positives, recount says %d", res[3].FalsePositives, want)
	}
}

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

func TestThreadCPUTime(t *testing.T) {
	// The clock is per OS thread: pin the goroutine, or it may move to a
	// thread that has used less CPU and the clock appears to run backwards.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	a, ok := ThreadCPUTime()
	if !ok {
		t.Skip("no per-thread CPU clock on this platform")
	}
	x := 0
	for i := 0; i < 3_000_000; i++ {
		x += i ^ (x >> 3)
	}
	b, _ := ThreadCPUTime()
	if b <= a {
		t.Fatalf("thread CPU time did not advance over a busy loop (%v → %v, %d)", a, b, x)
	}
}
