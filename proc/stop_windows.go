package proc

import (
	"errors"
	"fmt"

	"github.com/shirou/gopsutil/v4/process"
	"golang.org/x/sys/windows"
)

// winTarget holds a handle to a verified process. While the handle is open
// Windows does not reuse the PID, so what was verified is what is ended.
//
// There is no graceful signal here: a process started with DETACHED_PROCESS
// has no console, so GenerateConsoleCtrlEvent cannot reach it, and Windows
// has no SIGTERM. graceful and force both terminate the process tree.
type winTarget struct {
	id Identity
	h  windows.Handle
}

const terminateAccess = windows.PROCESS_TERMINATE | windows.SYNCHRONIZE | windows.PROCESS_QUERY_LIMITED_INFORMATION

// exitCodeStopped is the exit code a terminated service reports.
const exitCodeStopped = 1

func openTarget(id Identity) (stopTarget, error) {
	h, err := windows.OpenProcess(terminateAccess, false, uint32(id.PID))
	if err != nil {
		return nil, classify(id.PID, "open process", err)
	}
	// Verify again now that the handle pins the PID.
	st, err := inspect(id)
	if err == nil && st != stateOurs {
		err = ErrNotOurs
		if st == stateGone {
			err = ErrGone
		}
	}
	if err != nil {
		windows.CloseHandle(h)
		return nil, err
	}
	return &winTarget{id: id, h: h}, nil
}

func (t *winTarget) graceful() (string, error) { return t.force() }

// force terminates the process and then the descendants found before it
// ended (once it is gone they can no longer be told from strangers).
func (t *winTarget) force() (string, error) {
	kids := descendants(t.id)
	err := windows.TerminateProcess(t.h, exitCodeStopped)
	if err != nil && !exited(t.h) {
		return "TerminateProcess", fmt.Errorf("TerminateProcess: %w", err)
	}
	for _, k := range kids {
		terminateVerified(k)
	}
	return "TerminateProcess", nil
}

func (t *winTarget) lingering() bool  { return false }
func (t *winTarget) killGroup() error { return nil }
func (t *winTarget) close()           { windows.CloseHandle(t.h) }

// exited reports whether the process behind h has already ended.
func exited(h windows.Handle) bool {
	ev, err := windows.WaitForSingleObject(h, 0)
	return err == nil && ev == windows.WAIT_OBJECT_0
}

// descendants lists the process tree under id. Windows keeps a parent PID
// even after that parent exited and its PID was reused, so a "child" created
// before its parent is a stranger and is skipped.
func descendants(id Identity) []Identity {
	var out []Identity
	queue := []Identity{id}
	for len(queue) > 0 && len(out) < 1024 {
		parent := queue[0]
		queue = queue[1:]
		kids, err := (&process.Process{Pid: parent.PID}).Children()
		if err != nil {
			continue
		}
		for _, k := range kids {
			ct, err := k.CreateTime()
			if err != nil || ct < parent.CreateTime {
				continue
			}
			kid := Identity{PID: k.Pid, CreateTime: ct}
			out = append(out, kid)
			queue = append(queue, kid)
		}
	}
	return out
}

// terminateVerified ends one descendant if its create time still matches
// (checked through the handle, so the PID cannot be reused in between).
func terminateVerified(id Identity) {
	h, err := windows.OpenProcess(terminateAccess, false, uint32(id.PID))
	if err != nil {
		return
	}
	defer windows.CloseHandle(h)
	var created, exit, kernel, user windows.Filetime
	if err := windows.GetProcessTimes(h, &created, &exit, &kernel, &user); err != nil {
		return
	}
	if created.Nanoseconds()/1e6 != id.CreateTime {
		return
	}
	if err := windows.TerminateProcess(h, exitCodeStopped); err != nil && !errors.Is(err, windows.ERROR_ACCESS_DENIED) {
		return
	}
}
