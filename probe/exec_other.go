//go:build !unix && !windows

package probe

import "os/exec"

// setGroup does nothing where there are no process groups.
func setGroup(*exec.Cmd) {}

func killGroup(cmd *exec.Cmd) error { return cmd.Process.Kill() }
