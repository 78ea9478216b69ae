package agent

import (
	"context"
	"fmt"
	"time"

	"svcctl/agent/sleep"
	"svcctl/notify"
	"svcctl/runtrace"
	"svcctl/watchdog"
)

// sleepLoop runs every service's cycle and the jobs' catch-up when the host
// comes back from sleep.
func (a *Agent) sleepLoop(ctx context.Context, d *sleep.Detector) {
	t := time.NewTicker(a.o.SleepTick)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		away := d.Tick()
		if away == 0 {
			continue
		}
		a.log.Info("host.woke", "away_ms", away.Milliseconds())
		a.record("agent", runtrace.TriggerCatchUp, runtrace.OutcomeOK, runtrace.ReasonResumed,
			map[string]any{"away_ms": away.Milliseconds(), "away": away.Round(time.Second).String()})
		a.self.Ping(notify.SignalStart, fmt.Sprintf("svc-ctl woke after %s away", away.Round(time.Second)))
		for _, s := range a.config().Services {
			a.trigger(s.Name, watchdog.Request{Trigger: runtrace.TriggerCatchUp})
		}
		a.jobs.Wake()
	}
}
