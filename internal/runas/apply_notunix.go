//go:build !unix

package runas

import "os/exec"

// Apply has nothing to do: config refuses user and group on this OS.
func Apply(*exec.Cmd, *Identity) {}
