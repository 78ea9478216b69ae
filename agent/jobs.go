package agent

import (
	"context"
	"fmt"
	"io"
	"sync"
	"time"

	"svcctl/config"
	"svcctl/internal/redact"
	"svcctl/proc"
	"svcctl/runtrace"
	"svcctl/schedule"
	"svcctl/state"
)

// jobRunner runs the scheduled jobs: one loop per job that sleeps until the
// next slot, and one goroutine per run so an overlap is seen and recorded.
type jobRunner struct {
	a  *Agent
	wg sync.WaitGroup
	mu sync.Mutex // guards wake, loops and running
	// wake asks a job's loop for a catch-up (the host woke); loops stops
	// it (a reload).
	wake     map[string]chan struct{}
	loops    map[string]*loopHandle
	running  map[string]int64 // job -> run id in flight
	inflight sync.Map         // run id -> job
	// manual holds the runs a person asked for (`svc-ctl run`), by request
	// id: the cancel that ends one (its interrupt request).
	manual sync.Map // request id -> context.CancelCauseFunc
	// run runs one job run (runJob, its goroutines under L2); a test may
	// replace it (before the loops start) to plant a fault.
	run func(ctx context.Context, p state.Paths, j *config.Job, red *redact.Redactor, hooks runHooks) JobResult
}

func newJobRunner(a *Agent) *jobRunner {
	r := &jobRunner{a: a, wake: map[string]chan struct{}{}, loops: map[string]*loopHandle{}, running: map[string]int64{}}
	r.run = func(ctx context.Context, p state.Paths, j *config.Job, red *redact.Redactor, hooks runHooks) JobResult {
		return runJob(ctx, p, j, red, a.goOnce, hooks)
	}
	return r
}

func (a *Agent) startJobs() {
	cfg := a.config()
	for i := range cfg.Jobs {
		a.jobs.start(&cfg.Jobs[i])
	}
}

// start starts a job's loop (at agent start, or a reload that added or
// changed it).
func (r *jobRunner) start(j *config.Job) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.wake[j.Name] == nil {
		r.wake[j.Name] = make(chan struct{}, 1)
	}
	ctx, cancel := context.WithCancel(r.a.loopCtx)
	runCtx := r.a.runCtx
	done := r.a.goSafe(ctx, runtrace.JobID(j.Name), func(ctx context.Context) { r.loop(ctx, runCtx, j) })
	r.loops[j.Name] = &loopHandle{cancel: cancel, done: []<-chan struct{}{done}}
}

// stop stops a job's loop and waits for it; a run in progress goes on to
// its end (its row is finished as always). removed forgets its wake channel.
func (r *jobRunner) stop(name string, removed bool) {
	r.mu.Lock()
	h := r.loops[name]
	delete(r.loops, name)
	if removed {
		delete(r.wake, name)
	}
	r.mu.Unlock()
	if h != nil {
		h.stop()
	}
}

func (r *jobRunner) wakeChan(name string) chan struct{} {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.wake[name]
}

func (a *Agent) wakeJobs(context.Context) {
	if a.jobs == nil {
		return
	}
	a.jobs.mu.Lock()
	defer a.jobs.mu.Unlock()
	for _, ch := range a.jobs.wake {
		select {
		case ch <- struct{}{}:
		default:
		}
	}
}

func (a *Agent) waitJobs() {
	if a.jobs != nil {
		a.jobs.wg.Wait()
	}
}

func (a *Agent) jobsInFlight() map[int64]string {
	out := map[int64]string{}
	if a.jobs != nil {
		a.jobs.inflight.Range(func(k, v any) bool { out[k.(int64)] = v.(string); return true })
	}
	return out
}

// register records the job's registration; the first slot is computed from
// that moment (a job added at 00:05 for "30 9 * * *" first runs at 09:30).
func (r *jobRunner) register(ctx context.Context, j *config.Job) time.Time {
	now := time.Now().UTC()
	if r.a.store == nil {
		return now
	}
	at, err := r.a.store.Register(ctx, runtrace.JobID(j.Name), j.Registration(), now)
	if err != nil {
		r.a.log.Warn("job.register_failed", "job", j.Name, "err", err)
		return now
	}
	return at
}

