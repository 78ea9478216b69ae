package config

import "golang.org/x/sys/windows"

// UserMode reports whether svc-ctl runs as a per-user agent: the process
// token is not elevated (an administrator's unelevated shell is user mode
// too, since it cannot write %ProgramData%\svc-ctl's protected files).
func UserMode() bool { return !windows.GetCurrentProcessToken().IsElevated() }
