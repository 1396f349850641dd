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
// A filter of 12 MB spans 3,000 4-KiB pages, more than the L1 TLB holds.
// Errors are ignored: the advice is an optimisation only.
//
// It is advice, not a guarantee: only the whole 2 MiB pages inside w are
// advised, and pages the Go heap had already touched (it zeroes reused
// memory) stay small; AnonHugePages during `bench filter` showed 14 of
// 14.4 MB huge in one run and 2 MB in another. On the 2-core KVM machine of
// the package doc's figures, an mmap'ed, 2 MiB-aligned, fully huge array
// and one advised MADV_NOHUGEPAGE tested at the same speed within the
// noise (batch and single), so the filter does not take its memory outside
// the Go heap to make the advice certain.
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
