//go:build !linux

package urlfilter

import "time"

// ThreadCPUTime is unsupported on this platform: it returns ok = false.
func ThreadCPUTime() (d time.Duration, ok bool) { return 0, false }
