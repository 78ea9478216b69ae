package agent

import (
	"context"
	"fmt"
	"strings"
	"time"

	"svcctl/internal/words"
)

// verifyAtStart runs the start checks once, a little after the agent
// started (its first cycles and the catch-up of jobs have had their turn),
// and tells people of every check that FAILs with one `agent` event: an
// agent that runs but is not installed to start after a reboot, a state dir
// or ledger it cannot trust or write, a given-up service, a channel that
// has been failing for a day — each would otherwise wait for someone to
// run `svc-ctl verify`, which nobody does until something is already lost.
func (a *Agent) verifyAtStart(ctx context.Context) {
	after := a.o.StartChecksAfter
	if after <= 0 {
		after = 30 * time.Second
	}
	t := time.NewTimer(after)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return
	case <-t.C:
	}
	fails := a.o.StartChecks(ctx)
	if ctx.Err() != nil {
		return
	}
	if len(fails) == 0 {
		a.log.Info("verify.passed")
		return
	}
	a.log.Warn("verify.failed", "checks", len(fails), "first", fails[0])
	names := make([]string, len(fails))
	for i, f := range fails {
		names[i], _, _ = strings.Cut(f, ":")
	}
	msg := fmt.Sprintf("verify at the agent's start: %s FAIL: %s ('svc-ctl verify' for the evidence)",
		words.Count(len(fails), "check", "checks"), strings.Join(names, ", "))
	a.agentEvent(msg, strings.Join(fails, "\n"))
	a.self.Fail(msg+"\n\n"+strings.Join(fails, "\n"), false)
}

// agentEvent queues an `agent` event in the outbox as ledgerEvent does (a
// full disk delays it, never loses it); without a ledger it is sent
// directly, once.
func (a *Agent) agentEvent(msg, detail string) {
	if a.deriver == nil || a.ledger.Queue == nil {
		a.notifyDirect(msg, detail)
		return
	}
	a.ledgerEvent(msg, detail, time.Now(), false)
}
