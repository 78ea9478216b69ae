//go:build !windows

package fsutil

import "os"

// Rename renames oldpath to newpath, replacing it: os.Rename, atomic.
func Rename(oldpath, newpath string) error { return os.Rename(oldpath, newpath) }
