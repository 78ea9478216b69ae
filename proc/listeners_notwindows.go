//go:build !windows

package proc

import (
	"context"
	"errors"

	"github.com/shirou/gopsutil/v4/net"
	"github.com/shirou/gopsutil/v4/process"
)

// ErrOwnerUnknown: a socket's owner is not named to this process (the
// owner's /proc/PID/fd is another user's to read).
var ErrOwnerUnknown = errors.New("its owner is another user's process this one cannot see")

// listeners lists every listening TCP socket; pid 0 where the owner is not
// visible.
func listeners(ctx context.Context) ([]listener, error) {
	conns, err := net.ConnectionsWithContext(ctx, "tcp")
	if err != nil {
		return nil, err
	}
	return listening(conns), nil
}

// listenersOf lists the listening TCP sockets of p (on Linux its
// /proc/PID/fd, not every process's).
func listenersOf(ctx context.Context, p *process.Process) ([]listener, error) {
	conns, err := p.ConnectionsWithContext(ctx)
	if err != nil {
		return nil, err
	}
	return listening(conns), nil
}

func listening(conns []net.ConnectionStat) []listener {
	var out []listener
	for _, c := range conns {
		if c.Status == "LISTEN" {
			out = append(out, listener{pid: c.Pid, port: c.Laddr.Port})
		}
	}
	return out
}
