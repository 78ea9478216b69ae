//go:build !unix

package svcenv

import "os/exec"

// LookPath is exec.LookPath here: Windows services and a shell see the same
// system Path for a LocalSystem agent's programs.
func LookPath(name string, env []string) (string, error) { return exec.LookPath(name) }
