package jobs

import (
	"context"
	"fmt"
	"io"
	"sync"
	"time"

	"svcctl/config"
	"svcctl/proc"
	"svcctl/runtrace"
	"svcctl/state"
)

// launch is one run of a job, however it came (a slot, a catch-up, a
// person's `svc-ctl run`).
type launch struct {
	ctx     context.Context // the run's: the agent's run context, or one a person may cancel
	slot    time.Time
	trigger runtrace.Trigger
	extra   map[string]any // added to the verdict's detail
	tee     io.Writer      // a copy of the output as it comes (a person's run)
	// began is told the run's id once its row is begun, before anything
	// runs; ended, its verdict once the row is finished.
	began func(runID int64)
	ended func(runID int64, res Result)
}

// busyRun says why a job could not run now: one of its runs is in flight.
type busyRun struct {
	runID int64  // the run in flight (0: unknown, another process runs it)
	why   string // the words for a person
}

func (b *busyRun) detail() map[string]any {
	d := map[string]any{"why": b.why}
	if b.runID != 0 {
		d["running_run_id"] = b.runID
	}
	return d
}

// launch starts one run of j unless one is in flight: in this agent (a slot
// or a person's run), or in another process (`svc-ctl run` when no agent
// ran, which holds the job's lock). The row is begun before anything runs
// and the run goes on its own goroutine under L2. It returns why not, or
// nil once the run is under way.
func (r *Runner) launch(j *config.Job, l launch) *busyRun {
	id := runtrace.JobID(j.Name)
	r.mu.Lock()
	if prev, busy := r.running[j.Name]; busy {
		r.mu.Unlock()
		return &busyRun{runID: prev, why: fmt.Sprintf("run #%d of %s is still going", prev, j.Name)}
	}
	lock, ok, err := state.TryLock(r.h.Paths.JobLock(j.Name))
	switch {
	case err != nil:
		r.h.Log.Warn("job.lock_failed", "job", j.Name, "err", err) // runs anyway: the agent's own map still holds overlap off
	case !ok:
		r.mu.Unlock()
		return &busyRun{why: "a run of " + j.Name + " started by 'svc-ctl run' in another process is still going"}
	}
	runID, err := r.h.Rec.Begin(context.Background(), id, l.trigger, l.slot, time.Now().UTC())
	if err != nil {
		r.h.Log.Warn("ledger.write_failed", "job", j.Name, "err", err)
	}
	r.running[j.Name] = runID
	r.mu.Unlock()
	if runID != 0 { // negative: provisional, the row waits in the ledger's queue
		r.inflight.Store(runID, id)
	}
	r.wg.Add(1)
	var once sync.Once
	done := func(res Result) {
		once.Do(func() {
			lock.Unlock()
			r.mu.Lock()
			delete(r.running, j.Name)
			r.mu.Unlock()
			r.inflight.Delete(runID)
			if l.ended != nil {
				l.ended(runID, res)
			}
			r.wg.Done()
		})
	}
	if l.began != nil {
		l.began(runID)
	}
	hooks := Hooks{Spawned: func(inst proc.Instance) { r.noteProcess(j, runID, inst) }, Tee: l.tee}
	r.h.GoOnce(id, func() {
		res := r.RunOne(l.ctx, r.h.Paths, j, r.h.Redactor(), hooks)
		for k, v := range l.extra {
			res.Detail[k] = v
		}
		r.finish(j, runID, res)
		done(res)
	}, func(p any, stack string) {
		// The run's row is still open: it is this panic's to finish, before
		// the job may run again (done) and before a drain may close the ledger.
		res := jobPanicked(p, stack, r.h.Redactor())
		r.finish(j, runID, res)
		done(res)
	})
	return nil
}

// noteProcess records the job's process in its running row (run_trace
// detail "process": the leader's identity, and its job object on Windows):
// if this agent dies before the run ends, the next agent's reaper proves it
// is still that process and stops its tree (agent/reaper), rather than leave
// it running beside the next slot's copy.
func (r *Runner) noteProcess(j *config.Job, runID int64, inst proc.Instance) {
	n, ok := r.h.Rec.(interface {
		Note(ctx context.Context, id int64, detail any) error
	})
	if !ok || runID == 0 {
		return
	}
	if err := n.Note(context.Background(), runID, map[string]any{"process": inst}); err != nil {
		r.h.Log.Warn("ledger.write_failed", "job", j.Name, "run_id", runID, "err", err)
	}
}

func (r *Runner) skip(id string, trigger runtrace.Trigger, slot time.Time, reason runtrace.Reason, detail map[string]any) {
	r.h.RecordSlot(id, trigger, slot, runtrace.OutcomeSkipped, reason, detail)
	r.h.Log.Info("job.skipped", "job", id, "reason", reason, "slot", slot)
}

func (r *Runner) finish(j *config.Job, runID int64, res Result) {
	if runID != 0 { // negative: provisional, the row waits in the ledger's queue
		err := r.h.Rec.Finish(context.Background(), runID, res.Outcome, res.Reason, res.Detail, time.Now().UTC())
		if err != nil {
			r.h.Log.Warn("ledger.write_failed", "job", j.Name, "run_id", runID, "err", err)
		}
	}
	lvl := "info"
	if res.Outcome == runtrace.OutcomeFailed {
		lvl = "warn"
	}
	args := []any{"job", j.Name, "run_id", runID, "outcome", res.Outcome, "reason", res.Reason, "detail", res.Detail}
	if lvl == "warn" {
		r.h.Log.Warn("job.finished", args...)
	} else {
		r.h.Log.Info("job.finished", args...)
	}
}
