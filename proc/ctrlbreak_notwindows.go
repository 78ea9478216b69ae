//go:build !windows

package proc

// CtrlBreakEnv: see ctrlbreak_windows.go; the helper exists on Windows only.
const CtrlBreakEnv = "SVCCTL_CTRL_BREAK_GROUP"

// CtrlBreakMain: there are no consoles to send CTRL_BREAK through here.
func CtrlBreakMain(string) int { return 2 }
