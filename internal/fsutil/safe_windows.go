//go:build windows

package fsutil

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"unsafe"

	"golang.org/x/sys/windows"
)

// openFile opens path with FILE_FLAG_OPEN_REPARSE_POINT, so that a symlink
// or junction is opened itself rather than followed, and refuses it.
func openFile(path string, flag int, perm os.FileMode) (*os.File, error) {
	// A first look by name as well: the handle's attributes are the proof on
	// Windows, but some implementations (Wine) resolve a link even with
	// FILE_FLAG_OPEN_REPARSE_POINT.
	if fi, err := os.Lstat(path); err == nil && isLink(fi) {
		return nil, symlinkError(path)
	}
	p, err := windows.UTF16PtrFromString(path)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	attrs := uint32(windows.FILE_ATTRIBUTE_NORMAL | windows.FILE_FLAG_OPEN_REPARSE_POINT)
	if flag&os.O_CREATE != 0 && perm&0o200 == 0 {
		attrs |= windows.FILE_ATTRIBUTE_READONLY
	}
	h, err := windows.CreateFile(p, access(flag),
		windows.FILE_SHARE_READ|windows.FILE_SHARE_WRITE|windows.FILE_SHARE_DELETE,
		nil, disposition(flag), attrs, 0)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	var info windows.ByHandleFileInformation
	if err := windows.GetFileInformationByHandle(h, &info); err != nil {
		windows.CloseHandle(h)
		return nil, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	switch {
	case info.FileAttributes&windows.FILE_ATTRIBUTE_REPARSE_POINT != 0:
		windows.CloseHandle(h)
		return nil, symlinkError(path)
	case info.FileAttributes&windows.FILE_ATTRIBUTE_DIRECTORY != 0:
		windows.CloseHandle(h)
		return nil, notRegularError(path, fs.ModeDir)
	}
	if t, _ := windows.GetFileType(h); t != windows.FILE_TYPE_DISK {
		windows.CloseHandle(h)
		return nil, notRegularError(path, fs.ModeDevice)
	}
	return os.NewFile(uintptr(h), path), nil
}

func access(flag int) uint32 {
	var a uint32
	switch flag & (os.O_RDONLY | os.O_WRONLY | os.O_RDWR) {
	case os.O_RDONLY:
		a = windows.GENERIC_READ
	case os.O_WRONLY:
		a = windows.GENERIC_WRITE
	case os.O_RDWR:
		a = windows.GENERIC_READ | windows.GENERIC_WRITE
	}
	if flag&os.O_APPEND != 0 {
		// Append-only access: every write lands at the end, as O_APPEND.
		a &^= windows.GENERIC_WRITE
		a |= windows.FILE_APPEND_DATA | windows.FILE_WRITE_ATTRIBUTES | windows.FILE_WRITE_EA |
			windows.STANDARD_RIGHTS_WRITE | windows.SYNCHRONIZE
	}
	return a
}

func disposition(flag int) uint32 {
	switch {
	case flag&(os.O_CREATE|os.O_EXCL) == os.O_CREATE|os.O_EXCL:
		return windows.CREATE_NEW
	case flag&(os.O_CREATE|os.O_TRUNC) == os.O_CREATE|os.O_TRUNC:
		return windows.CREATE_ALWAYS
	case flag&os.O_CREATE == os.O_CREATE:
		return windows.OPEN_ALWAYS
	case flag&os.O_TRUNC == os.O_TRUNC:
		return windows.TRUNCATE_EXISTING
	}
	return windows.OPEN_EXISTING
}

func isLink(fi fs.FileInfo) bool {
	if fi.Mode()&(fs.ModeSymlink|fs.ModeIrregular) != 0 {
		return true
	}
	if d, ok := fi.Sys().(*windows.Win32FileAttributeData); ok {
		return d.FileAttributes&windows.FILE_ATTRIBUTE_REPARSE_POINT != 0
	}
	return false
}

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

// FileWriteMask is any right that changes a file or who may change it.
// DELETE counts: with it, a user can delete the file and create their own.
const FileWriteMask = windows.FILE_WRITE_DATA | windows.FILE_APPEND_DATA | windows.GENERIC_WRITE |
	windows.GENERIC_ALL | windows.WRITE_DAC | windows.WRITE_OWNER | windows.DELETE

// DirReplaceMask is any right on a directory that lets a user replace the
// files in it. Adding files alone does not (ProgramData grants that to
// Users).
const DirReplaceMask = fileDeleteChild | windows.GENERIC_ALL | windows.WRITE_DAC | windows.WRITE_OWNER

// BroadWriters returns the names of the broad groups (Users, Authenticated
// Users, Everyone) whose allow-ACEs on path grant any right in mask; a path
// without a DACL gives "Everyone". Deny-ACEs are not weighed against them:
// a DACL that allows and then denies is refused too (rewrite it).
func BroadWriters(path string, mask windows.ACCESS_MASK) ([]string, error) {
	sd, err := windows.GetNamedSecurityInfo(path, windows.SE_FILE_OBJECT, windows.DACL_SECURITY_INFORMATION)
	if err != nil {
		return nil, err
	}
	dacl, _, err := sd.DACL()
	if err != nil || dacl == nil {
		return []string{"Everyone (there is no access list)"}, nil
	}
	var names []string
	for i := uint32(0); i < uint32(dacl.AceCount); i++ {
		if name := broadWriter(dacl, i, mask); name != "" {
			names = append(names, name)
		}
	}
	return names, nil
}

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

// CheckPrivate refuses path when it is a reparse point, or when Users,
// Authenticated Users or Everyone can change it (for a directory: replace
// what is in it). uid is not used on Windows: the owner is not what grants
// access there, the access list is. Each problem names the path and an
// icacls command that fixes it.
func CheckPrivate(path string, uid int) error {
	fi, err := os.Lstat(path)
	if err != nil {
		return err
	}
	return CheckPrivateInfo(path, fi, uid)
}

// CheckOwnedBy is CheckPrivate (owners are not checked on Windows).
func CheckOwnedBy(path string, uids ...int) error { return CheckPrivate(path, 0) }

// CheckPrivateInfo is CheckPrivate with the Lstat already done.
func CheckPrivateInfo(path string, fi fs.FileInfo, uid int) error {
	if isLink(fi) {
		return symlinkError(path)
	}
	mask := windows.ACCESS_MASK(FileWriteMask)
	if fi.IsDir() {
		mask = DirReplaceMask | FileWriteMask
	}
	names, err := BroadWriters(path, mask)
	if err != nil {
		return fmt.Errorf("check permissions of %s: %w", path, err)
	}
	fix := fmt.Sprintf(`icacls "%s" /inheritance:r /grant:r Administrators:F SYSTEM:F`, path)
	if fi.IsDir() {
		fix = fmt.Sprintf(`icacls "%s" /inheritance:r /grant:r Administrators:(OI)(CI)F SYSTEM:(OI)(CI)F`, path)
	}
	var errs []error
	for _, n := range names {
		errs = append(errs, fmt.Errorf(`%s can be changed by %s: it %w; run: %s`, path, n, ErrUntrusted, fix))
	}
	return errors.Join(errs...)
}

// Owner is not meaningful on Windows (see CheckPrivate).
func Owner(fi fs.FileInfo) (int, bool) { return 0, false }

func userName(uid int) string { return "Administrators" }

// NoFollow is the open flag that refuses a symbolic link as the last path
// element, for opens svc-ctl does not make itself (a lock library's): none here; the state dir's access list keeps links out.
const NoFollow = 0

// CheckDirChain checks dir as CheckPrivate does (its access list); owners
// and parents are not weighed on Windows.
func CheckDirChain(dir string, uids ...int) error { return CheckPrivate(dir, 0) }

// privateDirSDDL: a protected DACL (no inheritance from %ProgramData%) with
// full control for SYSTEM and Administrators, inherited by every file and
// folder created inside.
const privateDirSDDL = "D:P(A;OICI;FA;;;SY)(A;OICI;FA;;;BA)"

func protectNewDir(dir string) error {
	sd, err := windows.SecurityDescriptorFromString(privateDirSDDL)
	if err != nil {
		return err
	}
	dacl, _, err := sd.DACL()
	if err != nil {
		return err
	}
	return windows.SetNamedSecurityInfo(dir, windows.SE_FILE_OBJECT,
		windows.DACL_SECURITY_INFORMATION|windows.PROTECTED_DACL_SECURITY_INFORMATION, nil, nil, dacl, nil)
}

// CheckDirInfo checks dir's access list, as CheckDirChain.
func CheckDirInfo(dir string, fi fs.FileInfo, uids ...int) error { return CheckPrivateInfo(dir, fi, 0) }

// CheckAdminOnlyDir refuses dir (or the nearest directory of it that
// exists) when Users, Authenticated Users or Everyone can change it.
func CheckAdminOnlyDir(dir string) error {
	d := filepath.Clean(dir)
	for {
		if _, err := os.Lstat(d); err == nil {
			break
		}
		parent := filepath.Dir(d)
		if parent == d {
			break
		}
		d = parent
	}
	return CheckPrivate(d, 0)
}
