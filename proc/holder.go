package proc

import (
	"context"
	"fmt"

	"github.com/shirou/gopsutil/v4/process"
)

// Holder is the process that listens on a TCP port, named for people: a
// start that finds its health port taken says who holds it.
type Holder struct {
	PID      int32    `json:"pid"`
	Exe      string   `json:"exe,omitempty"`
	User     string   `json:"user,omitempty"`
	Identity Identity `json:"-"`
}

func (h Holder) String() string {
	s := fmt.Sprintf("pid %d", h.PID)
	if h.Exe != "" {
		s += " " + h.Exe
	}
	if h.User != "" {
		s += " (user " + h.User + ")"
	}
	return s
}

// PortHolder finds the process listening on TCP port (any address). nil
// with no error: nobody listens there; ErrOwnerUnknown: somebody does, but
// the system does not say who to this process. It reads every
// process's sockets (on Linux, /proc/*/fd), so it is for the rare start
// that finds its port taken, not for a loop.
func PortHolder(ctx context.Context, port uint32) (*Holder, error) {
	ls, err := listeners(ctx)
	if err != nil {
		return nil, fmt.Errorf("list listening sockets: %w", err)
	}
	unnamed := false
	for _, l := range ls {
		if l.port != port {
			continue
		}
		if l.pid <= 0 {
			unnamed = true
			continue
		}
		h := &Holder{PID: l.pid}
		if id, err := IdentityOf(l.pid); err == nil {
			h.Identity, h.Exe = id, id.Exe
		}
		if u, err := (&process.Process{Pid: l.pid}).UsernameWithContext(ctx); err == nil {
			h.User = u
		}
		return h, nil
	}
	if unnamed {
		return nil, fmt.Errorf("port %d is listened on: %w", port, ErrOwnerUnknown)
	}
	return nil, nil
}

// listener is one listening TCP socket: who, and which port.
type listener struct {
	pid  int32
	port uint32
}

// UserOf names the user pid runs as, for people ("" when it cannot be read).
func UserOf(pid int32) string {
	u, err := (&process.Process{Pid: pid}).Username()
	if err != nil {
		return ""
	}
	return u
}
