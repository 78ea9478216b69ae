//go:build windows

package fsutil

// SyncDir is a no-op on Windows: a directory cannot be opened for
// FlushFileBuffers there, and NTFS journals renames itself.
func SyncDir(dir string) error { return nil }
