package proc

import "syscall"

func killPID(pid int32) error { return syscall.Kill(int(pid), syscall.SIGKILL) }
func stopPID(pid int32) error { return syscall.Kill(int(pid), syscall.SIGSTOP) }
