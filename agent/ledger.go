package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"svcctl/agent/requests"
	"svcctl/notify"
	"svcctl/proc"
	"svcctl/runtrace"
	"svcctl/state"
	"svcctl/watchdog"
)

// The agent's recording path: every row goes through a runtrace.Queue, so a
// full disk (or a read-only, locked or damaged ledger) costs no row and no
// time: rows wait in memory and are written in order when the ledger takes
// writes again; what still waits at a stop goes to a spill file, which the
// next start imports. The condition is told once when it starts and once when
// it ends: one log line each, an `agent` event each, and agent.status, which
// the command line reads while the disk is full (the heartbeat row cannot be
// renewed then, agent.status can: it is rewritten in place).

// ledgerState is what the agent keeps about its ledger.
type ledgerState struct {
	queue   *runtrace.Queue       // nil when the ledger could not be opened
	openErr error                 // why it could not
	status  *state.StatusFile     // agent.status; nil when it could not be opened
	prev    *state.AgentReport    // the previous agent's last report, read before ours replaced it
	events  *notify.Deriver       // builds the ledger's `agent` events
	mu      sync.Mutex            // guards stop and reportErr
	stop    *runtrace.CloseResult // set by the stop
	stopped time.Time
	// reportFailed: agent.status could not be written (logged once).
	reportFailed bool
}

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
		a.ledger.openErr = err
		a.notifyDirect("the run_trace ledger is unavailable: runs are not recorded and events not queued until it is fixed", err.Error())
		return
	}
	a.store = st
	a.ledger.queue = runtrace.NewQueue(st, runtrace.QueueOptions{OnChange: a.ledgerChanged, Emit: a.deriver.Emit})
	a.funnel = notify.NewFunnel(st, a.deriver).Through(a.ledger.queue)
	a.rec = a.funnel
	a.sender = notify.NewSender(a.config(), st, notify.Options{Owner: a.instance, Log: a.log, OnDropped: a.recordDropped,
		OnUndelivered: a.recordUndelivered, Metrics: a.metrics.Points, Started: a.started})
	a.funnel.OnQueued(a.sender.Wake)
	a.pinger = notify.NewPinger(a.config(), st, a.log)
	a.pinger.Go = func(name string, fn func()) { a.goOnce(name, fn, nil) }
	a.funnel.Observe(a.metrics)
	a.funnel.Observe(a.pinger)
}

// openStatus reads the previous agent's report, then takes agent.status
// over (allocating it now, while the disk may still have room).
func (a *Agent) openStatus() {
	a.ledger.prev, _ = state.ReadAgentReport(a.paths)
	sf, err := state.OpenStatusFile(a.paths)
	if err != nil {
		a.log.Warn("agent_status.unavailable", "err", err,
			"hint", "if the disk fills, `svc-ctl status` cannot tell this agent from a stale one")
		return
	}
	a.ledger.status = sf
}

// ledgerHealth is the ledger's write health now.
func (a *Agent) ledgerHealth() runtrace.Health {
	if a.ledger.queue != nil {
		return a.ledger.queue.Health()
	}
	h := runtrace.Health{Dir: filepath.Dir(a.paths.DB()), FreeBytes: -1}
	if c, ok := runtrace.ClassifyFailure(a.ledger.openErr, h.Dir); ok {
		h.Cause = c
	} else {
		h.Cause = runtrace.CauseDamaged
	}
	if a.ledger.openErr != nil {
		h.Error = a.ledger.openErr.Error()
	}
	return h
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
			a.recordLost(h.Lost, "dropped by this agent: its queue of waiting rows was full", h.Cause, h.Since, h.RecoveredAt)
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
	if a.deriver == nil || a.ledger.queue == nil {
		return
	}
	ev := a.deriver.Agent(msg, detail, at)
	if _, err := a.ledger.queue.Emit(context.Background(), []runtrace.OutboxEvent{ev}, nil); err != nil {
		a.log.Warn("ledger.event_failed", "err", err)
	}
	if now {
		var e notify.Event
		if err := json.Unmarshal(ev.Payload, &e); err == nil {
			a.sendDirect(&e)
		}
	}
}

// recordLost writes the agent row that says rows were lost: the count, why,
// the cause and the time span. Written through the queue like any row.
func (a *Agent) recordLost(n int, why string, cause runtrace.Cause, from, to time.Time) {
	if a.ledger.queue == nil || n <= 0 {
		return
	}
	now := time.Now().UTC()
	detail := map[string]any{"lost_rows": n, "why": fmt.Sprintf("%d run_trace rows lost: %s", n, why),
		"cause": cause, "problem": cause.Words(), "from": from, "to": to}
	_, err := a.ledger.queue.RecordEmit(context.Background(), runtrace.Run{JobID: runtrace.AgentID, Trigger: runtrace.TriggerEvent,
		StartedAt: now, Outcome: runtrace.OutcomeFailed, Reason: runtrace.ReasonRowsLost, Detail: detailJSON(detail)}, a.deriver.Emit)
	if err != nil {
		a.log.Error("ledger.write_failed", "job", runtrace.AgentID, "err", err)
	}
	a.log.Error("ledger.rows_lost", "rows", n, "why", why, "cause", cause)
}

