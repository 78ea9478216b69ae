//go:build unix

package proc

import (
	"fmt"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// DescribeExit says how a process ended, truly: "exited with code 3",
// "killed by SIGKILL" (never "code -1").
func DescribeExit(ps *os.ProcessState) string {
	if ps == nil {
		return "running"
	}
	ws, ok := ps.Sys().(syscall.WaitStatus)
	switch {
	case !ok:
		return fmt.Sprintf("exited with code %d", ps.ExitCode())
	case ws.Signaled():
		s := "killed by " + signalName(ws.Signal())
		if ws.CoreDump() {
			s += " (core dumped)"
		}
		return s
	case ws.Exited():
		return fmt.Sprintf("exited with code %d", ws.ExitStatus())
	}
	return ps.String()
}

func signalName(sig syscall.Signal) string {
	if n := unix.SignalName(sig); n != "" {
		return n
	}
	return fmt.Sprintf("signal %d", int(sig))
}
