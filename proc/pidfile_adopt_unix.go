//go:build unix

package proc

import (
	"errors"
	"fmt"
	"io"
	"os"

	"golang.org/x/sys/unix"
)

// readDaemonPidFile opens path without following a link (O_NOFOLLOW) and
// without blocking on a FIFO, and checks on the open file that it is a
// regular file owned by uid or root before reading it.
func readDaemonPidFile(path string, uid *uint32) ([]byte, error) {
	fd, err := unix.Open(path, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	switch {
	case errors.Is(err, unix.ENOENT):
		return nil, fmt.Errorf("pid_file %s: %w", path, ErrGone)
	case errors.Is(err, unix.ELOOP):
		return nil, fmt.Errorf("pid_file %s: %w: it is a symbolic link (never followed)", path, ErrNotAdopted)
	case err != nil:
		return nil, fmt.Errorf("pid_file %s: %w: %w", path, ErrNotAdopted, err)
	}
	f := os.NewFile(uintptr(fd), path)
	defer f.Close()
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return nil, fmt.Errorf("pid_file %s: %w: %w", path, ErrNotAdopted, err)
	}
	if st.Mode&unix.S_IFMT != unix.S_IFREG {
		return nil, fmt.Errorf("pid_file %s: %w: not a regular file", path, ErrNotAdopted)
	}
	want := uint32(os.Geteuid())
	if uid != nil {
		want = *uid
	}
	if st.Uid != want && st.Uid != 0 {
		return nil, fmt.Errorf("pid_file %s: %w: owned by uid %d, not by the service's user (uid %d) or root", path, ErrNotAdopted, st.Uid, want)
	}
	return io.ReadAll(io.LimitReader(f, maxDaemonPidFile))
}
