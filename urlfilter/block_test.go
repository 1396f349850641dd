package urlfilter

import (
	"fmt"
	"testing"
)

func TestBlockShapeSeenRecords(t *testing.T) {
	m, k := BlockShape(1000, 0.001)
	if m != 14400 || k != 10 {
		t.Fatalf("BlockShape(1000, 0.001) = %d bits, k %d; want 14400, 10", m, k)
	}
}

// TestBlockRoundTripAndFP: a Block read back from its bytes answers as the
// one written (no false negatives), and its measured false-positive rate
// on 100,000 fresh keys is near ClassicFP at capacity.
func TestBlockRoundTripAndFP(t *testing.T) {
	m, k := BlockShape(1000, 0.001)
	b := NewBlock(m, k)
	for i := range 1000 {
		b.Add(fmt.Sprintf("id-%d", i))
	}
	r, err := BlockFromBytes(b.Bytes(), k)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 1000 {
		if !r.Test(fmt.Sprintf("id-%d", i)) {
			t.Fatalf("id-%d lost in the round trip", i)
		}
	}
	fp := 0
	const probes = 100_000
	for i := range probes {
		if r.Test(fmt.Sprintf("fresh-%d", i)) {
			fp++
		}
	}
	got, want := float64(fp)/probes, ClassicFP(m, k, 1000)
	if got > 2*want || got < want/2 {
		t.Fatalf("measured FP %.5f, predicted %.5f", got, want)
	}
	t.Logf("measured FP %.5f, predicted %.5f, target 0.001", got, want)
}

func TestBlockFromBytesErrors(t *testing.T) {
	for _, c := range []struct {
		n, k int
	}{{0, 3}, {7, 3}, {16, 0}} {
		if _, err := BlockFromBytes(make([]byte, c.n), c.k); err == nil {
			t.Errorf("BlockFromBytes(%d bytes, k=%d): no error", c.n, c.k)
		}
	}
}
