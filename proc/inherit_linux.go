package proc

import "golang.org/x/sys/unix"

// closeRangeCloexec is close_range(3, ~0, CLOSE_RANGE_CLOEXEC): one system
// call on Linux 5.11 and later; false where it is missing (then the
// descriptors are listed from /proc/self/fd).
func closeRangeCloexec() bool {
	return unix.CloseRange(3, ^uint(0), unix.CLOSE_RANGE_CLOEXEC) == nil
}
