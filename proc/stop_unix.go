//go:build unix

package proc

import (
	"errors"
	"fmt"

	"golang.org/x/sys/unix"
)

// unixTarget signals a verified process; pgid is its process group when it
// leads one of its own (as every process Spawn starts does), else 0 and only
// the process itself is signalled.
type unixTarget struct {
	pid  int
	pgid int
}

// openTarget decides whether to signal the group. Never the agent's own
// group: a process svc-ctl did not start detached would share it.
func openTarget(id Identity) (stopTarget, error) {
	t := &unixTarget{pid: int(id.PID)}
	pgid, err := unix.Getpgid(t.pid)
	own, ownErr := unix.Getpgid(0)
	if err == nil && ownErr == nil && pgid == t.pid && pgid > 1 && pgid != own {
		t.pgid = pgid
	}
	return t, nil
}

func (t *unixTarget) graceful() (string, error) { return "SIGTERM", t.signal(unix.SIGTERM) }
func (t *unixTarget) force() (string, error)    { return "SIGKILL", t.signal(unix.SIGKILL) }
func (t *unixTarget) close()                    {}

// signal sends sig to the group when there is one. The kernel does not hand
// out a PID that is still some live group's id, so -pgid cannot reach a
// stranger. A process that is already gone is not an error: the caller's
// identity poll sees it.
func (t *unixTarget) signal(sig unix.Signal) error {
	target := t.pid
	if t.pgid > 0 {
		target = -t.pgid
	}
	err := unix.Kill(target, sig)
	if err != nil && !errors.Is(err, unix.ESRCH) {
		return fmt.Errorf("kill(%d, %s): %w", target, unix.SignalName(sig), err)
	}
	return nil
}

// killGroup sends SIGKILL to what is left of the group. Called only while
// lingering() saw members, whose presence keeps the group id from reuse.
func (t *unixTarget) killGroup() error {
	if t.pgid == 0 {
		return nil
	}
	err := unix.Kill(-t.pgid, unix.SIGKILL)
	if err != nil && !errors.Is(err, unix.ESRCH) {
		return fmt.Errorf("kill(-%d, SIGKILL): %w", t.pgid, err)
	}
	return nil
}

func (t *unixTarget) lingering() bool {
	if t.pgid == 0 {
		return false
	}
	if err := unix.Kill(-t.pgid, 0); errors.Is(err, unix.ESRCH) {
		return false
	}
	return groupHasLive(t.pgid)
}
