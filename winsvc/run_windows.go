//go:build windows

package winsvc

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"golang.org/x/sys/windows"
	"golang.org/x/sys/windows/svc"
)

// IsService reports whether this process was started by the service control
// manager.
func IsService() (bool, error) { return svc.IsWindowsService() }

// Run runs run as the Windows service name, until the SCM asks it to stop
// (stop, shutdown or preshutdown: all cancel run's context) and run has
// returned. When this process was not started by the SCM, the dispatcher
// cannot connect: Run returns ErrNotService without having called run.
func Run(name string, run func(ctx context.Context) error) error {
	h := &handler{run: run}
	err := svc.Run(name, h)
	if errors.Is(err, windows.ERROR_FAILED_SERVICE_CONTROLLER_CONNECT) {
		return fmt.Errorf("run as windows service %q: %w (%w)", name, ErrNotService, err)
	}
	if err != nil {
		return fmt.Errorf("run as windows service %q: %w", name, err)
	}
	return h.err
}

type handler struct {
	run func(context.Context) error
	err error
}

// accepts: PreShutdown is what buys the agent more than the few seconds a
// plain Shutdown gets; its length is the preshutdown timeout set at install.
const accepts = svc.AcceptStop | svc.AcceptShutdown | svc.AcceptPreShutdown

func (h *handler) Execute(_ []string, r <-chan svc.ChangeRequest, changes chan<- svc.Status) (bool, uint32) {
	changes <- svc.Status{State: svc.StartPending}
	stop := make(chan struct{})
	var once sync.Once
	done := make(chan error, 1)
	report := func(s status) { changes <- toSvc(s) }
	go func() { done <- serve(h.run, stop, report, checkpointEvery) }()
	for {
		select {
		case c := <-r:
			switch c.Cmd {
			case svc.Interrogate:
				changes <- c.CurrentStatus
			case svc.Stop, svc.Shutdown, svc.PreShutdown:
				once.Do(func() { close(stop) })
			}
		case err := <-done:
			h.err = err
			if err != nil {
				// A service-specific exit code: a failure, so the SCM applies
				// the recovery actions (recovery on non-crash failures is on).
				return true, 1
			}
			return false, 0
		}
	}
}

func toSvc(s status) svc.Status {
	switch s.phase {
	case phaseStopPending:
		return svc.Status{State: svc.StopPending, CheckPoint: s.checkpoint, WaitHint: uint32(s.waitHint.Milliseconds())}
	default:
		return svc.Status{State: svc.Running, Accepts: accepts}
	}
}
