package contentdedup

import (
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/bloomcrawl/bloomcrawl/internal/mapped"
)

// TestPackedMapMatchesMap runs random sets (new keys and updates) and gets
// on a packedMap and a Go map side by side, across many merges: with the
// arrays on the heap and in a mapped.File.
func TestPackedMapMatchesMap(t *testing.T) {
	t.Run("heap", func(t *testing.T) { testPackedMap(t, nil) })
	t.Run("mapped", func(t *testing.T) {
		mf := mustMapFile(t)
		testPackedMap(t, mf)
		if runtime.GOOS == "linux" && mf.Bytes() < 1<<20 {
			t.Errorf("%d bytes mapped for about 150,000 keys; want their arrays (at least 1 MiB)", mf.Bytes())
		}
	})
}

func testPackedMap(t *testing.T, mf *mapped.File) {
	r := rand.New(rand.NewPCG(3, 4))
	m := packedMap{mf: mf}
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

// mustMapFile returns a mapped.File in a temporary directory, closed when
// the test ends (nil where arrays are not mapped).
func mustMapFile(t *testing.T) *mapped.File {
	t.Helper()
	mf, err := mapped.Create(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { mf.Close() })
	return mf
}
