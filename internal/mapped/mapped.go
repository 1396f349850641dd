// Package mapped provides large pointer-free arrays held in an unlinked,
// memory-mapped file instead of on the Go heap, for the structures of a
// crawl that grow with it (the content-dedup index, the URL filter's
// confirmation cache): their pages are then page cache, like Badger's
// tables, not the process's anonymous memory, so the kernel can write them
// back and reclaim them under memory pressure, and the garbage collector
// neither scans them nor counts them when it sizes the heap (on the heap
// an array costs about twice its size in anonymous memory, with the
// headroom the collector keeps above the live heap).
//
// A [File] maps each array as its own region, whose blocks are allocated
// on disk when it is mapped (fallocate), so a full disk makes [Make] fall
// back to the heap rather than fault later on a write to the mapping
// (SIGBUS); [Free] unmaps a region and gives its blocks back (a hole
// punched in the file). Arrays below [MinBytes] stay on the heap. On
// systems other than Linux, and with a nil *File, every array is on the
// heap.
package mapped

import (
	"slices"
	"unsafe"
)

// MinBytes is the size from which [Make] maps an array (see
// [File.SetMinBytes]).
const MinBytes = 256 << 10

// Make returns a zeroed array of n Ts: a region of f when f is not nil and
// the array is at least f's minimum size, else (or when f cannot map it)
// on the Go heap. T must hold no pointers: the garbage collector does not
// see mapped memory.
func Make[T any](f *File, n int) []T {
	var t T
	size := int(unsafe.Sizeof(t)) * n
	if f != nil && size > 0 && size >= f.min {
		if b := f.alloc(size); b != nil {
			return unsafe.Slice((*T)(unsafe.Pointer(unsafe.SliceData(b))), n)
		}
	}
	return make([]T, n)
}

// Free releases s if f mapped it (a heap array is left to the garbage
// collector). s, and every slice of its array, must not be used after.
func Free[T any](f *File, s []T) {
	if f == nil || cap(s) == 0 {
		return
	}
	f.free(uintptr(unsafe.Pointer(unsafe.SliceData(s))))
}

// Grow returns s with room for n more elements, like slices.Grow: s
// itself if it has the room, else s copied into a new array (of f when
// f is not nil, with at least twice the old capacity) and the old array
// freed. Mapped capacity that is never written costs disk blocks but no
// memory, and arrays grown in place are not faulted in again: merging
// into a grown array touches far fewer fresh pages than copying into a
// new exact-size one each time.
func Grow[T any](f *File, s []T, n int) []T {
	if n <= cap(s)-len(s) {
		return s
	}
	if f == nil {
		return slices.Grow(s, n)
	}
	t := Make[T](f, max(2*cap(s), len(s)+n))
	copy(t, s)
	Free(f, s)
	return t[:len(s)]
}

// SetMinBytes sets the size from which f maps an array (MinBytes by
// default; tests lower it to map every array).
func (f *File) SetMinBytes(n int) {
	if f != nil {
		f.min = n
	}
}
