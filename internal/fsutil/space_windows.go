//go:build windows

package fsutil

import (
	"errors"

	"golang.org/x/sys/windows"
)

func errnoProblem(err error) WriteProblem {
	switch {
	case errors.Is(err, windows.ERROR_DISK_FULL), errors.Is(err, windows.ERROR_HANDLE_DISK_FULL):
		return NoSpace
	case errors.Is(err, windows.ERROR_DISK_QUOTA_EXCEEDED), errors.Is(err, windows.ERROR_NOT_ENOUGH_QUOTA):
		return NoQuota
	case errors.Is(err, windows.ERROR_WRITE_PROTECT):
		return ReadOnly
	case errors.Is(err, windows.ERROR_ACCESS_DENIED):
		return Denied
	}
	return ""
}

func freeSpace(path string) (uint64, error) {
	p, err := windows.UTF16PtrFromString(path)
	if err != nil {
		return 0, err
	}
	var free, total, totalFree uint64
	if err := windows.GetDiskFreeSpaceEx(p, &free, &total, &totalFree); err != nil {
		return 0, err
	}
	return free, nil
}
