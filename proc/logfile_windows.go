//go:build windows

package proc

import (
	"os"

	"golang.org/x/sys/windows"
)

// openAppend is os.OpenFile(path, O_WRONLY|O_APPEND|O_CREATE) with
// FILE_SHARE_DELETE added: without it the log cannot be renamed while the
// service holds it open, and the rotation before a restart
// (snapshot.RotateLog) fails with a sharing violation for exactly the
// instance whose output is the evidence — a hung one. The handle is not
// inheritable: os/exec duplicates it into the child it is given to.
func openAppend(path string) (*os.File, error) {
	if path == os.DevNull {
		return os.OpenFile(path, os.O_WRONLY, 0)
	}
	p, err := windows.UTF16PtrFromString(path)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: path, Err: err}
	}
	const access = windows.FILE_APPEND_DATA | windows.FILE_WRITE_ATTRIBUTES | windows.FILE_WRITE_EA |
		windows.STANDARD_RIGHTS_WRITE | windows.SYNCHRONIZE
	const share = windows.FILE_SHARE_READ | windows.FILE_SHARE_WRITE | windows.FILE_SHARE_DELETE
	h, err := windows.CreateFile(p, access, share, nil, windows.OPEN_ALWAYS, windows.FILE_ATTRIBUTE_NORMAL, 0)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: path, Err: err}
	}
	return os.NewFile(uintptr(h), path), nil
}
