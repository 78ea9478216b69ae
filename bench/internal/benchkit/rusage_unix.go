//go:build unix

package benchkit

import (
	"fmt"
	"syscall"
	"time"
)

// SelfCPU is this process's user+system CPU time (getrusage RUSAGE_SELF).
func SelfCPU() (time.Duration, error) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, fmt.Errorf("getrusage: %w", err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), nil
}
