// Package ledger is the agent's recording path: every row goes through a
// runtrace.Queue, so a full disk (or a read-only, locked or damaged ledger) costs no row and no
// time: rows wait in memory and are written in order when the ledger takes
// writes again; what still waits at a stop goes to a spill file, which the
// next start imports. The condition is told once when it starts and once when
// it ends: one log line each, an `agent` event each, and agent.status, which
// the command line reads while the disk is full (the heartbeat row cannot be
// renewed then, agent.status can: it is rewritten in place).
//
// What this package must never do: drop a row it could keep (in memory,
// then in a spill file), write a row out of order, or stop supervision
// because the ledger refuses writes.
package ledger

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"path/filepath"
	"sync"
	"time"

	"svcctl/runtrace"
	"svcctl/state"
)

// Ledger is what the agent keeps about its ledger.
type Ledger struct {
	Paths   state.Paths
	Log     *slog.Logger
	Queue   *runtrace.Queue    // nil when the ledger could not be opened
	OpenErr error              // why it could not
	Status  *state.StatusFile  // agent.status; nil when it could not be opened
	Prev    *state.AgentReport // the previous agent's last report, read before ours replaced it
	// Emit derives the events of a row the queue writes (notify.Deriver.Emit).
	Emit runtrace.Emitter

	mu      sync.Mutex            // guards stop and reportFailed
	stop    *runtrace.CloseResult // set by the stop
	stopped time.Time
	// reportFailed: agent.status could not be written (logged once).
	reportFailed bool
}

// OpenStatus reads the previous agent's report, then takes agent.status
// over (allocating it now, while the disk may still have room).
func (l *Ledger) OpenStatus() {
	l.Prev, _ = state.ReadAgentReport(l.Paths)
	sf, err := state.OpenStatusFile(l.Paths)
	if err != nil {
		l.Log.Warn("agent_status.unavailable", "err", err,
			"hint", "if the disk fills, `svc-ctl status` cannot tell this agent from a stale one")
		return
	}
	l.Status = sf
}

// Health is the ledger's write health now.
func (l *Ledger) Health() runtrace.Health {
	if l.Queue != nil {
		return l.Queue.Health()
	}
	h := runtrace.Health{Dir: filepath.Dir(l.Paths.DB()), FreeBytes: -1}
	if c, ok := runtrace.ClassifyFailure(l.OpenErr, h.Dir); ok {
		h.Cause = c
	} else {
		h.Cause = runtrace.CauseDamaged
	}
	if l.OpenErr != nil {
		h.Error = l.OpenErr.Error()
	}
	return h
}

// RecordLost writes the agent row that says rows were lost: the count, why,
// the cause and the time span. Written through the queue like any row.
func (l *Ledger) RecordLost(n int, why string, cause runtrace.Cause, from, to time.Time) {
	if l.Queue == nil || n <= 0 {
		return
	}
	now := time.Now().UTC()
	detail := map[string]any{"lost_rows": n, "why": fmt.Sprintf("%d run_trace rows lost: %s", n, why),
		"cause": cause, "problem": cause.Words(), "from": from, "to": to}
	_, err := l.Queue.RecordEmit(context.Background(), runtrace.Run{JobID: runtrace.AgentID, Trigger: runtrace.TriggerEvent,
		StartedAt: now, Outcome: runtrace.OutcomeFailed, Reason: runtrace.ReasonRowsLost, Detail: detailJSON(detail)}, l.Emit)
	if err != nil {
		l.Log.Error("ledger.write_failed", "job", runtrace.AgentID, "err", err)
	}
	l.Log.Error("ledger.rows_lost", "rows", n, "why", why, "cause", cause)
}

// ImportSpills writes what a previous agent (or a command) could not: their
// spill files, before anything of this agent (those rows are older), and
// records what they had already lost.
func (l *Ledger) ImportSpills(ctx context.Context) {
	q := l.Queue
	if q == nil {
		return
	}
	files, err := q.ImportSpills()
	if err != nil {
		l.Log.Error("ledger.spill_import_failed", "err", err)
	}
	for _, f := range files {
		l.Log.Warn("ledger.spill_imported", "path", f.Path, "rows", f.Rows, "lost", f.Lost, "unusable", f.Unusable,
			"cause", f.Cause, "by_pid", f.PID, "written_at", f.WrittenAt)
		if n := f.Lost + f.Unusable; n > 0 {
			l.RecordLost(n, fmt.Sprintf("dropped by the process (pid %d) that spilled %s", f.PID, f.Path), f.Cause, f.Since, f.WrittenAt)
		}
	}
	if len(files) > 0 {
		q.Flush(ctx)
	}
}

// RecordPreviousLoss records what the previous agent could neither write nor
// spill, as its report says: counted at its stop, or, when it ended without
// one while rows waited, what waited at its last report (at least that).
func (l *Ledger) RecordPreviousLoss() {
	p := l.Prev
	if p == nil {
		return
	}
	switch {
	case !p.StoppedAt.IsZero() && p.Lost > 0:
		l.RecordLost(p.Lost, fmt.Sprintf("the previous agent (pid %d) stopped with rows it could neither write nor spill", p.PID),
			p.Ledger.Cause, p.Ledger.Since, p.StoppedAt)
	case p.StoppedAt.IsZero() && !p.Ledger.Up && p.Ledger.Pending+p.Ledger.Lost > 0:
		l.RecordLost(p.Ledger.Pending+p.Ledger.Lost, fmt.Sprintf("the previous agent (pid %d) ended without a clean stop "+
			"while rows waited to be written (at least this many, as of its last report)", p.PID), p.Ledger.Cause, p.Ledger.Since, p.UpdatedAt)
	}
}

// WriteReport rewrites agent.status with r (this agent, now), its ledger's
// health and, once the queue is closed, what its stop left; a failure is
// logged once.
func (l *Ledger) WriteReport(r state.AgentReport) {
	if l.Status == nil {
		return
	}
	r.Ledger = l.Health()
	l.mu.Lock()
	defer l.mu.Unlock()
	if s := l.stop; s != nil {
		r.StoppedAt, r.Spill, r.Lost, r.Ledger = l.stopped, s.SpillPath, s.Lost, s.Health
	}
	if err := l.Status.Write(r); err != nil && !l.reportFailed {
		l.reportFailed = true
		l.Log.Warn("agent_status.write_failed", "err", err)
	}
}

// Close stops the queue: a last try, then what still waits goes to a
// spill file (or is counted as lost, in agent.status, for the next start).
func (l *Ledger) Close() {
	q := l.Queue
	if q == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	res := q.Close(ctx)
	l.mu.Lock()
	l.stop, l.stopped = &res, time.Now().UTC()
	l.mu.Unlock()
	switch {
	case res.SpillPath != "":
		l.Log.Warn("ledger.spilled", "path", res.SpillPath, "rows", res.Rows, "lost_before", res.Health.Lost,
			"cause", res.Health.Cause, "hint", "the next agent start writes them into the ledger")
	case res.Lost > 0:
		l.Log.Error("ledger.rows_lost", "rows", res.Lost, "err", res.Err,
			"hint", "no spill location took them; the next agent start records the count")
	}
}

// detailJSON marshals plain data (maps of strings, numbers and times).
func detailJSON(v any) json.RawMessage {
	b, _ := json.Marshal(v)
	return b
}
