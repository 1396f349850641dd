package filterbench

import (
	"runtime"
	"time"
)

// clock returns this OS thread's CPU time where the platform reports it
// (callers lock the goroutine to its thread), else the wall time since
// start-up; clockName says which.
var clock, clockName = func() (func() time.Duration, string) {
	if _, ok := threadCPUTime(); ok {
		return func() time.Duration { d, _ := threadCPUTime(); return d }, "thread-cpu"
	}
	t0 := time.Now()
	return func() time.Duration { return time.Since(t0) }, "wall"
}()

func heapInUse() uint64 {
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapInuse
}
