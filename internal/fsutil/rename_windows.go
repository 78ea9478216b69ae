package fsutil

import (
	"errors"
	"os"
	"time"

	"golang.org/x/sys/windows"
)

// renameTries bounds how long Rename waits for a reader to let go: a
// status or a watchdog read holds a file for milliseconds.
const renameTries = 25

// Rename renames oldpath to newpath, replacing it. Windows refuses to
// replace a file that another handle has open, even one shared for
// deletion (ERROR_ACCESS_DENIED, or ERROR_SHARING_VIOLATION), where Unix
// does not care: a `svc-ctl status` reading a pid file while the agent
// rewrites it. Such a refusal is retried for up to about a second before
// it is returned.
func Rename(oldpath, newpath string) error {
	var err error
	for i := range renameTries {
		if err = os.Rename(oldpath, newpath); err == nil || !busy(err) {
			return err
		}
		time.Sleep(time.Duration(min(10*(i+1), 60)) * time.Millisecond)
	}
	return err
}

func busy(err error) bool {
	return errors.Is(err, windows.ERROR_ACCESS_DENIED) || errors.Is(err, windows.ERROR_SHARING_VIOLATION)
}
