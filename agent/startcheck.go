package agent

import (
	"context"
	"time"

	"svcctl/agent/startcheck"
)

// verifyAtStart runs the start checks (agent/startcheck) once; a FAIL is an
// `agent` event and the agent's own ping's /fail.
func (a *Agent) verifyAtStart(ctx context.Context) {
	startcheck.Run(ctx, a.o.StartChecksAfter, a.o.StartChecks, a.log, func(msg, detail string) {
		a.agentEvent(msg, detail)
		a.self.Fail(msg+"\n\n"+detail, false)
	})
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