// importSpills writes what a previous agent (or a command) could not: their
// spill files, before anything of this agent (those rows are older), and
// records what they had already lost.
func (a *Agent) importSpills(ctx context.Context) {
	q := a.ledger.queue
	if q == nil {
		return
	}
	files, err := q.ImportSpills()
	if err != nil {
		a.log.Error("ledger.spill_import_failed", "err", err)
	}
	for _, f := range files {
		a.log.Warn("ledger.spill_imported", "path", f.Path, "rows", f.Rows, "lost", f.Lost, "unusable", f.Unusable,
			"cause", f.Cause, "by_pid", f.PID, "written_at", f.WrittenAt)
		if n := f.Lost + f.Unusable; n > 0 {
			a.recordLost(n, fmt.Sprintf("dropped by the process (pid %d) that spilled %s", f.PID, f.Path), f.Cause, f.Since, f.WrittenAt)
		}
	}
	if len(files) > 0 {
		q.Flush(ctx)
	}
}

// recordPreviousLoss records what the previous agent could neither write nor
// spill, as its report says: counted at its stop, or, when it ended without
// one while rows waited, what waited at its last report (at least that).
func (a *Agent) recordPreviousLoss() {
	p := a.ledger.prev
	if p == nil {
		return
	}
	switch {
	case !p.StoppedAt.IsZero() && p.Lost > 0:
		a.recordLost(p.Lost, fmt.Sprintf("the previous agent (pid %d) stopped with rows it could neither write nor spill", p.PID),
			p.Ledger.Cause, p.Ledger.Since, p.StoppedAt)
	case p.StoppedAt.IsZero() && !p.Ledger.Up && p.Ledger.Pending+p.Ledger.Lost > 0:
		a.recordLost(p.Ledger.Pending+p.Ledger.Lost, fmt.Sprintf("the previous agent (pid %d) ended without a clean stop "+
			"while rows waited to be written (at least this many, as of its last report)", p.PID), p.Ledger.Cause, p.Ledger.Since, p.UpdatedAt)
	}
}

// writeReport rewrites agent.status: this agent, now, and its ledger.
func (a *Agent) writeReport() {
	if a.ledger.status == nil {
		return
	}
	r := state.AgentReport{Instance: a.instance, PID: os.Getpid(), StartedAt: a.started, UpdatedAt: time.Now().UTC(),
		Ledger: a.ledgerHealth(), Config: a.loaded.Load(), Serves: requests.Serves(a.handlers()), Draining: a.draining.Load(), Boot: proc.BootID()}
	if a.sup != nil {
		r.Checked = a.sup.Checked()
	}
	a.ledger.mu.Lock()
	defer a.ledger.mu.Unlock()
	if s := a.ledger.stop; s != nil {
		r.StoppedAt, r.Spill, r.Lost, r.Ledger = a.ledger.stopped, s.SpillPath, s.Lost, s.Health
	}
	if err := a.ledger.status.Write(r); err != nil && !a.ledger.reportFailed {
		a.ledger.reportFailed = true
		a.log.Warn("agent_status.write_failed", "err", err)
	}
}

// closeLedger stops the queue: a last try, then what still waits goes to a
// spill file (or is counted as lost, in agent.status, for the next start).
func (a *Agent) closeLedger() {
	q := a.ledger.queue
	if q == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	res := q.Close(ctx)
	a.ledger.mu.Lock()
	a.ledger.stop, a.ledger.stopped = &res, time.Now().UTC()
	a.ledger.mu.Unlock()
	switch {
	case res.SpillPath != "":
		a.log.Warn("ledger.spilled", "path", res.SpillPath, "rows", res.Rows, "lost_before", res.Health.Lost,
			"cause", res.Health.Cause, "hint", "the next agent start writes them into the ledger")
	case res.Lost > 0:
		a.log.Error("ledger.rows_lost", "rows", res.Lost, "err", res.Err,
			"hint", "no spill location took them; the next agent start records the count")
	}
	a.writeReport()
}

// detailJSON marshals plain data (maps of strings, numbers and times).
func detailJSON(v any) json.RawMessage {
	b, _ := json.Marshal(v)
	return b
}
