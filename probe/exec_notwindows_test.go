//go:build !windows

package probe

// How the OS words a command that cannot be started.
const (
	noSuchFile = "no such file or directory"
	notOnPath  = "executable file not found in $PATH"
)
