package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"time"

	"svcctl/agent/requests"
	"svcctl/notify"
	"svcctl/proc"
	"svcctl/runtrace"
	"svcctl/state"
	"svcctl/watchdog"
)

// openLedger opens run_trace behind the queue, and the notification funnel
// in front of it: every run result passes the funnel, which writes through
// the queue (a row the disk refuses waits there; the events its verdict
// raises are derived when it is finally written). A ledger that cannot be
// opened (damaged, newer schema) does not stop supervision: it is logged
// loudly once, every result is kept in watchdog.last.json, and people are
// told at once (the outbox is in the ledger, so that one message goes out
// directly, at most once).
func (a *Agent) openLedger() {
	host, _ := os.Hostname()
	a.deriver = notify.NewDeriver(a.config(), host, time.Local)
	st, err := runtrace.Open(a.paths.DB(), runtrace.Options{Logger: a.log, Instance: a.instance, Boot: proc.BootID()})
	if err != nil {
		a.log.Error("ledger.unavailable", "err", err, "path", a.paths.DB(),
			"hint", "supervision goes on; results are kept in watchdog.last.json; move the file aside to start a new ledger")
		a.rec = watchdog.NopRecorder{Why: err}
		a.ledger.OpenErr = err
		a.notifyDirect("the run_trace ledger is unavailable: runs are not recorded and events not queued until it is fixed", err.Error())
		return
	}
	a.store = st
	a.ledger.Emit = a.deriver.Emit
	a.ledger.Queue = runtrace.NewQueue(st, runtrace.QueueOptions{OnChange: a.ledgerChanged, Emit: a.deriver.Emit})
	a.funnel = notify.NewFunnel(st, a.deriver).Through(a.ledger.Queue)
	a.rec = a.funnel
	a.sender = notify.NewSender(a.config(), st, notify.Options{Owner: a.instance, Log: a.log, OnDropped: a.recordDropped,
		OnUndelivered: a.recordUndelivered, Metrics: a.metrics.Points, Started: a.started})
	a.funnel.OnQueued(a.sender.Wake)
	a.pinger = notify.NewPinger(a.config(), st, a.log)
	a.pinger.Go = func(name string, fn func()) { a.net.GoOnce(name, fn, nil) }
	a.funnel.Observe(a.metrics)
	a.funnel.Observe(a.pinger)
}

// ledgerChanged is the queue's OnChange: the condition starts or ends. It
// runs in whichever goroutine's write found out, outside the queue's locks;
// it writes only through the queue (never a.record, whose lock that
// goroutine may hold).
func (a *Agent) ledgerChanged(h runtrace.Health) {
	if !h.Up {
		a.log.Error("ledger.write_failing", "cause", h.Cause, "problem", h.Cause.Words(), "dir", h.Dir,
			"free_bytes", h.FreeBytes, "err", h.Error,
			"hint", "supervision goes on; rows wait in memory (up to 10,000) and are written in order, with their times, "+
				"as soon as the ledger takes writes: "+h.Cause.Fix())
		a.ledgerEvent("cannot write its ledger: "+h.Summary(), h.Cause.Fix(), h.Since, true)
		a.self.Fail("svc-ctl cannot write its ledger: "+h.Summary()+": "+h.Cause.Fix(), true)
	} else {
		a.self.Failing("")
		a.log.Warn("ledger.recovered", "cause", h.Cause, "since", h.Since, "down_ms", h.RecoveredAt.Sub(h.Since).Milliseconds(),
			"written_late", h.WrittenLate, "lost", h.Lost)
		a.ledgerEvent(fmt.Sprintf("writes its ledger again after %s of %s: %d rows written late, %d lost",
			h.RecoveredAt.Sub(h.Since).Round(time.Second), h.Cause.Words(), h.WrittenLate, h.Lost), "", h.RecoveredAt, false)
		if h.Lost > 0 {
			a.ledger.RecordLost(h.Lost, "dropped by this agent: its queue of waiting rows was full", h.Cause, h.Since, h.RecoveredAt)
		}
	}
	a.writeReport()
}

// ledgerEvent tells people of the ledger's condition with an `agent` event,
// queued through the queue: written into the outbox in order with the rows,
// so it is never lost, and delivered by the sender once the ledger takes
// writes. While writes fail the outbox cannot deliver anything, so the event
// (now=true) is also sent at once, directly, with the same id: a receiver
// that honours the Idempotency-Key drops the queued copy when it comes.
func (a *Agent) ledgerEvent(msg, detail string, at time.Time, now bool) {
	if a.deriver == nil || a.ledger.Queue == nil {
		return
	}
	ev := a.deriver.Agent(msg, detail, at)
	if _, err := a.ledger.Queue.Emit(context.Background(), []runtrace.OutboxEvent{ev}, nil); err != nil {
		a.log.Warn("ledger.event_failed", "err", err)
	}
	if now {
		var e notify.Event
		if err := json.Unmarshal(ev.Payload, &e); err == nil {
			a.sendDirect(&e)
		}
	}
}

// writeReport rewrites agent.status: this agent, now, and its ledger.
func (a *Agent) writeReport() {
	r := state.AgentReport{Instance: a.instance, PID: os.Getpid(), StartedAt: a.started, UpdatedAt: time.Now().UTC(),
		Config: a.loaded.Load(), Serves: requests.Serves(a.handlers()), Draining: a.draining.Load(), Boot: proc.BootID()}
	if a.sup != nil {
		r.Checked = a.sup.Checked()
	}
	a.ledger.WriteReport(r)
}

// closeLedger stops the queue (agent/ledger) and says what its stop left in
// agent.status.
func (a *Agent) closeLedger() {
	a.ledger.Close()
	a.writeReport()
}
