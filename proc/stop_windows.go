package proc

import (
	"context"
	"errors"
	"fmt"
	"time"

	"golang.org/x/sys/windows"
)

// handleKiller ends verified members through process handles. While a
// handle is open Windows does not reuse the PID, so the process whose
// creation time was checked through the handle is the one ended.
//
// There is no graceful signal here: a process started with
// DETACHED_PROCESS has no console, so GenerateConsoleCtrlEvent cannot reach
// it, and Windows has no SIGTERM. term and kill both terminate.
type handleKiller struct {
	inst      Instance
	hs        map[int32]windows.Handle
	breakSent bool // CTRL_BREAK went to the instance's group (once per stop)
}

const terminateAccess = windows.PROCESS_TERMINATE | windows.SYNCHRONIZE | windows.PROCESS_QUERY_LIMITED_INFORMATION

// exitCodeStopped is the exit code a terminated service reports.
const exitCodeStopped = 1

func newKiller(inst Instance) (killer, error) {
	return &handleKiller{inst: inst, hs: map[int32]windows.Handle{}}, nil
}

func (k *handleKiller) defaultSignal() string { return "TerminateProcess" }

// signal: "TerminateProcess" ends m; "SIGBREAK" sends CTRL_BREAK to the
// console process group the leader leads (ctrlbreak_windows.go).
func (k *handleKiller) signal(m Member, name string) error {
	switch name {
	case "TerminateProcess":
		return k.kill(m)
	case "SIGBREAK":
		return k.ctrlBreak(m)
	}
	return fmt.Errorf("stop signal %s: %w on Windows (use SIGBREAK, or none)", name, errors.ErrUnsupported)
}

func (k *handleKiller) resume(Member) {}

func (k *handleKiller) kill(m Member) error {
	h, err := k.open(m)
	if err != nil {
		return err
	}
	if err := windows.TerminateProcess(h, exitCodeStopped); err != nil && !exited(h) {
		return fmt.Errorf("TerminateProcess pid %d: %w", m.PID, err)
	}
	return nil
}

// open returns a handle to m after proving, through it, that it is m.
func (k *handleKiller) open(m Member) (windows.Handle, error) {
	if h, ok := k.hs[m.PID]; ok {
		return h, nil
	}
	h, err := windows.OpenProcess(terminateAccess, false, uint32(m.PID))
	if err != nil {
		if errors.Is(err, windows.ERROR_INVALID_PARAMETER) {
			return 0, fmt.Errorf("pid %d: %w", m.PID, ErrGone)
		}
		return 0, fmt.Errorf("open pid %d: %w", m.PID, err)
	}
	pi, err := infoOfHandle(h, m.PID)
	switch {
	case err != nil:
		windows.CloseHandle(h)
		return 0, err
	case pi.zombie:
		windows.CloseHandle(h)
		return 0, fmt.Errorf("pid %d: %w", m.PID, ErrGone)
	case pi.start != m.Start:
		windows.CloseHandle(h)
		return 0, fmt.Errorf("pid %d: %w", m.PID, ErrNotOurs)
	}
	k.hs[m.PID] = h
	return h, nil
}

// killAll terminates the whole job at once.
func (k *handleKiller) killAll() bool {
	if k.inst.Job == "" {
		return false
	}
	h, err := openJob(k.inst.Job)
	if err != nil {
		return false
	}
	defer windows.CloseHandle(h)
	return windows.TerminateJobObject(h, exitCodeStopped) == nil
}

// wait waits for one of live's handles to be signalled (the process ended).
func (k *handleKiller) wait(ctx context.Context, live []Member, d time.Duration) {
	var hs []windows.Handle
	for _, m := range live {
		if h, ok := k.hs[m.PID]; ok && len(hs) < maxWaitObjects {
			hs = append(hs, h)
		}
	}
	if dl, ok := ctx.Deadline(); ok {
		d = min(d, time.Until(dl))
	}
	if d <= 0 {
		return
	}
	if len(hs) == 0 {
		time.Sleep(min(d, pollInterval))
		return
	}
	_, _ = windows.WaitForMultipleObjects(hs, false, uint32(d.Milliseconds())+1)
}

func (k *handleKiller) close() {
	for _, h := range k.hs {
		windows.CloseHandle(h)
	}
}

// exited reports whether the process behind h has already ended.
func exited(h windows.Handle) bool {
	ev, err := windows.WaitForSingleObject(h, 0)
	return err == nil && ev == windows.WAIT_OBJECT_0
}

func releaseTree(Instance) {}

// maxWaitObjects is MAXIMUM_WAIT_OBJECTS: WaitForMultipleObjects' limit.
const maxWaitObjects = 64
