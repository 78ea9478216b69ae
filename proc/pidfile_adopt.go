package proc

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
)

// ErrNotAdopted: a service's pid_file names no process that may be adopted
// as its instance's main process (see AdoptPidFile); the error says why.
var ErrNotAdopted = errors.New("not adopted")

// maxDaemonPidFile bounds what is read of a daemon's pid file: a pid and a
// newline, or a few lines more (some daemons add their port).
const maxDaemonPidFile = 4096

// AdoptPidFile reads the pid file a daemon of inst wrote (a service's
// pid_file, as monit's `with pidfile` and systemd's PIDFile=) and returns
// the identity of the process it names, when that process may be adopted
// as the instance's main process:
//
//   - the file is read without following a link, and is a regular file
//     owned by the instance's user or root (checked on the open file);
//   - its first line is a pid;
//   - that process runs, started no earlier than the instance's leader, in
//     this boot (not a stale file, not a pid reused since), and runs as the
//     instance's user, really and effectively (not another user's).
//
// Anything else gives an error wrapping ErrNotAdopted that says which rule
// failed, or ErrGone when the file does not exist (yet).
func AdoptPidFile(path string, inst Instance) (Identity, error) {
	b, err := readDaemonPidFile(path, inst.UID)
	if err != nil {
		return Identity{}, err
	}
	line, _, _ := bytes.Cut(b, []byte{'\n'})
	n, err := strconv.ParseInt(string(bytes.TrimSpace(line)), 10, 32)
	if err != nil || n <= 1 {
		return Identity{}, fmt.Errorf("pid_file %s: %w: its first line %q is not a pid", path, ErrNotAdopted, line[:min(len(line), 40)])
	}
	pid := int32(n)
	if err := ownable(Instance{Identity: Identity{PID: pid}}); err != nil {
		return Identity{}, fmt.Errorf("pid_file %s: %w: %w", path, ErrNotAdopted, err)
	}
	pi, err := readProc(pid)
	if err != nil || pi.zombie {
		return Identity{}, fmt.Errorf("pid_file %s: %w: it names pid %d, which is not running (a stale file)", path, ErrNotAdopted, pid)
	}
	if boot := currentBoot(); otherBoot(inst, boot) || !startedNoEarlier(pi, inst.Identity) {
		return Identity{}, fmt.Errorf("pid_file %s: %w: it names pid %d, which started before this instance (a stale file, or the pid reused)", path, ErrNotAdopted, pid)
	}
	if inst.UID != nil {
		r, e, ok := uidsOf(pid)
		if !ok || r != *inst.UID || e != *inst.UID {
			return Identity{}, fmt.Errorf("pid_file %s: %w: it names pid %d, which does not run as the service's user (uid %d)", path, ErrNotAdopted, pid, *inst.UID)
		}
	}
	return identityFrom(pi), nil
}
