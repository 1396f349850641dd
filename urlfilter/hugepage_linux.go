//go:build linux

package urlfilter

import (
	"syscall"
	"unsafe"
)

// hugePageBytes is the x86-64/arm64 transparent huge page size.
const hugePageBytes = 2 << 20

// adviseHuge asks Linux to back w with transparent huge pages
// (madvise MADV_HUGEPAGE; it only matters when THP is in "madvise" mode).
// A filter of 12 MB spans 3,000 4-KiB pages, more than the TLB holds, so
// without it most probes pay a page walk on top of the cache miss. Errors
// are ignored: the advice is an optimisation only.
func adviseHuge(w []uint64) {
	if len(w)*8 < 2*hugePageBytes {
		return
	}
	start := uintptr(unsafe.Pointer(&w[0]))
	end := start + uintptr(len(w))*8
	a := (start + hugePageBytes - 1) &^ (hugePageBytes - 1)
	b := end &^ (hugePageBytes - 1)
	if b <= a {
		return
	}
	sub := w[(a-start)/8 : (b-start)/8]
	_ = syscall.Madvise(unsafe.Slice((*byte)(unsafe.Pointer(&sub[0])), len(sub)*8), 14 /* MADV_HUGEPAGE */)
}
