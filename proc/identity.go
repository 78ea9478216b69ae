package proc

import (
	"errors"
	"fmt"
	"io/fs"
	"time"

	"github.com/shirou/gopsutil/v4/process"
)

// Identity names one process instance: the PID plus facts that do not survive
// PID reuse. It is what the pid file records.
type Identity struct {
	PID        int32     `json:"pid"`
	CreateTime int64     `json:"create_time_ms"` // gopsutil Process.CreateTime: ms since the epoch
	Exe        string    `json:"exe"`            // gopsutil Process.Exe: the resolved executable path
	StartedAt  time.Time `json:"started_at"`     // when svc-ctl spawned it (UTC); informational only
}

// state is what inspect found at an Identity's PID.
type state int

const (
	stateGone    state = iota // no live process (none at all, or a zombie)
	stateNotOurs              // a live process, but another one (PID reused)
	stateOurs                 // the recorded instance, alive
)

// IdentityOf reads the identity of the live process pid. StartedAt is its
// create time. A process that does not exist or is a zombie gives ErrGone.
func IdentityOf(pid int32) (Identity, error) {
	p, err := liveProcess(pid)
	if err != nil {
		return Identity{}, err
	}
	ct, err := p.CreateTime()
	if err != nil {
		return Identity{}, classify(pid, "read create time", err)
	}
	exe, err := p.Exe()
	if err != nil {
		return Identity{}, classify(pid, "read executable", err)
	}
	return Identity{PID: pid, CreateTime: ct, Exe: exe, StartedAt: time.UnixMilli(ct).UTC()}, nil
}

// Match reports whether id's process is still running: the PID exists, is not
// a zombie, and its create time and executable equal the recorded ones. An
// error means the question could not be answered (never that it was "no").
func Match(id Identity) (bool, error) {
	st, err := inspect(id)
	return st == stateOurs, err
}

// Alive reports whether a process with this PID exists and is not a zombie.
// It says nothing about which process that is: use Match for that.
func Alive(pid int32) bool {
	_, err := liveProcess(pid)
	return err == nil
}

// inspect classifies what runs at id.PID. The create time is compared before
// the executable is read: a reused PID usually belongs to a process whose exe
// svc-ctl may not read (another user's, a kernel thread). A process whose
// facts svc-ctl cannot read is not one it started, so such errors count as
// "not ours", never as "ours".
func inspect(id Identity) (state, error) {
	if id.PID <= 0 {
		return stateGone, fmt.Errorf("pid %d: %w: pid must be positive", id.PID, ErrInvalidIdentity)
	}
	p, err := liveProcess(id.PID)
	if err != nil {
		return unreadable(err)
	}
	if id.CreateTime <= 0 || id.Exe == "" {
		return stateNotOurs, nil // an identity with facts missing proves nothing
	}
	ct, err := p.CreateTime()
	if err != nil {
		return unreadable(classify(id.PID, "read create time", err))
	}
	if !sameCreateTime(ct, id.CreateTime) {
		return stateNotOurs, nil
	}
	exe, err := p.Exe()
	if err != nil {
		return unreadable(classify(id.PID, "read executable", err))
	}
	if !sameExe(exe, id.Exe) {
		return stateNotOurs, nil
	}
	return stateOurs, nil
}

// unreadable maps a failed read of a process's facts to a state.
func unreadable(err error) (state, error) {
	switch {
	case errors.Is(err, ErrGone):
		return stateGone, nil
	case errors.Is(err, fs.ErrPermission), errors.Is(err, fs.ErrNotExist):
		// the process exists (classify checked) but hides its facts
		return stateNotOurs, nil
	}
	return stateGone, err
}

// liveProcess returns pid's process, or ErrGone when there is none or it is a
// zombie (exited, not yet reaped: not alive, whatever kill(pid, 0) says).
func liveProcess(pid int32) (*process.Process, error) {
	if pid <= 0 {
		return nil, fmt.Errorf("pid %d: %w", pid, ErrGone)
	}
	p, err := process.NewProcess(pid)
	if err != nil {
		return nil, classify(pid, "look up", err)
	}
	zombie, err := isZombie(p)
	if err != nil {
		return nil, classify(pid, "read status", err)
	}
	if zombie {
		return nil, fmt.Errorf("pid %d is a zombie: %w", pid, ErrGone)
	}
	return p, nil
}

// classify turns a failed read about pid into ErrGone when the process has
// disappeared meanwhile (the usual cause), and keeps the cause otherwise.
func classify(pid int32, what string, err error) error {
	if errors.Is(err, process.ErrorProcessNotRunning) || errors.Is(err, ErrGone) {
		return fmt.Errorf("pid %d: %w", pid, ErrGone)
	}
	if ok, existsErr := process.PidExists(pid); existsErr == nil && !ok {
		return fmt.Errorf("pid %d: %w", pid, ErrGone)
	}
	return fmt.Errorf("%s of pid %d: %w", what, pid, err)
}