func (r *jobRunner) loop(ctx, runCtx context.Context, j *config.Job) {
	log := r.a.log.With("job", j.Name)
	registered := r.register(ctx, j)
	s, err := j.Cron(registered)
	if err != nil {
		log.Error("job.schedule_invalid", "err", err)
		return
	}
	// judged is the instant up to which every slot has been fired or judged:
	// the next slot is the first after it, never the first after a later
	// "now" (a slot falling due between catchUp's look and the loop's would
	// be skipped with no row: found under Wine, where that look takes long).
	judged := r.catchUp(ctx, runCtx, j, s, registered)
	for {
		next := s.Next(judged)
		if next.IsZero() {
			log.Warn("job.never_fires")
			return
		}
		log.Debug("job.next", "slot", next)
		woke, ok := r.sleepUntil(ctx, j.Name, next)
		if !ok {
			return
		}
		if woke || time.Since(next) > max(j.Grace, time.Second) {
			// A wake, or this loop fell behind by more than grace (at least a
			// second: grace may be 0): what is owed is catch-up's to judge
			// (coalesced, or reported missing).
			judged = r.catchUp(ctx, runCtx, j, s, registered)
			continue
		}
		r.fire(runCtx, j, next, runtrace.TriggerSchedule, nil)
		judged = next
	}
}

// sleepUntil waits for the wall clock to reach t. It re-reads the wall clock
// every 30 s, because timers run on the monotonic clock, which stops while
// the host sleeps. woke is true when the sleep detector asked for a catch-up.
func (r *jobRunner) sleepUntil(ctx context.Context, name string, t time.Time) (woke, ok bool) {
	wake := r.wakeChan(name)
	for {
		d := time.Until(t)
		if d <= 0 {
			return false, true
		}
		timer := time.NewTimer(min(d, 30*time.Second))
		select {
		case <-ctx.Done():
			timer.Stop()
			return false, false
		case <-wake:
			timer.Stop()
			return true, true
		case <-timer.C:
		}
	}
}

// catchUp runs what the schedule owes at start or on wake. A slot that fell
// due moments ago (within grace) is the ordinary scheduled run, a little late,
// whatever catch_up says: stepping to Next(now) would skip it. Slots missed
// while the agent was down or the host asleep run once, coalesced into the
// newest, only with catch_up = true; otherwise `svc-ctl missing` reports them.
//
// It returns the instant up to which it judged the slots: the loop goes on
// from the first slot after it.
func (r *jobRunner) catchUp(ctx, runCtx context.Context, j *config.Job, s *schedule.Schedule, registered time.Time) time.Time {
	now := time.Now().UTC()
	if j.External || r.a.store == nil {
		return now
	}
	last := registered
	if slots, err := r.a.store.ScheduledSlots(ctx, runtrace.JobID(j.Name), registered, now); err == nil {
		for _, t := range slots {
			if t.After(last) {
				last = t
			}
		}
	}
	cu, ok := schedule.CatchUpSlot(s, last, now, j.Grace)
	if !ok {
		return now
	}
	if cu.OnTime {
		r.fire(runCtx, j, cu.Slot, runtrace.TriggerSchedule, nil)
		return now
	}
	if !j.CatchUp {
		r.a.log.Info("job.missed", "job", j.Name, "slots", cu.Coalesced, "newest", cu.Slot, "catch_up", false)
		return now
	}
	// Spread the catch-ups of many jobs over 30 s: twenty jobs must not all
	// start in the same second after a wake.
	select {
	case <-ctx.Done():
		return now
	case <-time.After(schedule.Stagger(j.Name, r.a.o.CatchUpSpread)):
	}
	r.a.log.Info("job.catch_up", "job", j.Name, "slot", cu.Slot, "coalesced", cu.Coalesced)
	r.fire(runCtx, j, cu.Slot, runtrace.TriggerCatchUp, map[string]any{"coalesced": cu.Coalesced})
	return now
}

