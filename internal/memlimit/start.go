package memlimit

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/pprof"
	"sync"
	"time"
)

// Options says what Start watches and writes; the zero value watches
// nothing.
type Options struct {
	// Limit is Follow's base, in bytes (crawl --mem-limit-mb); 0 = none.
	// It is ignored when the GOMEMLIMIT environment variable is set.
	Limit int64
	// Logger receives Follow's warnings, with the attribute
	// memory_ceiling_from naming where Ceiling found the ceiling (nil =
	// discard).
	Logger *slog.Logger
	// HeapPeaks, if set, is ProfileHeapPeaks's file (checked every 5 s).
	HeapPeaks string
	// CPUProfile, if set, is the file a CPU profile of the run goes to.
	CPUProfile string
	// MutexProfile, if set, is the file the lock-contention profile
	// (1 in 5 contended sync.Mutex waits sampled) is written to at stop.
	MutexProfile string
}

// Start starts what o asks for: Follow (every second) and
// ProfileHeapPeaks in goroutines, a CPU profile, the sampling of lock
// contention. stop, to be called even when err is set, ends them, gives
// the heap's soft limit back as it was and writes the profiles; it
// returns the error of writing the mutex profile. The goroutines end at
// stop even while ctx lasts (in-process runs, as tests do, must not leave
// one moving the process's memory limit).
func Start(ctx context.Context, o Options) (stop func() error, err error) {
	var stops []func() error
	stop = func() error {
		var err error
		for i := len(stops) - 1; i >= 0; i-- {
			if serr := stops[i](); err == nil {
				err = serr
			}
		}
		return err
	}
	samplers, stopSamplers := context.WithCancel(ctx)
	var sampling sync.WaitGroup
	before := debug.SetMemoryLimit(-1)
	stops = append(stops, func() error { stopSamplers(); sampling.Wait(); debug.SetMemoryLimit(before); return nil })
	if o.Limit > 0 && os.Getenv("GOMEMLIMIT") == "" {
		ceiling, source := Ceiling()
		log := o.Logger
		if log == nil {
			log = slog.New(slog.DiscardHandler)
		}
		warn := log.With("memory_ceiling_from", source).Warn
		sampling.Go(func() { Follow(samplers, o.Limit, ceiling, time.Second, warn) })
	}
	if o.HeapPeaks != "" {
		sampling.Go(func() { ProfileHeapPeaks(samplers, o.HeapPeaks, 5*time.Second) })
	}
	if o.CPUProfile != "" {
		cf, err := os.Create(o.CPUProfile)
		if err != nil {
			return stop, err
		}
		stops = append(stops, func() error { cf.Close(); return nil })
		if err := pprof.StartCPUProfile(cf); err != nil {
			return stop, err
		}
		stops = append(stops, func() error { pprof.StopCPUProfile(); return nil })
	}
	if o.MutexProfile != "" {
		mf, err := os.Create(o.MutexProfile)
		if err != nil {
			return stop, err
		}
		stops = append(stops, func() error { mf.Close(); return nil })
		runtime.SetMutexProfileFraction(5)
		stops = append(stops, func() error {
			if err := pprof.Lookup("mutex").WriteTo(mf, 0); err != nil {
				return fmt.Errorf("write mutex profile %s: %v", o.MutexProfile, err)
			}
			return nil
		})
	}
	return stop, nil
}
