//go:build !linux

package filterbench

import "time"

// threadCPUTime is unsupported on this platform: it returns ok = false.
func threadCPUTime() (d time.Duration, ok bool) { return 0, false }
