package agent

import (
	"context"
	"fmt"
	"time"

	"svcctl/notify"
	"svcctl/runtrace"
	"svcctl/watchdog"
)

// Clock is what the sleep detector reads: the wall clock and the monotonic
// clock separately, so a test can make the wall clock jump.
type Clock interface {
	Wall() time.Time
	Mono() time.Duration
}

type realClock struct{ start time.Time }

func (c realClock) Wall() time.Time     { return time.Now().Round(0) } // Round(0) drops the monotonic reading
func (c realClock) Mono() time.Duration { return time.Since(c.start) }

// sleepDetector notices that the host slept: between two ticks the wall clock
// moved much further than the monotonic clock (Linux, macOS: the monotonic
// clock stops while suspended), or the tick itself came far too late (hosts
// whose monotonic clock runs on while suspended).
type sleepDetector struct {
	clock     Clock
	period    time.Duration
	threshold time.Duration
	lastWall  time.Time
	lastMono  time.Duration
}

func newSleepDetector(c Clock, period time.Duration) *sleepDetector {
	return &sleepDetector{clock: c, period: period, threshold: max(3*period, 15*time.Second),
		lastWall: c.Wall(), lastMono: c.Mono()}
}

// tick returns how long the host was away since the last tick, or 0.
func (d *sleepDetector) tick() time.Duration {
	wall, mono := d.clock.Wall(), d.clock.Mono()
	dw, dm := wall.Sub(d.lastWall), mono-d.lastMono
	d.lastWall, d.lastMono = wall, mono
	away := max(dw-dm, dm-d.period)
	if away > d.threshold {
		return away
	}
	return 0
}

// sleepLoop runs every service's cycle and the jobs' catch-up when the host
// comes back from sleep.
func (a *Agent) sleepLoop(ctx context.Context, d *sleepDetector) {
	t := time.NewTicker(a.o.SleepTick)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		away := d.tick()
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
