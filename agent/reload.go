package agent

import "context"

// reloadLoop answers the requests to re-read the config (SIGHUP, `svc-ctl
// reload`) one at a time, for as long as the loops run. A request never
// stops the agent, whatever comes of it.
func (a *Agent) reloadLoop(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-a.o.Reload:
			a.reload(ctx)
		}
	}
}

// reload is where re-reading the config belongs (DESIGN.md, "Stopping and
// reloading the agent": changed services and jobs handled, unchanged ones not
// touched, an invalid file refused as failed/config-invalid). This svc-ctl
// does not re-read yet: it says so, and the config it started with stays in
// force.
func (a *Agent) reload(context.Context) {
	a.log.Warn("agent.reload_unsupported", "config", a.cfg.Path,
		"hint", "this svc-ctl does not re-read its config while running; the config it started with stays in force: restart the agent to apply changes")
}
