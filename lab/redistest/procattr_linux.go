package redistest

import (
	"os/exec"
	"syscall"
)

// dieWithParent makes the server get SIGKILL when the process that
// started it dies, so that a killed test or benchmark leaves no server
// behind.
func dieWithParent(c *exec.Cmd) {
	c.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
