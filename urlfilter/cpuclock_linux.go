//go:build linux

package urlfilter

import (
	"syscall"
	"time"
)

// ThreadCPUTime returns the CPU time the calling OS thread has used (user +
// system). Benchmarks pin their goroutine with runtime.LockOSThread and time
// with it so that, on a machine shared with other work, ns per operation
// counts only this thread's own execution. ok is false where unsupported.
func ThreadCPUTime() (d time.Duration, ok bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(1 /* RUSAGE_THREAD */, &ru); err != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}
