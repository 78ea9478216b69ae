//go:build unix && !linux

package proc

// closeRangeCloexec: no close_range here; the descriptors are listed from
// /dev/fd.
func closeRangeCloexec() bool { return false }
