package agent

import (
	"context"
	"fmt"
	"os"
	"time"

	"svcctl/agent/selfping"
	"svcctl/notify"
	"svcctl/runtrace"
)

// startSelfPing sends /start and the ping of each period ([agent] ping,
// agent/selfping) until ctx ends.
func (a *Agent) startSelfPing(ctx context.Context) {
	url := a.config().Agent.Ping
	if url == "" {
		return
	}
	a.self = &selfping.Pinger{URL: url, Draining: a.draining.Load, Record: a.recordSelfPing,
		Go:     func(name string, fn func()) { a.net.GoOnce(name, fn, nil) },
		Redact: func(s string) string { return a.logRed.Load().String(s) }}
	if err := a.ledger.OpenErr; err != nil {
		a.self.Failing("svc-ctl cannot open its ledger: " + err.Error())
	}
	a.self.Ping(notify.SignalStart, fmt.Sprintf("svc-ctl %s started (pid %d, %s)", a.o.Version, os.Getpid(), a.o.Mode))
	a.net.GoSafe(ctx, "agent-ping", func(ctx context.Context) {
		every(ctx, a.config().Agent.PingEvery, func(context.Context) {
			cfg := a.config()
			a.self.Periodic(fmt.Sprintf("svc-ctl %s: %d services, %d jobs", a.o.Version, len(cfg.Services), len(cfg.Jobs)))
		})
	})
}

func (a *Agent) recordSelfPing(signal string, lat time.Duration, err error) {
	errText := ""
	if err != nil {
		errText = err.Error()
		a.log.Warn("ping.failed", "subject", runtrace.AgentID, "signal", signal, "err", err)
	} else {
		a.log.Debug("ping.sent", "subject", runtrace.AgentID, "signal", signal, "latency_ms", lat.Milliseconds())
	}
	a.recMu.RLock() // a ping answered after the stop must not write to a closed ledger
	defer a.recMu.RUnlock()
	if a.store == nil || a.closed {
		return
	}
	if rerr := a.store.ChannelResult(context.Background(), notify.PingChannel(runtrace.AgentID), time.Now(), lat, errText); rerr != nil {
		a.log.Debug("ping.record_failed", "err", rerr)
	}
}
