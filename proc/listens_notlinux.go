//go:build !linux

package proc

import (
	"context"

	"github.com/shirou/gopsutil/v4/process"
)

// listens asks gopsutil for pid's listening sockets.
func listens(pid int32, port uint32) bool {
	ctx, cancel := context.WithTimeout(context.Background(), factsTimeout)
	defer cancel()
	ls, err := listenersOf(ctx, &process.Process{Pid: pid})
	if err != nil {
		return false
	}
	for _, l := range ls {
		if l.port == port {
			return true
		}
	}
	return false
}
