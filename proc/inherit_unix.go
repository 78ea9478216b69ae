//go:build unix

package proc

import (
	"os"
	"strconv"

	"golang.org/x/sys/unix"
)

// CloseInheritedOnExec marks every descriptor above stderr close-on-exec.
// svc-ctl opens its own descriptors close-on-exec (Go does), but the
// process that started svc-ctl may have left some open without it (a
// terminal multiplexer, a CI runner, a tool's pipe), and every service,
// job and check svc-ctl spawns would inherit them for life: a pipe held
// open that way keeps whoever reads its other end waiting for an EOF that
// never comes, and a service gets a descriptor it was never meant to have.
// main calls it once, before anything is spawned; the descriptors stay
// usable by svc-ctl itself.
func CloseInheritedOnExec() {
	if !closeRangeCloexec() {
		cloexecListed()
	}
}

// cloexecListed marks every descriptor above stderr that /proc/self/fd (or
// /dev/fd) lists close-on-exec.
func cloexecListed() {
	for _, dir := range []string{"/proc/self/fd", "/dev/fd"} {
		ents, err := os.ReadDir(dir)
		if err != nil {
			continue
		}
		for _, e := range ents {
			if fd, err := strconv.Atoi(e.Name()); err == nil && fd > 2 {
				unix.CloseOnExec(fd)
			}
		}
		return
	}
}
