package config

import (
	"errors"
	"fmt"
	"path/filepath"
	"unsafe"

	"golang.org/x/sys/windows"
)

// broadSIDs are the groups that hold every non-administrator.
var broadSIDs = []struct {
	sid  windows.WELL_KNOWN_SID_TYPE
	name string
}{
	{windows.WinBuiltinUsersSid, `BUILTIN\Users`},
	{windows.WinAuthenticatedUserSid, "Authenticated Users"},
	{windows.WinWorldSid, "Everyone"},
}

const fileDeleteChild = 0x40 // FILE_DELETE_CHILD, not in x/sys/windows

// fileWriteMask is any right that changes the file or who may change it.
// DELETE counts: with it, a user can delete the file and create their own.
const fileWriteMask = windows.FILE_WRITE_DATA | windows.FILE_APPEND_DATA | windows.GENERIC_WRITE |
	windows.GENERIC_ALL | windows.WRITE_DAC | windows.WRITE_OWNER | windows.DELETE

// dirWriteMask is any right on the directory that lets a user replace the
// file. Adding files alone does not (ProgramData grants that to Users).
const dirWriteMask = fileDeleteChild | windows.GENERIC_ALL | windows.WRITE_DAC | windows.WRITE_OWNER

// CheckPermissions refuses a config file whose DACL grants write access to
// Users, Authenticated Users or Everyone (or that has no DACL at all), or
// whose directory lets them delete and replace it. Only allow-ACEs that
// apply to the object itself are read; deny-ACEs are not weighed against
// them, so a DACL that allows and then denies the same group is refused too
// (rewrite it without the allow). Every problem wraps
// ErrInsecurePermissions.
func CheckPermissions(path string) error {
	abs, err := filepath.Abs(path)
	if err != nil {
		return fmt.Errorf("check permissions of %s: %w", path, err)
	}
	fix := fmt.Sprintf(`icacls "%s" /inheritance:r /grant:r Administrators:F SYSTEM:F`, abs)
	err = errors.Join(
		daclProblem("config", abs, fileWriteMask, fix),
		daclProblem("directory of the config", filepath.Dir(abs), dirWriteMask,
			fmt.Sprintf(`icacls "%s" /remove:g Users "Authenticated Users" Everyone`, filepath.Dir(abs))),
	)
	return err
}

func daclProblem(what, path string, mask windows.ACCESS_MASK, fix string) error {
	sd, err := windows.GetNamedSecurityInfo(path, windows.SE_FILE_OBJECT, windows.DACL_SECURITY_INFORMATION)
	if err != nil {
		return fmt.Errorf("check permissions of %s: %w", path, err)
	}
	dacl, _, err := sd.DACL()
	if err != nil || dacl == nil {
		return fmt.Errorf("%w: %s %s has no access list, so everyone can write it; run: %s",
			ErrInsecurePermissions, what, path, fix)
	}
	var errs []error
	for i := uint32(0); i < uint32(dacl.AceCount); i++ {
		if name := broadWriter(dacl, i, mask); name != "" {
			errs = append(errs, fmt.Errorf("%w: %s %s can be changed by %s, who would choose what the agent runs; run: %s",
				ErrInsecurePermissions, what, path, name, fix))
		}
	}
	return errors.Join(errs...)
}

// broadWriter returns the name of the broad group ACE i grants write
// access to, or "".
func broadWriter(dacl *windows.ACL, i uint32, mask windows.ACCESS_MASK) string {
	var ace *windows.ACCESS_ALLOWED_ACE
	if err := windows.GetAce(dacl, i, &ace); err != nil {
		return ""
	}
	if ace.Header.AceType != windows.ACCESS_ALLOWED_ACE_TYPE ||
		ace.Header.AceFlags&windows.INHERIT_ONLY_ACE != 0 || ace.Mask&mask == 0 {
		return ""
	}
	sid := (*windows.SID)(unsafe.Pointer(&ace.SidStart))
	for _, b := range broadSIDs {
		if sid.IsWellKnown(b.sid) {
			return b.name
		}
	}
	return ""
}
