//go:build unix

package render

import (
	"os/exec"
	"syscall"
)

// ownGroup starts the browser in a process group of its own, killed with
// the Go process (Pdeathsig where the system has it, as chromedp sets).
func ownGroup(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid = true
}

// killGroup kills what is left of the browser's process group (helper
// processes outlive a killed main process for a while).
func killGroup(pid int) {
	if pid > 0 {
		_ = syscall.Kill(-pid, syscall.SIGKILL)
	}
}
