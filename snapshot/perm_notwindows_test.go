//go:build !windows

package snapshot

import "os"

// permIs reports whether fi's permission bits are want.
func permIs(fi os.FileInfo, want os.FileMode) bool { return fi.Mode().Perm() == want }
