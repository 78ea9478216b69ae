package install

import (
	"errors"
	"fmt"
	"path/filepath"

	"svcctl/internal/fsutil"
)

// checkExeTrusted refuses, for a system install, an svc-ctl.exe that Users,
// Authenticated Users or Everyone could change, or whose folder lets them
// replace it: the service runs it as LocalSystem at every boot. (Its
// folder's parents are not weighed: a folder that can be neither renamed
// nor emptied by them keeps the file where it is.)
func checkExeTrusted(exe string) error {
	real, err := filepath.EvalSymlinks(exe)
	if err != nil {
		return fmt.Errorf("the svc-ctl binary %s: %w", exe, err)
	}
	problem := errors.Join(fsutil.CheckPrivate(real, 0), fsutil.CheckPrivate(filepath.Dir(real), 0))
	if problem == nil {
		return nil
	}
	return fmt.Errorf("refusing to install %s as the system agent: %w; the service runs it as LocalSystem at every boot, so whoever can change it runs code as LocalSystem. "+
		`Copy it to a folder only Administrators can change (C:\Program Files\svc-ctl) and install from there`, real, problem)
}
