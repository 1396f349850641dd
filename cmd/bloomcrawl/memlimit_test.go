package main

import (
	"context"
	"math"
	"runtime"
	"runtime/debug"
	"testing"
	"time"
)

// TestFollowMemLimitRaises: a lasting live heap above 60% of the limit
// raises the limit (instead of leaving the GC to run continuously).
func TestFollowMemLimitRaises(t *testing.T) {
	defer debug.SetMemoryLimit(math.MaxInt64)
	keep := make([]byte, 64<<20)
	for i := range keep {
		keep[i] = byte(i)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { followMemLimit(ctx, 16<<20, time.Millisecond); close(done) }()
	deadline := time.Now().Add(20 * time.Second)
	raised := func() bool { l := debug.SetMemoryLimit(-1); return l > 16<<20 && l != math.MaxInt64 }
	for !raised() && time.Now().Before(deadline) {
		runtime.GC()
		time.Sleep(5 * time.Millisecond)
	}
	cancel()
	<-done
	got := debug.SetMemoryLimit(-1)
	if got < 64<<20 {
		t.Fatalf("limit %d MiB with a 64 MiB live heap; want it raised above the heap", got>>20)
	}
	runtime.KeepAlive(keep)
}
