//go:build !linux

package proc

import "github.com/shirou/gopsutil/v4/process"

// gopsutilExe reads a process's executable where /proc is not there.
func gopsutilExe(pid int32) (string, error) {
	return (&process.Process{Pid: pid}).Exe()
}
