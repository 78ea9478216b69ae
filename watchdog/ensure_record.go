package watchdog

import (
	"context"
	"encoding/json"
	"fmt"
	"runtime/debug"
	"time"

	"svcctl/runtrace"
	"svcctl/state"
)

// begin writes the run row as `running`, durably, before the cycle does
// anything (confirm, snapshot, stop, spawn), so a cycle that dies midway
// still leaves a row for the reaper to judge. Ensure calls it before it acts:
// a cycle that ends after its first look without acting (healthy, or held)
// is written once, whole, by finish. Calling it again does nothing.
func (c *cycle) begin(ctx context.Context) {
	if c.res.RunID > 0 || c.begun {
		return
	}
	c.begun = true
	id, err := c.s.Rec.Begin(context.WithoutCancel(ctx), runtrace.WatchdogID(c.svc.Name), c.req.Trigger, time.Time{}, c.res.StartedAt)
	if err != nil {
		c.recordFailed(err)
		return
	}
	c.res.RunID = id
	c.s.inflight.Store(id, c.svc.Name)
	c.log = c.log.With("run_id", id)
}

// finishOrPanic finishes the run; on a panic it finishes it as failed/panic
// with the stack, then re-raises so the L2 wrapper can log and go on.
func (c *cycle) finishOrPanic() {
	if p := recover(); p != nil {
		stack := string(debug.Stack())
		c.set(runtrace.OutcomeFailed, runtrace.ReasonPanic, fmt.Sprintf("panic in cycle: %v", p))
		c.res.Detail.Error = fmt.Sprintf("panic: %v\n%s", p, stack)
		c.finish()
		panic(p)
	}
	c.finish()
}

// finish writes the verdict everywhere it belongs: the run row (by id, only
// if still running), watchdog.last.json (which also keeps it when the ledger
// could not), and the log.
func (c *cycle) finish() {
	now := c.s.now()
	c.res.DurationMS = now.Sub(c.res.StartedAt).Milliseconds()
	if c.res.Detail.State == "" {
		c.res.Detail.State = c.st.State
		c.res.Detail.Failures = c.st.Failures
	}
	c.res.Message = c.redactor().String(c.res.Message)
	c.res.Detail.Message = c.res.Message
	c.res.Detail = redactDetail(c.redactor(), c.res.Detail)
	switch {
	case c.res.RunID != 0: // negative: provisional, the row waits in the recorder's queue
		defer c.s.inflight.Delete(c.res.RunID)
		err := c.s.Rec.Finish(context.Background(), c.res.RunID, c.res.Outcome, c.res.Reason, c.res.Detail, now)
		if err != nil {
			c.recordFailed(err)
		} else {
			c.s.recErr.set(nil)
		}
	case !c.begun:
		c.recordWhole(now)
	}
	detail, _ := json.Marshal(c.res.Detail) // plain data: it cannot fail
	last := &state.LastResult{Time: now, Trigger: c.res.Trigger, Outcome: c.res.Outcome, Reason: c.res.Reason,
		Message: c.res.Message, RunID: c.res.RunID, RecordError: c.res.RecordError, Detail: detail}
	c.s.saveLast(c.svc.Name, last, c.mustSync())
	c.logResult()
}

// recordWhole writes a cycle that never acted as one finished row. A healthy
// cycle that changed nothing is written lazily (no fsync: runtrace.RecordLazy):
// lost only to a power loss or an OS crash within about a second, and then
// the next cycle is the same evidence again. Every other verdict is durable.
func (c *cycle) recordWhole(now time.Time) {
	d, err := json.Marshal(c.res.Detail)
	if err != nil {
		c.recordFailed(err)
		return
	}
	r := runtrace.Run{JobID: runtrace.WatchdogID(c.svc.Name), Trigger: c.req.Trigger, StartedAt: c.res.StartedAt,
		FinishedAt: now, Outcome: c.res.Outcome, Reason: c.res.Reason, Detail: d}
	rec := c.s.Rec.Record
	if !c.mustSync() {
		rec = c.s.Rec.RecordLazy
	}
	id, err := rec(context.Background(), r)
	if err != nil {
		c.recordFailed(err)
		return
	}
	c.s.recErr.set(nil)
	c.res.RunID = id
}

// recordFailed keeps the recording error with the result. It is logged at
// error level once until recording works again, so a broken ledger is loud
// without flooding the log every cycle.
func (c *cycle) recordFailed(err error) {
	c.res.RecordError = err.Error()
	if c.s.recErr.set(err) {
		c.log.Error("ledger.write_failed", "err", err, "hint", "the cycle still runs; its result is kept in watchdog.last.json")
	} else {
		c.log.Debug("ledger.write_failed", "err", err)
	}
}

func (c *cycle) logResult() {
	args := []any{"trigger", c.res.Trigger, "outcome", c.res.Outcome, "reason", c.res.Reason,
		"duration_ms", c.res.DurationMS, "state", c.st.State, "message", c.res.Message}
	switch c.res.Outcome {
	case runtrace.OutcomeFailed:
		c.log.Warn("cycle.finished", args...)
	case runtrace.OutcomeOK:
		if c.res.Reason == runtrace.ReasonStarted {
			c.log.Info("cycle.finished", args...)
		} else {
			c.log.Debug("cycle.finished", args...)
		}
	default:
		c.log.Info("cycle.finished", args...)
	}
}
