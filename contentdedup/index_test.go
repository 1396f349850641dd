package contentdedup

import (
	"errors"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync"
	"testing"

	"github.com/bloomcrawl/bloomcrawl/internal/mapped"
)

// flipBits returns fp with d distinct random bits flipped.
func flipBits(r *rand.Rand, fp uint64, d int) uint64 {
	for _, b := range r.Perm(64)[:d] {
		fp ^= 1 << uint(b)
	}
	return fp
}

// randomSet returns n random fingerprints, with near neighbours planted at
// every distance 0..8 around some of them.
func randomSet(r *rand.Rand, n int) []uint64 {
	fps := make([]uint64, 0, n)
	for len(fps) < n {
		fp := r.Uint64()
		fps = append(fps, fp)
		if r.IntN(4) == 0 {
			for d := 0; d <= 8 && len(fps) < n; d++ {
				fps = append(fps, flipBits(r, fp, d))
			}
		}
	}
	return fps
}

func TestIndexMatchesLinearScan(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	fps := randomSet(r, 20000)
	distinct := slices.Compact(slices.Sorted(slices.Values(fps)))
	for k := 0; k <= MaxThreshold; k++ {
		for _, batch := range []bool{false, true} {
			x, err := NewIndex(k)
			if err != nil {
				t.Fatal(err)
			}
			if batch {
				x.AddBatch(fps)
			} else {
				for _, fp := range fps {
					x.Add(fp)
				}
			}
			if x.Len() != len(distinct) {
				t.Fatalf("k=%d batch=%v: Len %d, want %d", k, batch, x.Len(), len(distinct))
			}
			found := 0
			for i := 0; i < 3000; i++ {
				q := fps[r.IntN(len(fps))]
				q = flipBits(r, q, r.IntN(k+3))
				got := x.Within(q, nil)
				want := slices.Sorted(slices.Values(LinearScan(distinct, q, k, nil)))
				if !slices.Equal(got, want) {
					t.Fatalf("k=%d batch=%v q=%016x: index %x, linear scan %x", k, batch, q, got, want)
				}
				found += len(got)
			}
			if found == 0 {
				t.Fatalf("k=%d: no query found anything; the test is not testing", k)
			}
		}
	}
}

func TestIndexThresholdRange(t *testing.T) {
	for _, k := range []int{-1, MaxThreshold + 1} {
		if _, err := NewIndex(k); !errors.Is(err, ErrThreshold) {
			t.Errorf("NewIndex(%d) = %v, want ErrThreshold", k, err)
		}
	}
}

func TestIndexConcurrent(t *testing.T) {
	x, _ := NewIndex(3)
	var wg sync.WaitGroup
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := rand.New(rand.NewPCG(uint64(g), 9))
			for i := 0; i < 5000; i++ {
				fp := r.Uint64()
				if !x.Add(fp) {
					t.Errorf("fresh random fingerprint reported as present")
				}
				if _, d, ok := x.Nearest(flipBits(r, fp, 2)); !ok || d > 2 {
					t.Errorf("Nearest after Add: d=%d ok=%v", d, ok)
				}
			}
		}()
	}
	wg.Wait()
	if x.Len() != 20000 {
		t.Fatalf("Len %d, want 20000", x.Len())
	}
}

// TestIndexLevelsMatchLinearScan adds fingerprints one by one and checks
// queries against a linear scan at many points in between, so that the
// unsorted buffer, the mid tables and the big tables are each full, empty
// and partly full at some checkpoint; with the big tables on the heap and
// in a mapped.File (every array mapped).
func TestIndexLevelsMatchLinearScan(t *testing.T) {
	t.Run("heap", func(t *testing.T) { testIndexLevels(t, nil) })
	t.Run("mapped", func(t *testing.T) {
		mf := mustMapFile(t)
		mf.SetMinBytes(1)
		testIndexLevels(t, mf)
		if runtime.GOOS == "linux" && mf.Bytes() == 0 {
			t.Error("no table was mapped")
		}
	})
}

func testIndexLevels(t *testing.T, mf *mapped.File) {
	r := rand.New(rand.NewPCG(3, 4))
	fps := randomSet(r, 30000)
	for _, k := range []int{3, 6} {
		x, err := NewIndex(k)
		if err != nil {
			t.Fatal(err)
		}
		x.mf = mf
		for i, fp := range fps {
			x.Add(fp)
			if i%2777 != 0 && i != len(fps)-1 {
				continue
			}
			added := slices.Compact(slices.Sorted(slices.Values(fps[:i+1])))
			if x.Len() != len(added) {
				t.Fatalf("k=%d after %d adds: Len %d, want %d", k, i+1, x.Len(), len(added))
			}
			for range 200 {
				q := flipBits(r, fps[r.IntN(i+1)], r.IntN(k+3))
				got := x.Within(q, nil)
				want := slices.Sorted(slices.Values(LinearScan(added, q, k, nil)))
				if !slices.Equal(got, want) {
					t.Fatalf("k=%d after %d adds, q=%016x: index %x, linear scan %x", k, i+1, q, got, want)
				}
				if !x.Contains(fps[r.IntN(i+1)]) {
					t.Fatalf("k=%d after %d adds: a member not contained", k, i+1)
				}
			}
		}
	}
}
