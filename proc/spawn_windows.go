package proc

import (
	"errors"
	"fmt"
	"syscall"

	"golang.org/x/sys/windows"

	"svcctl/internal/child"
	"svcctl/internal/winjob"
)

const detachedFlags = windows.CREATE_NEW_PROCESS_GROUP | windows.DETACHED_PROCESS

// jobOwner starts the leader in a new process group, without a console, out
// of the agent's own job when that job allows breakaway (so the SCM
// stopping the agent does not take the service with it), and, suspended,
// assigns it to the instance's job before it runs a single instruction:
// whatever it starts later is in the job too.
type jobOwner struct {
	h       windows.Handle // the instance job, 0 if none
	name    string
	note    []string
	console bool // a hidden console of its own instead of none (SpawnSpec.Console)
}

func prepareOwner(s SpawnSpec) (owner, error) {
	o := &jobOwner{console: s.Console}
	h, name, err := createJob(nameOf(s))
	if err != nil {
		o.note = append(o.note, "no job object ("+err.Error()+"): the tree is found by parent links")
		return o, nil
	}
	o.h, o.name = h, name
	return o, nil
}

func (o *jobOwner) start(newCmd func() *child.Cmd) (*child.Cmd, error) {
	flags := uint32(detachedFlags)
	if o.console {
		// A console of its own (hidden: HideWindow), its own process group
		// on it: what CTRL_BREAK from a helper attached to it reaches.
		flags = windows.CREATE_NEW_PROCESS_GROUP | windows.CREATE_NEW_CONSOLE
	}
	if o.h != 0 {
		flags |= windows.CREATE_SUSPENDED
	}
	cmd := newCmd()
	cmd.SysProcAttr = &syscall.SysProcAttr{CreationFlags: flags | windows.CREATE_BREAKAWAY_FROM_JOB, HideWindow: true}
	err := cmd.Start()
	if errors.Is(err, windows.ERROR_ACCESS_DENIED) {
		// The agent's job forbids breakaway: the service starts inside it
		// too (nested jobs, Windows 8 and later), the best that host allows.
		cmd = newCmd()
		cmd.SysProcAttr = &syscall.SysProcAttr{CreationFlags: flags, HideWindow: true}
		err = cmd.Start()
	}
	if err != nil || o.h == 0 {
		return cmd, err
	}
	if err := o.adopt(uint32(cmd.Process.Pid)); err != nil {
		o.note = append(o.note, "not in its job object ("+err.Error()+"): the tree is found by parent links")
		o.closeJob()
	}
	if err := winjob.Resume(uint32(cmd.Process.Pid)); err != nil {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		return cmd, fmt.Errorf("resume the suspended process: %w", err)
	}
	return cmd, nil
}

// adopt assigns the suspended leader to the job and hands it a handle to
// the job, which keeps the job's name openable for as long as the leader
// lives (a named object loses its name with its last handle).
func (o *jobOwner) adopt(pid uint32) error {
	p, err := windows.OpenProcess(windows.PROCESS_SET_QUOTA|windows.PROCESS_TERMINATE|windows.PROCESS_DUP_HANDLE, false, pid)
	if err != nil {
		return fmt.Errorf("open pid %d: %w", pid, err)
	}
	defer windows.CloseHandle(p)
	if err := windows.AssignProcessToJobObject(o.h, p); err != nil {
		return fmt.Errorf("assign pid %d to %s: %w", pid, o.name, err)
	}
	var inLeader windows.Handle
	_ = windows.DuplicateHandle(windows.CurrentProcess(), o.h, p, &inLeader, 0, false, windows.DUPLICATE_SAME_ACCESS)
	return nil
}

func (o *jobOwner) cgroup() string  { return "" }
func (o *jobOwner) job() string     { return o.name }
func (o *jobOwner) notes() []string { return o.note }
func (o *jobOwner) abandon()        { o.closeJob() }
func (o *jobOwner) close()          { o.closeJob() }

func (o *jobOwner) closeJob() {
	if o.h != 0 {
		windows.CloseHandle(o.h)
		o.h, o.name = 0, ""
	}
}
