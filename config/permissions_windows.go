package config

import (
	"errors"
	"fmt"
	"path/filepath"

	"golang.org/x/sys/windows"

	"svcctl/internal/fsutil"
)

// CheckPermissions refuses a config file whose DACL grants write access to
// Users, Authenticated Users or Everyone (or that has no DACL at all), or
// whose directory lets them delete and replace it (fsutil.BroadWriters: the
// one reading of access lists). Every problem wraps ErrInsecurePermissions.
func CheckPermissions(path string) error {
	abs, err := filepath.Abs(path)
	if err != nil {
		return fmt.Errorf("check permissions of %s: %w", path, err)
	}
	fix := fmt.Sprintf(`icacls "%s" /inheritance:r /grant:r Administrators:F SYSTEM:F`, abs)
	return errors.Join(
		daclProblem("config", abs, fsutil.FileWriteMask, fix),
		daclProblem("directory of the config", filepath.Dir(abs), fsutil.DirReplaceMask,
			fmt.Sprintf(`icacls "%s" /remove:g Users "Authenticated Users" Everyone`, filepath.Dir(abs))),
	)
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
