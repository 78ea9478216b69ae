//go:build unix

package proc

import "golang.org/x/sys/unix"

// ownSession reports whether pid is the id of svc-ctl's own session or
// process group.
func ownSession(pid int32) bool {
	sid, err1 := unix.Getsid(0)
	pgid, err2 := unix.Getpgid(0)
	return (err1 == nil && sid == int(pid)) || (err2 == nil && pgid == int(pid))
}