// fire starts one run of a slot unless the job is paused, external, still
// running from before (overlap) or the agent is draining.
func (r *jobRunner) fire(ctx context.Context, j *config.Job, slot time.Time, trigger runtrace.Trigger, extra map[string]any) {
	id := runtrace.JobID(j.Name)
	if p, _ := state.ReadPause(r.a.paths.JobPaused(j.Name)); p.Active(time.Now()) {
		r.skip(id, trigger, slot, runtrace.ReasonPaused, map[string]any{"pause": p})
		return
	} else if p != nil {
		// A pause whose --for has passed ends here, as a service's does: its
		// sentinel is removed, so status and verify stop showing it.
		if err := state.RemovePause(r.a.paths.JobPaused(j.Name)); err != nil {
			r.a.log.Warn("pause.remove_failed", "job", j.Name, "err", err)
		} else {
			r.a.log.Info("pause.expired", "job", j.Name, "reason", p.Reason)
		}
	}
	if j.External {
		return // another scheduler runs it; `missing` checks its slots
	}
	if r.a.draining.Load() {
		r.skip(id, trigger, slot, runtrace.ReasonDraining, nil)
		return
	}
	if busy := r.launch(j, launch{ctx: ctx, slot: slot, trigger: trigger, extra: extra}); busy != nil {
		r.skip(id, trigger, slot, runtrace.ReasonOverlap, busy.detail())
	}
}

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
	ended func(runID int64, res JobResult)
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
func (r *jobRunner) launch(j *config.Job, l launch) *busyRun {
	id := runtrace.JobID(j.Name)
	r.mu.Lock()
	if prev, busy := r.running[j.Name]; busy {
		r.mu.Unlock()
		return &busyRun{runID: prev, why: fmt.Sprintf("run #%d of %s is still going", prev, j.Name)}
	}
	lock, ok, err := state.TryLock(r.a.paths.JobLock(j.Name))
	switch {
	case err != nil:
		r.a.log.Warn("job.lock_failed", "job", j.Name, "err", err) // runs anyway: the agent's own map still holds overlap off
	case !ok:
		r.mu.Unlock()
		return &busyRun{why: "a run of " + j.Name + " started by 'svc-ctl run' in another process is still going"}
	}
	runID, err := r.a.rec.Begin(context.Background(), id, l.trigger, l.slot, time.Now().UTC())
	if err != nil {
		r.a.log.Warn("ledger.write_failed", "job", j.Name, "err", err)
	}
	r.running[j.Name] = runID
	r.mu.Unlock()
	if runID != 0 { // negative: provisional, the row waits in the ledger's queue
		r.inflight.Store(runID, id)
	}
	r.wg.Add(1)
	var once sync.Once
	done := func(res JobResult) {
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
	hooks := runHooks{Spawned: func(inst proc.Instance) { r.noteProcess(j, runID, inst) }, Tee: l.tee}
	r.a.goOnce(id, func() {
		res := r.run(l.ctx, r.a.paths, j, r.a.sup.Redactor(), hooks)
		for k, v := range l.extra {
			res.Detail[k] = v
		}
		r.finish(j, runID, res)
		done(res)
	}, func(p any, stack string) {
		// The run's row is still open: it is this panic's to finish, before
		// the job may run again (done) and before a drain may close the ledger.
		res := jobPanicked(p, stack, r.a.sup.Redactor())
		r.finish(j, runID, res)
		done(res)
	})
	return nil
}

// noteProcess records the job's process in its running row (run_trace
// detail "process": the leader's identity, and its job object on Windows):
// if this agent dies before the run ends, the next agent's reaper proves it
// is still that process and stops its tree (reapOrphan), rather than leave
// it running beside the next slot's copy.
func (r *jobRunner) noteProcess(j *config.Job, runID int64, inst proc.Instance) {
	n, ok := r.a.rec.(interface {
		Note(ctx context.Context, id int64, detail any) error
	})
	if !ok || runID == 0 {
		return
	}
	if err := n.Note(context.Background(), runID, map[string]any{"process": inst}); err != nil {
		r.a.log.Warn("ledger.write_failed", "job", j.Name, "run_id", runID, "err", err)
	}
}

func (r *jobRunner) skip(id string, trigger runtrace.Trigger, slot time.Time, reason runtrace.Reason, detail map[string]any) {
	r.a.recordSlot(id, trigger, slot, runtrace.OutcomeSkipped, reason, detail)
	r.a.log.Info("job.skipped", "job", id, "reason", reason, "slot", slot)
}

func (r *jobRunner) finish(j *config.Job, runID int64, res JobResult) {
	if runID != 0 { // negative: provisional, the row waits in the ledger's queue
		err := r.a.rec.Finish(context.Background(), runID, res.Outcome, res.Reason, res.Detail, time.Now().UTC())
		if err != nil {
			r.a.log.Warn("ledger.write_failed", "job", j.Name, "run_id", runID, "err", err)
		}
	}
	lvl := "info"
	if res.Outcome == runtrace.OutcomeFailed {
		lvl = "warn"
	}
	args := []any{"job", j.Name, "run_id", runID, "outcome", res.Outcome, "reason", res.Reason, "detail", res.Detail}
	if lvl == "warn" {
		r.a.log.Warn("job.finished", args...)
	} else {
		r.a.log.Info("job.finished", args...)
	}
}
