package proc

import (
	"strings"

	"github.com/shirou/gopsutil/v4/process"
)

// isZombie: Windows has no zombies; an exited process is not "running" even
// while handles to it stay open (gopsutil checks for STILL_ACTIVE).
func isZombie(*process.Process) (bool, error) { return false, nil }

// The create time comes from GetProcessTimes: exact and stable.
func sameCreateTime(now, recorded int64) bool { return now == recorded }

// Windows paths are case-insensitive.
func sameExe(now, recorded string) bool { return strings.EqualFold(now, recorded) }
