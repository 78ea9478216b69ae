// Package selfping is the agent's own dead man's switch ([agent] ping): a
// healthchecks-style check that hears from the agent every ping_every and
// raises its own alarm when it stops hearing — the host off, asleep past its
// grace, the agent gone — the one failure no agent can report itself. /start
// at the agent's start and when the host wakes (the server times the gap),
// the bare URL each period, /fail with the reason when verify at start FAILs
// or the ledger refuses writes; nothing once the agent drains (a clean stop
// is not a failure: the check's grace says when silence is one).
//
// Not every heartbeat: hosted checks rate-limit, and each ping is an HTTPS
// request. Like the pings of services and jobs, a ping is never queued: a
// late ping is a wrong one.
//
// What this package must never do: send two pings at once or out of the
// order asked, ping once the agent drains, send a body before it is
// redacted, or start a goroutine outside the agent's L2 net (Pinger.Go).
package selfping

import (
	"context"
	"sync"
	"time"

	"svcctl/notify"
)

// Pinger sends the agent's pings, one at a time, in the background. A nil
// Pinger (no [agent] ping) sends nothing.
type Pinger struct {
	URL string
	// Go runs fn in a goroutine under the agent's L2 net.
	Go func(name string, fn func())
	// Draining is true once the agent stops: no ping goes out then.
	Draining func() bool
	// Redact is the redactor in force, applied to each body.
	Redact func(string) string
	// Record is told of each ping's result (the ledger's channel row).
	Record func(signal string, latency time.Duration, err error)

	mu sync.Mutex // one ping at a time, in the order asked
	// failing is the reason the ledger refuses writes, "" when it takes
	// them: while it is set, each period's ping is /fail with it.
	failing string
}

// Periodic is the ping of a period: /fail with the ledger's failure while it
// refuses writes, else the bare URL with ok (what the agent supervises).
func (p *Pinger) Periodic(ok string) {
	if p == nil {
		return
	}
	p.mu.Lock()
	failing := p.failing
	p.mu.Unlock()
	if failing != "" {
		p.Ping(notify.SignalFail, failing)
		return
	}
	p.Ping(notify.SignalSuccess, ok)
}

// Fail sends /fail with why; ledger says the failure is the ledger's, which
// each period's ping then repeats until Failing("").
func (p *Pinger) Fail(why string, ledger bool) {
	if p == nil {
		return
	}
	if ledger {
		p.Failing(why)
	}
	p.Ping(notify.SignalFail, why)
}

// Failing sets the ledger's failure that each period's ping sends (/fail),
// without a ping now; "" says the ledger takes writes again.
func (p *Pinger) Failing(why string) {
	if p == nil {
		return
	}
	p.mu.Lock()
	p.failing = why
	p.mu.Unlock()
}

// Ping sends signal with body in the background: one attempt and, unless the
// answer is permanent, one more 2 s later.
func (p *Pinger) Ping(signal, body string) {
	if p == nil || p.Draining() {
		return
	}
	body = p.Redact(body)
	p.Go("agent-ping:"+signal, func() {
		p.mu.Lock()
		defer p.mu.Unlock()
		if p.Draining() {
			return
		}
		began := time.Now()
		var err error
		for attempt := range 2 {
			if attempt > 0 {
				time.Sleep(2 * time.Second)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			err = notify.Ping(ctx, p.URL, signal, "", body)
			cancel()
			if err == nil || notify.IsPermanent(err) {
				break
			}
		}
		p.Record(signal, time.Since(began), err)
	})
}
