package proc

import (
	"strings"

	"github.com/shirou/gopsutil/v4/process"
)

// isZombie reads the State line of /proc/PID/status. An exited, unreaped
// process still answers kill(pid, 0) and still has a /proc entry.
func isZombie(p *process.Process) (bool, error) {
	st, err := p.Status()
	if err != nil {
		return false, err
	}
	for _, s := range st {
		if s == process.Zombie {
			return true, nil
		}
	}
	return false, nil
}

// createTimeSlackMs is how far apart two readings of one process's create
// time may be on Linux. gopsutil computes it as boot time (whole seconds,
// from /proc/stat btime or, in containers, now minus /proc/uptime) plus the
// start ticks, so two agent processes can read the same process one second
// apart. A PID is reused only after the PID space wraps, and the executable
// must match as well, so one second of slack does not let a stranger pass.
// A wall-clock step larger than this makes Match false: svc-ctl then leaves
// the process alone rather than risk killing a stranger.
const createTimeSlackMs = 1000

func sameCreateTime(now, recorded int64) bool {
	d := now - recorded
	return d >= -createTimeSlackMs && d <= createTimeSlackMs
}

// deletedSuffix is what the kernel appends to /proc/PID/exe once the file the
// process runs from was replaced or removed (a package upgrade, a rebuild).
// The process is still the same instance and must still be stoppable.
const deletedSuffix = " (deleted)"

func sameExe(now, recorded string) bool {
	return strings.TrimSuffix(now, deletedSuffix) == strings.TrimSuffix(recorded, deletedSuffix)
}
