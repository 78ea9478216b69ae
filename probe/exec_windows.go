package probe

import (
	"syscall"

	"golang.org/x/sys/windows"

	"svcctl/internal/child"
	"svcctl/internal/winjob"
)

// jobTree runs the command in an anonymous job object that kills every
// member when its handle is closed. The command starts suspended and joins
// the job before it runs, so nothing it starts escapes.
type jobTree struct {
	cmd *child.Cmd
	job windows.Handle
}

func newTree(cmd *child.Cmd) *jobTree {
	t := &jobTree{cmd: cmd}
	if h, err := winjob.Create("", true); err == nil {
		t.job = h
		cmd.SysProcAttr = &syscall.SysProcAttr{CreationFlags: windows.CREATE_SUSPENDED}
	}
	return t
}

func (t *jobTree) start() error {
	if err := t.cmd.Start(); err != nil || t.job == 0 {
		return err
	}
	pid := uint32(t.cmd.Process.Pid)
	if err := winjob.Assign(t.job, pid); err != nil {
		t.close() // runs outside the job: a timeout kills the process only
	}
	if err := winjob.Resume(pid); err != nil {
		_ = t.cmd.Process.Kill()
		return err
	}
	return nil
}

// awaitExit returns once the command has exited (os/exec holds a handle
// to it, so its PID is not reused meanwhile).
func (t *jobTree) awaitExit() {
	h, err := windows.OpenProcess(windows.SYNCHRONIZE, false, uint32(t.cmd.Process.Pid))
	if err != nil {
		return
	}
	defer windows.CloseHandle(h)
	_, _ = windows.WaitForSingleObject(h, windows.INFINITE)
}

// kill ends the whole job (on timeout) or, without one, the command.
func (t *jobTree) kill() error {
	if t.job != 0 {
		return windows.TerminateJobObject(t.job, 1)
	}
	return t.cmd.Process.Kill()
}

// close closes the kill-on-close job: every process still in it ends.
func (t *jobTree) close() {
	if t.job != 0 {
		windows.CloseHandle(t.job)
		t.job = 0
	}
}
