package mapped

import (
	"os"
	"runtime"
	"syscall"
	"testing"
)

// mustCreate returns a File in a temporary directory, closed when the test
// ends.
func mustCreate(t *testing.T) *File {
	t.Helper()
	f, err := Create(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

// allocated returns the bytes f's file holds on disk.
func allocated(t *testing.T, f *File) int64 {
	t.Helper()
	var st syscall.Stat_t
	if err := syscall.Fstat(int(f.f.Fd()), &st); err != nil {
		t.Fatal(err)
	}
	return st.Blocks * 512
}

// TestRegions maps arrays, writes and reads them, and frees some: the
// file holds on disk the arrays mapped and no more (blocks allocated when
// mapped, given back when freed), small arrays stay on the heap, the
// others keep their contents, and Close unmaps the rest.
func TestRegions(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("arrays are mapped on Linux only")
	}
	f := mustCreate(t)
	if b := f.alloc(4096); b == nil {
		t.Skipf("the file system of %s cannot allocate a mapped file's blocks: %v", os.TempDir(), f.Err())
	} else {
		Free(f, b)
	}
	small := Make[uint64](f, 100)
	if f.Bytes() != 0 {
		t.Fatalf("an array of 800 bytes was mapped (min %d)", MinBytes)
	}
	var arrs [][]uint64
	for i := range 5 {
		a := Make[uint64](f, MinBytes/8*(i+1))
		for j := range a {
			if a[j] != 0 {
				t.Fatalf("array %d: [%d] = %d, want zeroed", i, j, a[j])
			}
			a[j] = uint64(i*1000003 + j)
		}
		arrs = append(arrs, a)
	}
	want := int64(MinBytes * (1 + 2 + 3 + 4 + 5))
	if got := f.Bytes(); got != want {
		t.Fatalf("%d bytes mapped, want %d", got, want)
	}
	if got := allocated(t, f); got < want {
		t.Fatalf("%d bytes allocated on disk for %d mapped", got, want)
	}
	Free(f, small) // a heap array: ignored
	Free(f, arrs[1])
	Free(f, arrs[3][:10]) // any slice of the array from its start
	want -= MinBytes * (2 + 4)
	if got := f.Bytes(); got != want {
		t.Fatalf("after freeing two: %d bytes mapped, want %d", got, want)
	}
	if got := allocated(t, f); f.punch != nil {
		t.Logf("no hole punched (%v): %d bytes stay allocated until Close", f.punch, got)
	} else if got > want+64<<10 {
		t.Fatalf("after freeing two: %d bytes allocated on disk, want about %d (holes punched)", got, want)
	}
	for _, i := range []int{0, 2, 4} {
		for j, v := range arrs[i] {
			if v != uint64(i*1000003+j) {
				t.Fatalf("array %d: [%d] = %d after freeing others", i, j, v)
			}
		}
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	if f.Bytes() != 0 || len(f.regions) != 0 {
		t.Fatalf("after Close: %d bytes, %d regions mapped", f.Bytes(), len(f.regions))
	}
	if a := Make[uint64](f, MinBytes); len(a) != MinBytes || f.Bytes() != 0 {
		t.Fatal("after Close an array is not made on the heap")
	}
}

// TestFallsBackToHeap makes the file refuse allocation (a descriptor
// opened read-only, so fallocate fails as it does on a full disk): the
// array is made on the heap, usable, and the failure is reported.
func TestFallsBackToHeap(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("arrays are mapped on Linux only")
	}
	dir := t.TempDir()
	f := mustCreate(t)
	ro, err := os.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	f.f.Close()
	f.f = ro
	f.SetMinBytes(1)
	a := Make[uint64](f, 1000)
	a[999] = 7
	if f.Bytes() != 0 {
		t.Fatal("an array was mapped from a file that cannot allocate")
	}
	if f.Err() == nil {
		t.Fatal("Err is nil after a failed allocation")
	}
	Free(f, a) // a heap array: ignored
}

// TestNil checks that a nil File makes every array on the heap.
func TestNil(t *testing.T) {
	var f *File
	f.SetMinBytes(1)
	a := Make[uint64](f, MinBytes)
	a[len(a)-1] = 1
	Free(f, a)
	if f.Bytes() != 0 || f.Err() != nil || f.Close() != nil {
		t.Fatal("a nil File reports something")
	}
}

// TestGrow grows a mapped array past its capacity several times: the
// elements are kept, the capacity at least doubles, the old region is
// freed, and growing within the capacity keeps the array.
func TestGrow(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("arrays are mapped on Linux only")
	}
	f := mustCreate(t)
	f.SetMinBytes(1)
	var s []uint64
	for i := range 100_000 {
		before := cap(s)
		s = Grow(f, s, 1)
		if before > len(s) && cap(s) != before {
			t.Fatalf("step %d: grown with room left (cap %d → %d)", i, before, cap(s))
		}
		if cap(s) > before && before > 0 && cap(s) < 2*before {
			t.Fatalf("step %d: cap %d → %d, want at least double", i, before, cap(s))
		}
		s = append(s, uint64(i))
	}
	for i, v := range s {
		if v != uint64(i) {
			t.Fatalf("[%d] = %d after growing", i, v)
		}
	}
	if got, want := f.Bytes(), int64(8*cap(s)); got != want {
		t.Errorf("%d bytes mapped for one array of capacity %d (%d bytes): old regions not freed", got, cap(s), want)
	}
}
