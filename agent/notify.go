package agent

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"svcctl/notify"
	"svcctl/runtrace"
)

// missingEvery is the period of the dead man's switch for jobs.
const missingEvery = time.Minute

// startNotify runs the sender (one loop per [[notify]] channel) and the
// job.missing check, both under the L2 net. Without a ledger there is no
// outbox: nothing to start.
func (a *Agent) startNotify(loopCtx context.Context) {
	if a.sender == nil {
		return
	}
	for _, l := range a.sender.Loops(loopCtx) {
		a.net.GoSafe(loopCtx, l.Name, l.Run)
	}
	// Even with no job yet: a reload may add some.
	a.net.GoSafe(loopCtx, "missing-check", a.missingLoop)
}

// missingLoop raises job.missing for slots past their grace with no row,
// every minute (and at once after a start: what was missed while the agent
// was down is news).
func (a *Agent) missingLoop(ctx context.Context) {
	t := time.NewTicker(a.missingEvery)
	defer t.Stop()
	for {
		// The jobs of the config in force (a reload may have changed them).
		check := notify.NewMissingCheck(a.config(), a.store, a.deriver)
		n, err := check.Check(ctx, time.Now())
		if err != nil && ctx.Err() == nil {
			a.log.Warn("missing_check.failed", "err", err)
		}
		if n > 0 {
			a.log.Warn("job.missing", "events", n)
			a.sender.Wake()
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// waitPings gives the pings of the last runs a moment to go out on stop.
func (a *Agent) waitPings() {
	if a.pinger != nil && !a.pinger.WaitFor(5*time.Second) {
		a.log.Warn("ping.unfinished", "hint", "some pings were still in flight when the agent stopped")
	}
}

// recordDropped records, as a failed `agent` row (which raises an agent
// event), that events were dropped undelivered after their retention.
func (a *Agent) recordDropped(d runtrace.Dropped) {
	total := 0
	var per []string
	for _, ch := range slices.Sorted(maps.Keys(d.Undelivered)) {
		total += d.Undelivered[ch]
		per = append(per, fmt.Sprintf("%s: %d", ch, d.Undelivered[ch]))
	}
	a.record(runtrace.AgentID, runtrace.TriggerSchedule, runtrace.OutcomeFailed, runtrace.ReasonUndelivered, map[string]any{
		"message":     fmt.Sprintf("%d undelivered deliveries older than %s dropped (%s)", total, "7d", strings.Join(per, ", ")),
		"undelivered": d.Undelivered, "events_dropped": d.Events,
	})
}

// recordUndelivered records, as a failed `agent` row, that an otlp channel
// gave up on events or rows (its backlog bound, rows pruned before it could
// send them, a refusal): the count and why.
func (a *Agent) recordUndelivered(u notify.Undelivered) {
	a.record(runtrace.AgentID, runtrace.TriggerSchedule, runtrace.OutcomeFailed, runtrace.ReasonUndelivered, map[string]any{
		"message": fmt.Sprintf("%d %s not delivered through channel %s: %s", u.Count, u.What, u.Channel, u.Why),
		"channel": u.Channel, "undelivered": u.Count, "what": u.What,
	})
}

// notifyDirect tells people about the agent itself when there is no outbox
// to queue it in: at most once, in the background, results logged.
func (a *Agent) notifyDirect(msg, detail string) {
	if len(a.config().Notify) == 0 {
		return
	}
	e := a.deriver.AgentEvent(msg, detail, time.Now())
	a.sendDirect(&e)
}

// sendDirect sends e through every channel that wants it, now, without the
// outbox.
func (a *Agent) sendDirect(e *notify.Event) {
	if len(a.config().Notify) == 0 {
		return
	}
	a.net.GoOnce("notify:direct", func() {
		for _, at := range notify.SendDirect(context.Background(), a.config(), e) {
			if at.Err != nil {
				a.log.Warn("notify.direct_failed", "channel", at.Channel, "err", at.Err)
			} else {
				a.log.Info("notify.direct_delivered", "channel", at.Channel, "latency_ms", at.Latency.Milliseconds())
			}
		}
	}, nil)
}
