package proc

import (
	"errors"
	"fmt"
	"io/fs"
	"time"
)

// Identity names one process: the PID plus facts that do not survive PID
// reuse. It is what the pid file records about an instance's leader.
//
// The verdict "this is that process" rests on Start (and Boot): Linux start
// ticks since boot from /proc/PID/stat plus the boot id, macOS the exact
// p_starttime, Windows the exact creation FILETIME. None of them is read off
// the wall clock, so a clock step changes nothing. Exe is recorded for
// people, not for the verdict: an exec (same PID, same start, new program,
// as a pyenv shim or `exec` in a wrapper script does) is the same instance.
type Identity struct {
	PID int32 `json:"pid"`
	// Start is the OS's start stamp: Linux clock ticks since boot, macOS
	// microseconds since the epoch, Windows 100 ns units since 1601. Zero in
	// a legacy pid file (from before start stamps were recorded), which is
	// then matched by CreateTime (see inspect).
	Start uint64 `json:"start,omitempty"`
	// Boot names the boot the process ran in (Linux boot_id, macOS
	// kern.bootsessionuuid); empty where unknown.
	Boot       string    `json:"boot,omitempty"`
	CreateTime int64     `json:"create_time_ms"` // ms since the epoch, for people (and legacy records)
	Exe        string    `json:"exe"`            // the executable when it was recorded, for people
	StartedAt  time.Time `json:"started_at"`     // when svc-ctl spawned it (UTC); informational only
}

// Same reports whether id and o record the same process: the same PID,
// start stamp, create time and boot (the executable and StartedAt are for
// people and may differ between two records of one process).
func (id Identity) Same(o Identity) bool {
	return id.PID == o.PID && id.Start == o.Start && id.CreateTime == o.CreateTime && id.Boot == o.Boot
}

// state is what inspect found at an Identity's PID.
type state int

const (
	stateGone    state = iota // no live process (none at all, or a zombie)
	stateNotOurs              // a live process, but another one (PID reused)
	stateOurs                 // the recorded process, alive
)

// IdentityOf reads the identity of the live process pid. StartedAt is its
// create time. A process that does not exist or is a zombie gives ErrGone.
// An executable that cannot be read (another user's process) is left empty:
// it is not part of the verdict.
func IdentityOf(pid int32) (Identity, error) {
	pi, err := readProc(pid)
	if err != nil {
		return Identity{}, err
	}
	if pi.zombie {
		return Identity{}, fmt.Errorf("pid %d is a zombie: %w", pid, ErrGone)
	}
	return identityFrom(pi), nil
}

// BootID names the boot this process runs in, as identities record it
// (Identity.Boot): Linux's kernel boot id, macOS's boot session UUID; ""
// where the OS names none (Windows). It changes with every boot and only
// then: what was written under another one was written before a reboot.
func BootID() string { return currentBoot() }

// identityFrom fills an Identity from what the OS said, exe included.
func identityFrom(pi procInfo) Identity {
	exe, _ := readExe(pi.pid)
	return Identity{PID: pi.pid, Start: pi.start, Boot: currentBoot(), CreateTime: pi.createMs,
		Exe: exe, StartedAt: time.UnixMilli(pi.createMs).UTC()}
}

// Match reports whether id's process is still running: the PID exists, is
// not a zombie, and is the process that was recorded (same start stamp, same
// boot). An error means the question could not be answered (never "no").
func Match(id Identity) (bool, error) {
	st, err := inspect(id)
	return st == stateOurs, err
}

// Alive reports whether a process with this PID exists and is not a zombie.
// It says nothing about which process that is: use Match for that.
func Alive(pid int32) bool {
	pi, err := readProc(pid)
	return err == nil && !pi.zombie
}

// inspect classifies what runs at id.PID. A process whose facts svc-ctl
// cannot read is not one it started, so such errors count as "not ours",
// never as "ours".
func inspect(id Identity) (state, error) {
	if id.PID <= 0 {
		return stateGone, fmt.Errorf("pid %d: %w: pid must be positive", id.PID, ErrInvalidIdentity)
	}
	pi, err := readProc(id.PID)
	switch {
	case errors.Is(err, ErrGone):
		return stateGone, nil
	case errors.Is(err, fs.ErrPermission):
		return stateNotOurs, nil
	case err != nil:
		return stateGone, err
	case pi.zombie:
		return stateGone, nil
	}
	if sameProcess(id, pi, currentBoot()) {
		return stateOurs, nil
	}
	return stateNotOurs, nil
}

// sameProcess is the verdict. With a start stamp: equal stamps in the same
// boot. Without one (a legacy pid file): the create time within
// legacySlackMs, since svc-ctl then derived it from the wall clock; such a
// record does not survive a clock step, and the next start writes a new one.
func sameProcess(id Identity, pi procInfo, boot string) bool {
	if id.Start != 0 {
		if id.Boot != "" && boot != "" && id.Boot != boot {
			return false // another boot: PIDs and start stamps repeat
		}
		return id.Start == pi.start
	}
	if id.CreateTime <= 0 || pi.createMs <= 0 {
		return false // an identity with facts missing proves nothing
	}
	d := pi.createMs - id.CreateTime
	return d >= -legacySlackMs && d <= legacySlackMs
}

// legacySlackMs: legacy records read Linux create times as boot time (whole
// seconds) plus ticks, so two readings of one process could differ by a second. A PID
// is reused only after the PID space wraps; a second of slack lets no
// stranger pass.
const legacySlackMs = 1000

// startedNoEarlier reports whether pi began at or after id's process (same
// boot): a member of id's tree cannot be older than its leader.
func startedNoEarlier(pi procInfo, id Identity) bool {
	if id.Start != 0 {
		return pi.start >= id.Start
	}
	return pi.createMs >= id.CreateTime-legacySlackMs
}
