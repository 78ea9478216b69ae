package runtrace

import (
	"context"
	"encoding/json"
	"fmt"
	"time"
)

// pushLocked appends o, dropping the oldest waiting row write past Max
// (never the one being written).
func (q *Queue) pushLocked(o *op) {
	q.ops = append(q.ops, o)
	if o.row() {
		q.rows++
	}
	for q.rows > q.o.Max {
		i := 0
		for i < len(q.ops) && (q.ops[i].inflight || !q.ops[i].row()) {
			i++
		}
		if i == len(q.ops) {
			return
		}
		q.dropLocked(q.ops[i])
		q.rows--
		if i == 0 {
			q.ops[0] = nil
			q.ops = q.ops[1:]
		} else {
			q.ops = append(q.ops[:i], q.ops[i+1:]...)
		}
	}
}

func (q *Queue) dropLocked(o *op) {
	q.h.Lost++
	q.h.TotalLost++
	if o.Kind == opBegin {
		delete(q.begun, o.Prov)
		q.dropped[o.Prov] = true
	}
}

// failLocked records a failed write; down is true when it starts the
// condition (the caller then calls changed outside the lock).
func (q *Queue) failLocked(cause Cause, err error) (down bool) {
	select {
	case q.waits <- struct{}{}: // Run starts retrying
	default:
	}
	down = q.h.Up
	if down {
		q.h.Up, q.h.Since, q.h.WrittenLate, q.h.Lost, q.h.RecoveredAt = false, q.o.Now().UTC(), 0, 0, time.Time{}
	}
	q.h.Cause, q.h.Error = cause, shortError(err)
	q.h.FreeBytes = freeBytes(q.dir)
	return down
}

func shortError(err error) string {
	s := err.Error()
	if len(s) > 300 {
		s = s[:300] + "…"
	}
	return s
}

// changed tells OnChange of a transition.
func (q *Queue) changed(transition bool) {
	if !transition || q.o.OnChange == nil {
		return
	}
	q.o.OnChange(q.Health())
}

// Run retries the database every Retry while writes wait, until ctx ends.
// While nothing waits it sleeps without a timer (an idle agent's wake-ups
// are its CPU): a failed write (failLocked) or Kick wakes it.
func (q *Queue) Run(ctx context.Context) {
	t := time.NewTimer(q.o.Retry)
	t.Stop()
	defer t.Stop()
	for {
		var retry <-chan time.Time
		if q.waiting() {
			t.Reset(q.o.Retry) // (Go 1.23+: no stale tick survives a Reset)
			retry = t.C
		}
		select {
		case <-ctx.Done():
			return
		case <-q.waits:
			continue // writes wait now: retry in Retry, not at once
		case <-retry:
		case <-q.kick:
		}
		if q.waiting() {
			q.Flush(ctx)
		}
	}
}

// waiting reports whether writes wait for the database.
func (q *Queue) waiting() bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.deferLocked() || q.beat != nil
}

// Kick asks Run to try now.
func (q *Queue) Kick() {
	select {
	case q.kick <- struct{}{}:
	default:
	}
}

// Flush writes what waits, in order, until it is all written (true) or a
// write fails again (false).
func (q *Queue) Flush(ctx context.Context) bool {
	q.flushMu.Lock()
	defer q.flushMu.Unlock()
	for {
		q.mu.Lock()
		if len(q.ops) == 0 {
			beat := q.beat
			if beat == nil {
				up := q.recoverLocked()
				q.mu.Unlock()
				q.changed(up)
				return true
			}
			q.mu.Unlock()
			err := q.st.Beat(ctx, *beat)
			q.mu.Lock()
			if err != nil && ctx.Err() != nil {
				q.mu.Unlock()
				return false
			}
			if cause, failed := q.st.WriteFailure(err); failed {
				q.failLocked(cause, err)
				q.mu.Unlock()
				return false
			}
			if q.beat == beat {
				q.beat = nil
			}
			q.mu.Unlock()
			continue
		}
		o := q.ops[0]
		o.inflight = true
		ref := o.Ref
		if ref < 0 {
			if real, ok := q.written[ref]; ok {
				ref = real
			}
		}
		q.mu.Unlock()
		id, err := q.apply(ctx, o, ref)
		q.mu.Lock()
		o.inflight = false
		if err != nil && ctx.Err() != nil {
			q.mu.Unlock()
			return false // cut short (a stop): the write stays first in line
		}
		if cause, failed := q.st.WriteFailure(err); failed {
			q.failLocked(cause, err)
			q.mu.Unlock()
			return false
		}
		q.doneLocked(o, ref, id, err)
		q.mu.Unlock()
	}
}

// apply writes one waiting op; ref is a finish's row id, resolved.
func (q *Queue) apply(ctx context.Context, o *op, ref int64) (int64, error) {
	switch o.Kind {
	case opBegin:
		instance := q.st.inst
		if o.Instance != "" {
			instance = o.Instance // imported from a spill: the instance that began it
		}
		return q.st.beginAs(ctx, instance, o.Boot, o.Run.JobID, o.Run.Trigger, o.Run.ScheduledAt, o.Run.StartedAt, o.Run.Detail)
	case opRecord:
		return q.st.recordAs(ctx, *o.Run, o.Boot, o.emit)
	case opFinish:
		if ref < 0 {
			return 0, fmt.Errorf("finish run %d: %w (its begin was never written)", ref, ErrNotFound)
		}
		return 0, q.st.FinishEmit(ctx, ref, o.Outcome, o.Reason, o.Detail, o.FinishedAt, o.emit)
	case opNote:
		if ref < 0 {
			return 0, fmt.Errorf("note run %d: %w (its begin was never written)", ref, ErrNotFound)
		}
		return 0, q.st.Note(ctx, ref, o.Detail)
	case opEvents:
		_, err := q.st.Emit(ctx, o.Events, o.Marks)
		return 0, err
	case opDeleteBeat:
		return 0, q.st.DeleteHeartbeat(ctx, o.Instance)
	}
	return 0, fmt.Errorf("unknown queued write %q", o.Kind)
}

// doneLocked removes the head op after its write (or its refusal: a verdict
// the ledger already has is kept, and Store logged it).
func (q *Queue) doneLocked(o *op, ref, id int64, err error) {
	if len(q.ops) > 0 && q.ops[0] == o {
		q.ops[0] = nil
		q.ops = q.ops[1:]
		if o.row() {
			q.rows--
		}
	}
	if len(q.ops) == 0 {
		q.ops = nil // let the backing array go
	}
	switch o.Kind {
	case opBegin:
		delete(q.begun, o.Prov)
		if err == nil {
			q.written[o.Prov] = id // what waits behind it (a note, a verdict) finds its row here
		} else {
			q.dropped[o.Prov] = true
		}
	case opFinish:
		if o.Ref < 0 {
			delete(q.written, o.Ref)
		}
	}
	if err != nil {
		q.st.log.Warn("runtrace.queued_write_refused", "op", o.Kind, "ref", ref, "err", err)
		return
	}
	if o.row() {
		q.h.WrittenLate++
		q.h.TotalWrittenLate++
	}
}

// recoverLocked marks the ledger up once nothing waits; true on the
// transition.
func (q *Queue) recoverLocked() bool {
	if q.h.Up {
		return false
	}
	q.h.Up, q.h.RecoveredAt = true, q.o.Now().UTC()
	q.h.FreeBytes = freeBytes(q.dir)
	return true
}

func rawDetail(d any) json.RawMessage {
	if s, ok := d.(string); ok {
		return json.RawMessage(s)
	}
	return nil
}
