package memlimit

import (
	"context"
	"fmt"
	"math"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
	"time"
)

// TestFollowMemLimitRaises: a lasting live heap above 60% of the limit
// raises the limit (instead of leaving the GC to run continuously).
func TestFollowMemLimitRaises(t *testing.T) {
	debug.SetMemoryLimit(math.MaxInt64) // no limit left by an earlier test: "raised" below must be this follower's doing
	defer debug.SetMemoryLimit(math.MaxInt64)
	keep := make([]byte, 64<<20)
	for i := range keep {
		keep[i] = byte(i)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { Follow(ctx, 16<<20, 0, time.Millisecond, nil); close(done) }()
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

// TestFollowMemLimitStopsBelowCeiling: a lasting live heap that would
// need a limit above 3/4 of the memory ceiling keeps the limit there (the
// GC works harder instead of the heap growing into the OOM killer) and
// says so.
func TestFollowMemLimitStopsBelowCeiling(t *testing.T) {
	debug.SetMemoryLimit(math.MaxInt64) // no limit left by an earlier test: "raised" below must be this follower's doing
	defer debug.SetMemoryLimit(math.MaxInt64)
	keep := make([]byte, 40<<20)
	for i := range keep {
		keep[i] = byte(i)
	}
	const ceiling = 60 << 20 // the limit may not pass 45 MiB; 40 MiB lasting would want 66
	warned := make(chan string, 10)
	warn := func(msg string, args ...any) {
		select {
		case warned <- fmt.Sprint(append([]any{msg}, args...)...):
		default:
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { Follow(ctx, 16<<20, ceiling, time.Millisecond, warn); close(done) }()
	deadline := time.After(20 * time.Second)
	var msg string
wait:
	for {
		select {
		case msg = <-warned:
			break wait
		case <-deadline:
			break wait
		default:
			runtime.GC()
			time.Sleep(5 * time.Millisecond)
		}
	}
	cancel()
	<-done
	if got := debug.SetMemoryLimit(-1); got != ceiling/4*3 {
		t.Errorf("limit %d MiB, want it held at 3/4 of the %d MiB ceiling (%d MiB)", got>>20, ceiling>>20, (ceiling/4*3)>>20)
	}
	if !strings.Contains(msg, "slows down") || !strings.Contains(msg, "45.0 MiB") {
		t.Errorf("warning %q; want one saying the crawl slows down, naming the 45.0 MiB heap limit", msg)
	}
	runtime.KeepAlive(keep)
}

// TestMemCeiling: on Linux the ceiling is known and at most the RAM.
func TestMemCeiling(t *testing.T) {
	c, src := Ceiling()
	ram := meminfoTotal()
	if runtime.GOOS != "linux" {
		t.Skipf("Ceiling reads /proc and /sys: %d %q", c, src)
	}
	if c <= 0 || ram <= 0 || c > ram || src == "" {
		t.Errorf("Ceiling() = %d (%s), MemTotal %d; want 0 < ceiling <= RAM", c, src, ram)
	}
	t.Logf("ceiling %d MiB from %s", c>>20, src)
}
