//go:build windows

package probe

import "os/exec"

// setGroup does nothing on Windows: without a job object there is no group
// to kill, so a timeout kills the process only.
func setGroup(*exec.Cmd) {}

func killGroup(cmd *exec.Cmd) error { return cmd.Process.Kill() }
