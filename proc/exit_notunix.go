//go:build !unix

package proc

import (
	"fmt"
	"os"
)

// DescribeExit says how a process ended: "exited with code 3". A Windows
// exit code at or above 0xC0000000 is an NTSTATUS (0xC0000005: access
// violation) and is written in hex.
func DescribeExit(ps *os.ProcessState) string {
	if ps == nil {
		return "running"
	}
	code := uint32(ps.ExitCode())
	if code >= 0xC0000000 {
		return fmt.Sprintf("exited with code 0x%08X", code)
	}
	return fmt.Sprintf("exited with code %d", code)
}
