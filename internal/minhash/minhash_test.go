package minhash

import "testing"

func TestEstimate(t *testing.T) {
	for _, tc := range []struct {
		a, b []uint64
		want float64
	}{
		{[]uint64{1, 2, 3, 4}, []uint64{1, 2, 3, 4}, 1},
		{[]uint64{1, 2, 3, 4}, []uint64{1, 9, 3, 9}, 0.5},
		{[]uint64{1, 2, 3, 4}, []uint64{5, 6, 7, 8}, 0},
		{[]uint64{1, 2}, []uint64{1, 2, 3}, 0},
		{nil, nil, 0},
	} {
		if got := Estimate(tc.a, tc.b); got != tc.want {
			t.Errorf("Estimate(%v, %v) = %v, want %v", tc.a, tc.b, got, tc.want)
		}
	}
}
