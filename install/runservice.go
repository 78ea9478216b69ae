package install

import (
	"context"
	"errors"
	"fmt"

	"svcctl/winsvc"
)

// RunServiceContext runs run as the OS expects of a service. Started by the
// Windows service control manager, it runs under the SCM: stop, shutdown and
// preshutdown cancel run's context, and the SCM is told to keep waiting
// (StopPending with an advancing checkpoint) until run returns, so the drain
// gets its drain_timeout; the preshutdown timeout set at install bounds it at
// system shutdown. Otherwise (systemd, launchd, init scripts, a terminal) it
// calls run directly. The caller handles signals: run's context is cancelled
// when ctx is, or when the SCM says stop.
//
// asService says the command line claims the service manager started it
// (`--mode service`, which the service install registers carries): then the
// SCM's dispatcher is tried even when winsvc.IsService says no. IsService
// guesses from the parent process (services.exe in session 0), a guess that
// is wrong under Wine's service manager; a service that never connects to
// the dispatcher is killed by the SCM as a failed start. When the dispatcher
// cannot connect (a person typed --mode service), run runs directly.
func RunServiceContext(ctx context.Context, name string, asService bool, run func(ctx context.Context) error) error {
	isSvc, err := winsvc.IsService()
	if err != nil {
		return fmt.Errorf("ask windows whether this is a service: %w", err)
	}
	if !isSvc && !asService {
		return run(ctx)
	}
	err = winsvc.Run(name, func(scmCtx context.Context) error {
		both, cancel := context.WithCancel(ctx)
		defer cancel()
		stopAfter := context.AfterFunc(scmCtx, cancel)
		defer stopAfter()
		return run(both)
	})
	if errors.Is(err, winsvc.ErrNotService) || errors.Is(err, winsvc.ErrUnsupported) {
		return run(ctx) // winsvc.Run did not call run
	}
	return err
}
