//go:build unix

package fsutil

import (
	"errors"
	"syscall"

	"golang.org/x/sys/unix"
)

func errnoProblem(err error) WriteProblem {
	switch {
	case errors.Is(err, syscall.ENOSPC):
		return NoSpace
	case errors.Is(err, syscall.EDQUOT):
		return NoQuota
	case errors.Is(err, syscall.EROFS):
		return ReadOnly
	case errors.Is(err, syscall.EACCES), errors.Is(err, syscall.EPERM):
		return Denied
	}
	return ""
}

func freeSpace(path string) (uint64, error) {
	var st unix.Statfs_t
	if err := unix.Statfs(path, &st); err != nil {
		return 0, err
	}
	return uint64(st.Bavail) * uint64(st.Bsize), nil
}
