//go:build unix

package proc

import (
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

// Both ways of marking inherited descriptors close-on-exec (close_range on
// Linux, the /proc/self/fd or /dev/fd listing elsewhere) leave none without
// it. syscall.Pipe makes descriptors without close-on-exec, as a careless
// parent of svc-ctl would.
func TestCloseInheritedOnExec(t *testing.T) {
	for name, mark := range map[string]func(){"CloseInheritedOnExec": CloseInheritedOnExec, "listed": cloexecListed} {
		var p [2]int
		if err := syscall.Pipe(p[:]); err != nil {
			t.Fatal(err)
		}
		mark()
		for _, fd := range p {
			flags, err := unix.FcntlInt(uintptr(fd), unix.F_GETFD, 0)
			if err != nil || flags&unix.FD_CLOEXEC == 0 {
				t.Errorf("%s: fd %d flags %#x, %v: not close-on-exec", name, fd, flags, err)
			}
			syscall.Close(fd)
		}
	}
}
