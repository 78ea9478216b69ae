package proc

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"syscall"
	"time"

	"golang.org/x/sys/windows"

	"svcctl/internal/child"
)

// stop_signal = "SIGBREAK" on Windows: the service was spawned with a hidden
// console of its own, leading a new process group on it (SpawnSpec.Console);
// CTRL_BREAK_EVENT can be sent to that group only by a process attached to
// the same console. The agent must not attach itself (it would leave its own
// console, and the runtime ends a process on a CTRL_BREAK it does not
// handle), so a helper does: svc-ctl's own executable, started with
// CtrlBreakEnv naming the group, detaches from any console, attaches to the
// service's, ignores the event itself and sends it. At stop_timeout the job
// object is terminated, as without the signal.

// CtrlBreakEnv, when set to a process group id, makes svc-ctl's executable
// the CTRL_BREAK helper (CtrlBreakMain) instead of anything else.
const CtrlBreakEnv = "SVCCTL_CTRL_BREAK_GROUP"

// ctrlBreakVia sends CTRL_BREAK to the console process group led by pid:
// a seam for tests where the console calls cannot run (under Wine).
var ctrlBreakVia = ctrlBreakHelper

// ctrlBreak sends CTRL_BREAK once per stop to the instance's process group
// (its leader's pid), after proving m.
func (k *handleKiller) ctrlBreak(m Member) error {
	if !k.inst.Console {
		return fmt.Errorf("CTRL_BREAK to pid %d: %w: it has no console of its own (started before stop_signal was SIGBREAK); it is terminated at stop_timeout",
			m.PID, errors.ErrUnsupported)
	}
	if _, err := k.open(m); err != nil {
		return err
	}
	if k.breakSent {
		return nil // the whole group got it
	}
	k.breakSent = true
	return ctrlBreakVia(k.inst.PID)
}

// ctrlBreakHelper runs the helper and waits for it (5 s at most).
func ctrlBreakHelper(group int32) error {
	exe, err := os.Executable()
	if err != nil {
		return fmt.Errorf("CTRL_BREAK to group %d: %w", group, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	c := child.CommandContext(ctx, exe)
	c.Env = append(os.Environ(), CtrlBreakEnv+"="+strconv.Itoa(int(group)))
	// No console of its own (it attaches to the service's), its own group
	// (the event it sends is not for it).
	c.SysProcAttr = &syscall.SysProcAttr{CreationFlags: windows.DETACHED_PROCESS | windows.CREATE_NEW_PROCESS_GROUP, HideWindow: true}
	if out, err := c.CombinedOutput(); err != nil {
		return fmt.Errorf("CTRL_BREAK to group %d: helper: %w: %s", group, err, out)
	}
	return nil
}

var (
	kernel32                  = windows.NewLazySystemDLL("kernel32.dll")
	procAttachConsole         = kernel32.NewProc("AttachConsole")
	procFreeConsole           = kernel32.NewProc("FreeConsole")
	procSetConsoleCtrlHandler = kernel32.NewProc("SetConsoleCtrlHandler")
)

// CtrlBreakMain is the helper's whole life: attach to the console of the
// process group (its leader's pid), ignore console events itself, send
// CTRL_BREAK to the group. It returns the exit code.
func CtrlBreakMain(group string) int {
	pid, err := strconv.ParseUint(group, 10, 32)
	if err != nil || pid == 0 {
		fmt.Fprintf(os.Stderr, "%s=%q: not a process group id\n", CtrlBreakEnv, group)
		return 2
	}
	procFreeConsole.Call()
	if r, _, err := procAttachConsole.Call(uintptr(pid)); r == 0 {
		fmt.Fprintf(os.Stderr, "attach to the console of pid %d: %v\n", pid, err)
		return 1
	}
	procSetConsoleCtrlHandler.Call(0, 1) // this process ignores the events it is about to send
	if err := windows.GenerateConsoleCtrlEvent(windows.CTRL_BREAK_EVENT, uint32(pid)); err != nil {
		fmt.Fprintf(os.Stderr, "CTRL_BREAK to group %d: %v\n", pid, err)
		return 1
	}
	return 0
}
