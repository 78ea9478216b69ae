package proc

import (
	"fmt"

	"github.com/shirou/gopsutil/v4/process"
	"golang.org/x/sys/unix"
)

// sZomb is SZOMB from <sys/proc.h>: exited, waiting for its parent.
const sZomb = 5

// isZombie asks the kernel (kinfo_proc) directly: gopsutil's Status runs ps(1),
// far too slow for a check made in a poll loop.
func isZombie(p *process.Process) (bool, error) {
	k, err := unix.SysctlKinfoProc("kern.proc.pid", int(p.Pid))
	if err != nil {
		return false, fmt.Errorf("sysctl kern.proc.pid.%d: %w", p.Pid, err)
	}
	if k.Proc.P_pid != p.Pid {
		return false, fmt.Errorf("pid %d: %w", p.Pid, ErrGone)
	}
	return k.Proc.P_stat == sZomb, nil
}

// The create time is kinfo_proc's p_starttime: exact and stable.
func sameCreateTime(now, recorded int64) bool { return now == recorded }

func sameExe(now, recorded string) bool { return now == recorded }
