package proc

import (
	"errors"
	"os/exec"
	"syscall"

	"golang.org/x/sys/windows"
)

const detachedFlags = windows.CREATE_NEW_PROCESS_GROUP | windows.DETACHED_PROCESS

// startDetached starts the command in a new process group, without a
// console, and out of the agent's job object, so that closing the job (the
// SCM stopping the agent) does not take the service with it. A job that
// forbids breakaway answers ERROR_ACCESS_DENIED; then the service is started
// inside the job, which is the best that host allows.
func startDetached(newCmd func() *exec.Cmd) (*exec.Cmd, error) {
	cmd := newCmd()
	cmd.SysProcAttr = &syscall.SysProcAttr{
		CreationFlags: detachedFlags | windows.CREATE_BREAKAWAY_FROM_JOB,
		HideWindow:    true,
	}
	err := cmd.Start()
	if !errors.Is(err, windows.ERROR_ACCESS_DENIED) {
		return cmd, err
	}
	cmd = newCmd() // an exec.Cmd cannot be started twice
	cmd.SysProcAttr = &syscall.SysProcAttr{CreationFlags: detachedFlags, HideWindow: true}
	return cmd, cmd.Start()
}
