package contentdedup

import (
	"math/rand/v2"
	"testing"
)

// TestPackedMapMatchesMap runs random sets (new keys and updates) and gets
// on a packedMap and a Go map side by side, across many merges.
func TestPackedMapMatchesMap(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	var m packedMap
	ref := map[uint64]uint64{}
	keys := []uint64{}
	for i := range 200_000 {
		var k uint64
		if len(keys) > 0 && r.IntN(4) == 0 {
			k = keys[r.IntN(len(keys))] // an update
		} else {
			k = r.Uint64() >> r.IntN(64) // small keys too, 0 included
			keys = append(keys, k)
		}
		v := r.Uint64()
		m.set(k, v)
		ref[k] = v
		if i%7 == 0 {
			q := keys[r.IntN(len(keys))]
			if r.IntN(2) == 0 {
				q = r.Uint64() // most likely absent
			}
			got, ok := m.get(q)
			want, wok := ref[q]
			if got != want || ok != wok {
				t.Fatalf("step %d: get(%x) = %x, %v; want %x, %v", i, q, got, ok, want, wok)
			}
		}
	}
	if m.len() != len(ref) {
		t.Fatalf("len %d, want %d", m.len(), len(ref))
	}
	if len(m.keys) == 0 {
		t.Fatal("nothing was merged; the test is not testing")
	}
	for k, v := range ref {
		if got, ok := m.get(k); !ok || got != v {
			t.Fatalf("get(%x) = %x, %v; want %x", k, got, ok, v)
		}
	}
}
