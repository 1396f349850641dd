package urlfilter

import "testing"

func TestBatchMatchesSingle(t *testing.T) {
	for _, v := range []string{VariantScalable, VariantBlocked, VariantClassic, VariantExact} {
		f := mustNew(t, Options{Variant: v, Capacity: 2000, TargetFP: 0.01})
		g := mustNew(t, Options{Variant: v, Capacity: 2000, TargetFP: 0.01})
		// 10,000 keys (5× capacity: scalable grows mid-batch), each twice,
		// the repeat sometimes in the same batch.
		var keys []string
		for i := 0; i < 10_000; i++ {
			keys = append(keys, key(i))
			if i%3 == 0 {
				keys = append(keys, key(i))
			} else if i > 50 {
				keys = append(keys, key(i-50))
			}
		}
		seen := make([]bool, len(keys))
		TestAndAddBatch(f, keys, seen)
		for i, k := range keys {
			if want := g.TestAndAdd(k); seen[i] != want {
				t.Fatalf("%s: TestAndAddBatch[%d] = %v, TestAndAdd = %v", v, i, seen[i], want)
			}
		}
		probe := make([]string, 5000)
		for i := range probe {
			probe[i] = key(9000 + i)
		}
		got := make([]bool, len(probe))
		TestBatch(f, probe, got)
		for i, k := range probe {
			if got[i] != f.Test(k) {
				t.Fatalf("%s: TestBatch[%d] differs from Test", v, i)
			}
		}
	}
}
