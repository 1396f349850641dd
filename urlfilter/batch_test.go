package urlfilter

import (
	"math/rand/v2"
	"sync"
	"testing"
)

// batchTestKeys returns 10,000 keys, each twice, the repeat sometimes in the
// same batch of 64 and sometimes in an earlier one.
func batchTestKeys() []string {
	var keys []string
	for i := 0; i < 10_000; i++ {
		keys = append(keys, key(i))
		if i%3 == 0 {
			keys = append(keys, key(i))
		} else if i > 50 {
			keys = append(keys, key(i-50))
		}
	}
	return keys
}

func TestBatchMatchesSingle(t *testing.T) {
	batchVariants := append(append([]string{}, fixedVariants...), VariantChain)
	for _, v := range batchVariants {
		for _, layer := range []string{VariantBlocked, VariantClassic} {
			o := Options{Variant: v, Capacity: 2000, TargetFP: 0.01, Window: 4000, Layer: layer}
			f, g := mustNew(t, o), mustNew(t, o)
			// 5× capacity: scalable grows mid-batch, chain rotates.
			keys := batchTestKeys()
			seen := make([]bool, len(keys))
			TestAndAddBatch(f, keys, seen)
			for i, k := range keys {
				if want := g.TestAndAdd(k); seen[i] != want {
					t.Fatalf("%s/%s: TestAndAddBatch[%d] = %v, TestAndAdd = %v", v, layer, i, seen[i], want)
				}
			}
			if fs, gs := f.Stats(), g.Stats(); fs != gs {
				t.Fatalf("%s/%s: Stats after the batch %+v, after single calls %+v", v, layer, fs, gs)
			}
			probe := make([]string, 5000)
			for i := range probe {
				probe[i] = key(9000 + i)
			}
			got := make([]bool, len(probe))
			TestBatch(f, probe, got)
			for i, k := range probe {
				if got[i] != f.Test(k) {
					t.Fatalf("%s/%s: TestBatch[%d] differs from Test", v, layer, i)
				}
			}
			// The method form, which frontier uses, is the same function.
			m, ok := f.(interface{ TestAndAddBatch([]string, []bool) })
			if !ok {
				t.Fatalf("%s: no TestAndAddBatch method", v)
			}
			m.TestAndAddBatch(probe, got)
			for i, k := range probe {
				if !got[i] && !f.Test(k) {
					t.Fatalf("%s/%s: method TestAndAddBatch did not add %q", v, layer, k)
				}
			}
		}
	}
}

// TestBlockedTestMatchesMasks checks that test, which walks the key's bit
// positions itself, reads exactly the positions masks (and so set) writes,
// for every k including those that need a second or third remix (k > 7).
func TestBlockedTestMatchesMasks(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for k := 1; k <= 24; k++ {
		b := newBlocked(64, k, 1000, 0.01)
		for i := range b.words {
			b.words[i] = rng.Uint64() | rng.Uint64() // about 3/4 of the bits set
		}
		agree, positive := 0, 0
		for range 20_000 {
			h := rng.Uint64()
			blk, m := b.block(h), b.masks(h)
			want := true
			for j := range m {
				if blk[j]&m[j] != m[j] {
					want = false
				}
			}
			if got := b.test(h); got != want {
				t.Fatalf("k=%d h=%#x: test = %v, masks say %v", k, h, got, want)
			}
			agree++
			if want {
				positive++
			}
		}
		if positive == 0 || positive == agree {
			t.Fatalf("k=%d: %d of %d positive: the fill does not exercise test", k, positive, agree)
		}
	}
}

func TestBatchDoesNotAllocate(t *testing.T) {
	f := mustNew(t, Options{Capacity: 100_000, TargetFP: 0.01})
	keys := make([]string, 200)
	for i := range keys {
		keys[i] = key(i)
	}
	seen := make([]bool, len(keys))
	TestAndAddBatch(f, keys, seen)
	if a := testing.AllocsPerRun(20, func() { TestBatch(f, keys, seen) }); a != 0 {
		t.Errorf("TestBatch: %v allocations per call", a)
	}
	if a := testing.AllocsPerRun(20, func() { TestAndAddBatch(f, keys, seen) }); a != 0 {
		t.Errorf("TestAndAddBatch of seen keys: %v allocations per call", a)
	}
}

// TestAndAddBatchAtomic: goroutines batch-adding the same keys (each list
// with repeats) get "new" exactly once per distinct key, all together.
func TestAndAddBatchAtomic(t *testing.T) {
	for _, o := range []Options{
		{Variant: VariantScalable, Capacity: 1000, TargetFP: 1e-9}, // grows meanwhile
		{Variant: VariantBlocked, Capacity: 20_000, TargetFP: 1e-9},
	} {
		v := o.Variant
		f := mustNew(t, o)
		keys := batchTestKeys() // 10,000 distinct
		const workers = 4
		news := make([][]bool, workers)
		var wg sync.WaitGroup
		for w := range workers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				seen := make([]bool, len(keys))
				// Different batch boundaries per worker.
				for lo := 0; lo < len(keys); {
					hi := min(len(keys), lo+17+w*23)
					TestAndAddBatch(f, keys[lo:hi], seen[lo:hi])
					lo = hi
				}
				news[w] = seen
			}()
		}
		wg.Wait()
		count := map[string]int{}
		for _, seen := range news {
			for i, s := range seen {
				if !s {
					count[keys[i]]++
				}
			}
		}
		if len(count) != 10_000 {
			t.Errorf("%s: %d keys reported new at least once, want 10000", v, len(count))
		}
		for k, n := range count {
			if n != 1 {
				t.Fatalf("%s: %q reported new %d times", v, k, n)
			}
		}
	}
}

func TestAuditBatchCounts(t *testing.T) {
	o := Options{Capacity: 500, TargetFP: 0.2, BitsPerKey: 3} // many false positives
	a, b := NewAudit(mustNew(t, o)), NewAudit(mustNew(t, o))
	keys := batchTestKeys()
	seen := make([]bool, len(keys))
	a.TestAndAddBatch(keys, seen)
	for i, k := range keys {
		if want := b.TestAndAdd(k); seen[i] != want {
			t.Fatalf("Audit.TestAndAddBatch[%d] = %v, TestAndAdd = %v", i, seen[i], want)
		}
	}
	if ca, cb := a.Counts(), b.Counts(); ca != cb || ca.FalsePositives == 0 {
		t.Fatalf("batch counts %+v, single %+v (want equal, with false positives)", ca, cb)
	}
}
