package proc

import (
	"io/fs"
	"syscall"
)

// readProcFile reads a small /proc file (a stat, loadavg) in three system
// calls where os.ReadFile makes ten: an os.File first tries the runtime's
// poller (O_NONBLOCK on, epoll_ctl refused for a proc file, O_NONBLOCK off)
// and stats the file for its size. A Walk reads one such file per process
// created since the last (docs/benchmarks.md, "The agent beside its floor").
// Errors are *fs.PathError, as os.ReadFile's.
func readProcFile(path string) ([]byte, error) {
	fd, err := syscall.Open(path, syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
	for err == syscall.EINTR {
		fd, err = syscall.Open(path, syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
	}
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	defer syscall.Close(fd)
	b := make([]byte, 0, 512)
	for {
		n, err := syscall.Read(fd, b[len(b):cap(b)])
		switch {
		case err == syscall.EINTR:
			continue
		case err != nil:
			return nil, &fs.PathError{Op: "read", Path: path, Err: err}
		case n == 0:
			return b, nil
		}
		b = b[:len(b)+n]
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)] // grow
		}
	}
}
