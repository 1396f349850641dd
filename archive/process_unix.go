//go:build unix

package archive

import (
	"errors"
	"syscall"
)

// noProcess reports whether no process has id pid (kill(pid, 0) fails
// with ESRCH; EPERM means it runs as another user).
func noProcess(pid int) bool { return errors.Is(syscall.Kill(pid, 0), syscall.ESRCH) }
