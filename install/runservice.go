package install

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"svcctl/winsvc"
)

// RunService runs run as the OS expects of a service. Started by the Windows
// service control manager, it runs under the SCM: stop, shutdown and
// preshutdown cancel run's context, and the SCM is told to keep waiting
// (StopPending with an advancing checkpoint) until run returns, so the drain
// gets its drain_timeout; the preshutdown timeout set at install bounds it at
// system shutdown. Otherwise (systemd, launchd, init scripts, a terminal) it
// calls run directly, with a context cancelled by SIGINT or SIGTERM.
func RunService(name string, run func(ctx context.Context) error) error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return RunServiceContext(ctx, name, run)
}

// RunServiceContext is RunService for a caller that handles signals itself:
// run's context is cancelled when ctx is, or when the SCM says stop.
func RunServiceContext(ctx context.Context, name string, run func(ctx context.Context) error) error {
	isSvc, err := winsvc.IsService()
	if err != nil {
		return fmt.Errorf("ask windows whether this is a service: %w", err)
	}
	if !isSvc {
		return run(ctx)
	}
	return winsvc.Run(name, func(scmCtx context.Context) error {
		both, cancel := context.WithCancel(ctx)
		defer cancel()
		stopAfter := context.AfterFunc(scmCtx, cancel)
		defer stopAfter()
		return run(both)
	})
}
