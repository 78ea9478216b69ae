package watchdog

import (
	"context"
	"fmt"

	"svcctl/runtrace"
)

// Restart stops the named service's whole tree and starts it again now, as
// a person's `svc-ctl restart` asks: the same steps as a restart the
// watchdog decides (snapshot, log rotation, identity-checked tree stop,
// spawn, wait for health), under the same per-service lock, whatever the
// probe says. It clears a pause, backoff and given-up like a manual start.
// The verdict is ok/restarted with cause manual, or the failed start.
func (s *Supervisor) Restart(ctx context.Context, name string) (Result, error) {
	return s.Ensure(ctx, name, Request{Trigger: runtrace.TriggerManual, Restart: true})
}

// replace is the cycle of a Restart (and of a reload that changed what the
// service runs): its row is begun at once, one look records how the service
// was before (the snapshot's evidence), then the restart steps run without
// confirm or dependency checks: a person asked for a new instance.
func (c *cycle) replace(ctx context.Context) {
	c.begin(ctx)
	c.res.Detail.Probe = c.look(ctx)
	if ctx.Err() != nil {
		c.interrupt(ctx)
		return
	}
	c.restart(ctx)
	if c.res.Outcome == runtrace.OutcomeOK && c.res.Detail.OldInstance != "" {
		c.res.Message += fmt.Sprintf("; before: %s", c.res.Detail.OldInstance)
	}
}
