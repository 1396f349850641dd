//go:build linux

package filterbench

import (
	"syscall"
	"time"
	"unsafe"
)

// threadCPUTime returns the CPU time the calling OS thread has used
// (clock_gettime CLOCK_THREAD_CPUTIME_ID, nanosecond resolution). Benchmarks
// pin their goroutine with runtime.LockOSThread and time with it so that,
// on a machine shared with other work, ns per operation counts only this
// thread's own execution. ok is false where unsupported.
func threadCPUTime() (d time.Duration, ok bool) {
	var ts syscall.Timespec
	const clockThreadCPUTimeID = 3
	if _, _, e := syscall.Syscall(syscall.SYS_CLOCK_GETTIME, clockThreadCPUTimeID, uintptr(unsafe.Pointer(&ts)), 0); e != 0 {
		return 0, false
	}
	return time.Duration(ts.Nano()), true
}
