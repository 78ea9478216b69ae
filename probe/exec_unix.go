//go:build unix

package probe

import (
	"errors"
	"os/exec"
	"syscall"
)

// setGroup starts the command in a process group of its own, so that a
// timeout can kill what it spawned too.
func setGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// killGroup kills the command's whole process group (its pgid is its pid).
func killGroup(cmd *exec.Cmd) error {
	err := syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	if errors.Is(err, syscall.ESRCH) {
		return nil // already gone
	}
	return err
}
