package proc

import (
	"os"

	"svcctl/internal/fsutil"
	"svcctl/internal/runas"
)

// openAppend opens a service's log for appending, creating it if missing.
// fsutil.OpenAppend shares it for deletion (FILE_SHARE_DELETE), so the
// pre-restart rotation can rename it while the old instance still writes,
// as on Unix; and it refuses a reparse point (a symlink or junction planted
// as the log).
func openAppend(path string) (*os.File, error) {
	if path == os.DevNull {
		return os.OpenFile(path, os.O_WRONLY, 0)
	}
	return fsutil.OpenAppend(path)
}

// ShareLog has nothing to do: a service never runs as another user on
// Windows (config refuses user and group there).
func ShareLog(*os.File, *runas.Identity) error { return nil }
