package config

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"golang.org/x/sys/windows"

	"svcctl/internal/fsutil"
)

// CheckPermissions refuses a config file whose DACL grants write access to
// Users, Authenticated Users or Everyone (or that has no DACL at all), or
// whose directory lets them delete and replace it (fsutil.BroadWriters: the
// one reading of access lists). Every problem wraps ErrInsecurePermissions.
func CheckPermissions(path string) error { return checkPermissions("config", path, nil) }

// checkPermissions is CheckPermissions for a file of the given kind
// ("config", "env_file"); a directory already in dirs is not judged again
// (its problem is printed once); dirs may be nil.
func checkPermissions(what, path string, dirs map[string]bool) error {
	abs, err := filepath.Abs(path)
	if err != nil {
		return fmt.Errorf("check permissions of %s: %w", path, err)
	}
	fix := fmt.Sprintf(`icacls "%s" /inheritance:r /grant:r Administrators:F SYSTEM:F`, abs)
	fileErr := daclProblem(what, abs, fsutil.FileWriteMask, fix)
	dir := filepath.Dir(abs)
	if dirs[dir] {
		return fileErr
	}
	if dirs != nil {
		dirs[dir] = true
	}
	return errors.Join(fileErr,
		daclProblem("directory of the "+what, dir, fsutil.DirReplaceMask,
			fmt.Sprintf(`icacls "%s" /remove:g Users "Authenticated Users" Everyone`, dir)))
}

func daclProblem(what, path string, mask windows.ACCESS_MASK, fix string) error {
	names, err := fsutil.BroadWriters(path, mask)
	if err != nil {
		return fmt.Errorf("check permissions of %s: %w", path, err)
	}
	var errs []error
	for _, name := range names {
		errs = append(errs, fmt.Errorf("%w: %s %s can be changed by %s, who would choose what the agent runs; run: %s",
			ErrInsecurePermissions, what, path, name, fix))
	}
	return errors.Join(errs...)
}

// checkDirPermissions refuses a directory that Users, Authenticated Users or
// Everyone can add a file to (an include directory). One that does not
// exist is no problem yet.
func checkDirPermissions(what, dir string) error {
	if _, err := os.Stat(dir); errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	return daclProblem(what, dir, fsutil.DirReplaceMask|fsutil.FileWriteMask, // FILE_ADD_FILE is FILE_WRITE_DATA on a directory
		fmt.Sprintf(`icacls "%s" /remove:g Users "Authenticated Users" Everyone`, dir))
}
