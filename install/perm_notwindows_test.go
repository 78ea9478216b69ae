//go:build !windows

package install

import "os"

// privateDir: the directory is 0700.
func privateDir(fi os.FileInfo) bool { return fi.IsDir() && fi.Mode().Perm() == 0o700 }
