//go:build !unix && !windows

package fsutil

import (
	"io/fs"
	"os"
)

// openFile has no link-free open here; these platforms never run a
// privileged agent.
func openFile(path string, flag int, perm os.FileMode) (*os.File, error) {
	if fi, err := os.Lstat(path); err == nil && isLink(fi) {
		return nil, symlinkError(path)
	}
	return os.OpenFile(path, flag, perm)
}

func isLink(fi fs.FileInfo) bool { return fi.Mode()&fs.ModeSymlink != 0 }

// CheckPrivate only refuses links here: there are no owners to check.
func CheckPrivate(path string, uid int) error {
	fi, err := os.Lstat(path)
	if err != nil {
		return err
	}
	return CheckPrivateInfo(path, fi, uid)
}

// CheckOwnedBy is CheckPrivate.
func CheckOwnedBy(path string, uids ...int) error { return CheckPrivate(path, 0) }

// CheckPrivateInfo is CheckPrivate with the Lstat already done.
func CheckPrivateInfo(path string, fi fs.FileInfo, uid int) error {
	if isLink(fi) {
		return symlinkError(path)
	}
	return nil
}

// Owner is not known here.
func Owner(fi fs.FileInfo) (int, bool) { return 0, false }

func userName(uid int) string { return "the agent's user" }

// NoFollow is the open flag that refuses a symbolic link as the last path
// element, for opens svc-ctl does not make itself (a lock library's): none here; the state dir's access list keeps links out.
const NoFollow = 0

// CheckDirChain only refuses a link here.
func CheckDirChain(dir string, uids ...int) error { return CheckPrivate(dir, 0) }

// protectNewDir has nothing to add to mode 0700 here.
func protectNewDir(string) error { return nil }

// CheckDirInfo only refuses a link here.
func CheckDirInfo(dir string, fi fs.FileInfo, uids ...int) error { return CheckPrivateInfo(dir, fi, 0) }

// CheckAdminOnlyDir has no owners to check here.
func CheckAdminOnlyDir(dir string) error { return nil }
