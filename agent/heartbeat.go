package agent

import (
	"context"
	"os"
	"time"

	"svcctl/runtrace"
)

// heartbeatLoop renews this agent's heartbeat row; a clean stop deletes it, so
// "stopped" and "stale" are different answers.
func (a *Agent) heartbeatLoop(ctx context.Context) {
	a.beat(ctx)
	every(ctx, a.config().Agent.Heartbeat, a.beat)
}

// every calls fn each period until ctx ends.
func every(ctx context.Context, period time.Duration, fn func(context.Context)) {
	t := time.NewTicker(period)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			fn(ctx)
		}
	}
}

// beat renews the heartbeat row (through the queue: while the ledger refuses
// writes, the newest beat waits there) and agent.status, which the command
// line reads when the row cannot be renewed.
func (a *Agent) beat(ctx context.Context) {
	defer a.writeReport()
	if a.ledger.Queue == nil || a.draining.Load() {
		return // draining: the drain deletes the heartbeat at its end; nothing renews it after
	}
	host, _ := os.Hostname()
	err := a.ledger.Queue.Beat(ctx, runtrace.Heartbeat{InstanceID: a.instance, PID: os.Getpid(), Version: a.o.Version,
		StartedAt: a.started, BootTime: a.boot, Mode: a.o.Mode, Hostname: host})
	if err != nil && ctx.Err() == nil {
		a.log.Warn("heartbeat.failed", "err", err)
	}
}
