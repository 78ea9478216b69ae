//go:build unix

package agent

import "syscall"

// fdLimit is the soft limit on open descriptors (Go raises it to the hard
// limit at start), or 0 when it cannot be read.
func fdLimit() uint64 {
	var r syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &r); err != nil {
		return 0
	}
	return uint64(r.Cur)
}
