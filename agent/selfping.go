package agent

import (
	"context"
	"fmt"
	"os"
	"sync"
	"time"

	"svcctl/notify"
	"svcctl/runtrace"
)

// The agent's own dead man's switch ([agent] ping): a healthchecks-style
// check that hears from the agent every ping_every and raises its own
// alarm when it stops hearing — the host off, asleep past its grace, the
// agent gone — the one failure no agent can report itself. /start at the
// agent's start and when the host wakes (the server times the gap), the
// bare URL each period, /fail with the reason when verify at start FAILs
// or the ledger refuses writes; nothing once the agent drains (a clean stop
// is not a failure: the check's grace says when silence is one).
//
// Not every heartbeat: hosted checks rate-limit, and each ping is an
// HTTPS request. Like the pings of services and jobs, a ping is never
// queued: a late ping is a wrong one.

// selfPinger sends the agent's pings, one at a time, in the background.
type selfPinger struct {
	a   *Agent
	url string
	mu  sync.Mutex // one ping at a time, in the order asked
	// failing is the reason the ledger refuses writes, "" when it takes
	// them: while it is set, each period's ping is /fail with it.
	failing string
}

// startSelfPing sends /start and runs the period until ctx ends.
func (a *Agent) startSelfPing(ctx context.Context) {
	url := a.config().Agent.Ping
	if url == "" {
		return
	}
	a.self = &selfPinger{a: a, url: url}
	if err := a.ledger.openErr; err != nil {
		a.self.failing = "svc-ctl cannot open its ledger: " + err.Error()
	}
	a.selfPing(notify.SignalStart, fmt.Sprintf("svc-ctl %s started (pid %d, %s)", a.o.Version, os.Getpid(), a.o.Mode))
	a.goSafe(ctx, "agent-ping", func(ctx context.Context) {
		every(ctx, a.config().Agent.PingEvery, func(context.Context) { a.periodicPing() })
	})
}

// periodicPing is each period's ping: success, or /fail while the ledger
// refuses writes.
func (a *Agent) periodicPing() {
	p := a.self
	p.mu.Lock()
	failing := p.failing
	p.mu.Unlock()
	if failing != "" {
		a.selfPing(notify.SignalFail, failing)
		return
	}
	cfg := a.config()
	a.selfPing(notify.SignalSuccess, fmt.Sprintf("svc-ctl %s: %d services, %d jobs", a.o.Version, len(cfg.Services), len(cfg.Jobs)))
}

// selfFail sends /fail with why now (verify at start, the ledger); ledger
// says the reason stays until the ledger takes writes again.
func (a *Agent) selfFail(why string, ledger bool) {
	if a.self == nil {
		return
	}
	if ledger {
		a.self.mu.Lock()
		a.self.failing = why
		a.self.mu.Unlock()
	}
	a.selfPing(notify.SignalFail, why)
}

// selfLedgerOK ends the ledger's /fail: the next period pings success.
func (a *Agent) selfLedgerOK() {
	if a.self == nil {
		return
	}
	a.self.mu.Lock()
	a.self.failing = ""
	a.self.mu.Unlock()
}

// selfPing sends one ping in the background, retried once, its result kept
// as the state of channel ping:agent (status, verify). None while draining.
func (a *Agent) selfPing(signal, body string) {
	p := a.self
	if p == nil || a.draining.Load() {
		return
	}
	body = a.logRed.Load().String(body)
	a.goOnce("agent-ping:"+signal, func() {
		p.mu.Lock()
		defer p.mu.Unlock()
		if a.draining.Load() {
			return
		}
		began := time.Now()
		var err error
		for attempt := range 2 {
			if attempt > 0 {
				time.Sleep(2 * time.Second)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			err = notify.Ping(ctx, p.url, signal, "", body)
			cancel()
			if err == nil || notify.IsPermanent(err) {
				break
			}
		}
		a.recordSelfPing(signal, time.Since(began), err)
	}, nil)
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
