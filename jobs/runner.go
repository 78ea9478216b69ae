package jobs

import (
	"context"
	"sync"
	"time"

	"svcctl/config"
	"svcctl/internal/redact"
	"svcctl/runtrace"
	"svcctl/schedule"
	"svcctl/state"
)

// Runner runs the scheduled jobs: one loop per job that sleeps until the
// next slot, and one goroutine per run so an overlap is seen and recorded.
type Runner struct {
	h  Host
	wg sync.WaitGroup
	// loopCtx and runCtx are the agent's (StartAll): a job's loop ends with
	// the first, its runs with the second.
	loopCtx, runCtx context.Context
	mu              sync.Mutex // guards wake, loops and running
	// wake asks a job's loop for a catch-up (the host woke); loops stops
	// it (a reload).
	wake     map[string]chan struct{}
	loops    map[string]*jobLoop
	running  map[string]int64 // job -> run id in flight
	inflight sync.Map         // run id -> job
	// manual holds the runs a person asked for (`svc-ctl run`), by request
	// id: the cancel that ends one (its interrupt request).
	manual sync.Map // request id -> context.CancelCauseFunc
	// RunOne runs one job run (its goroutines under L2); a test may
	// replace it (before the loops start) to plant a fault.
	RunOne func(ctx context.Context, p state.Paths, j *config.Job, red *redact.Redactor, hooks Hooks) Result
}

// New returns the runner of the jobs of the agent h describes; StartAll
// starts their loops.
func New(h Host) *Runner {
	r := &Runner{h: h, wake: map[string]chan struct{}{}, loops: map[string]*jobLoop{}, running: map[string]int64{}}
	r.RunOne = func(ctx context.Context, p state.Paths, j *config.Job, red *redact.Redactor, hooks Hooks) Result {
		return runJob(ctx, p, j, red, h.GoOnce, hooks)
	}
	return r
}

// jobLoop is a running job loop: cancel stops it, done is closed when it
// has ended.
type jobLoop struct {
	cancel context.CancelFunc
	done   <-chan struct{}
}

// Bind gives the runner the agent's contexts, before any loop starts or a
// person's run comes: a job's loop ends with loopCtx, a run with runCtx (the
// agent's drain deadline).
func (r *Runner) Bind(loopCtx, runCtx context.Context) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.loopCtx, r.runCtx = loopCtx, runCtx
}

// StartAll starts the loops of jobs.
func (r *Runner) StartAll(jobs []config.Job) {
	for i := range jobs {
		r.Start(&jobs[i])
	}
}

// Start starts a job's loop (at agent start, or a reload that added or
// changed it).
func (r *Runner) Start(j *config.Job) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.wake[j.Name] == nil {
		r.wake[j.Name] = make(chan struct{}, 1)
	}
	ctx, cancel := context.WithCancel(r.loopCtx)
	runCtx := r.runCtx
	done := r.h.GoSafe(ctx, runtrace.JobID(j.Name), func(ctx context.Context) { r.loop(ctx, runCtx, j) })
	r.loops[j.Name] = &jobLoop{cancel: cancel, done: done}
}

// Stop stops a job's loop and waits for it; a run in progress goes on to
// its end (its row is finished as always). removed forgets its wake channel.
func (r *Runner) Stop(name string, removed bool) {
	r.mu.Lock()
	h := r.loops[name]
	delete(r.loops, name)
	if removed {
		delete(r.wake, name)
	}
	r.mu.Unlock()
	if h != nil {
		h.cancel()
		<-h.done
	}
}

func (r *Runner) wakeChan(name string) chan struct{} {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.wake[name]
}

// Wake asks every job's loop for a catch-up (the host woke).
func (r *Runner) Wake() {
	if r == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, ch := range r.wake {
		select {
		case ch <- struct{}{}:
		default:
		}
	}
}

// Wait waits for every run in flight to end.
func (r *Runner) Wait() {
	if r != nil {
		r.wg.Wait()
	}
}

// InFlight are the runs in flight: run id -> job id.
func (r *Runner) InFlight() map[int64]string {
	out := map[int64]string{}
	if r != nil {
		r.inflight.Range(func(k, v any) bool { out[k.(int64)] = v.(string); return true })
	}
	return out
}

// register records the job's registration; the first slot is computed from
// that moment (a job added at 00:05 for "30 9 * * *" first runs at 09:30).
func (r *Runner) register(ctx context.Context, j *config.Job) time.Time {
	now := time.Now().UTC()
	if r.h.Store == nil {
		return now
	}
	at, err := r.h.Store.Register(ctx, runtrace.JobID(j.Name), j.Registration(), now)
	if err != nil {
		r.h.Log.Warn("job.register_failed", "job", j.Name, "err", err)
		return now
	}
	return at
}

func (r *Runner) loop(ctx, runCtx context.Context, j *config.Job) {
	log := r.h.Log.With("job", j.Name)
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
func (r *Runner) sleepUntil(ctx context.Context, name string, t time.Time) (woke, ok bool) {
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
func (r *Runner) catchUp(ctx, runCtx context.Context, j *config.Job, s *schedule.Schedule, registered time.Time) time.Time {
	now := time.Now().UTC()
	if j.External || r.h.Store == nil {
		return now
	}
	last := registered
	if slots, err := r.h.Store.ScheduledSlots(ctx, runtrace.JobID(j.Name), registered, now); err == nil {
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
		r.h.Log.Info("job.missed", "job", j.Name, "slots", cu.Coalesced, "newest", cu.Slot, "catch_up", false)
		return now
	}
	// Spread the catch-ups of many jobs over 30 s: twenty jobs must not all
	// start in the same second after a wake.
	select {
	case <-ctx.Done():
		return now
	case <-time.After(schedule.Stagger(j.Name, r.h.CatchUpSpread)):
	}
	r.h.Log.Info("job.catch_up", "job", j.Name, "slot", cu.Slot, "coalesced", cu.Coalesced)
	r.fire(runCtx, j, cu.Slot, runtrace.TriggerCatchUp, map[string]any{"coalesced": cu.Coalesced})
	return now
}

// fire starts one run of a slot unless the job is paused, external, still
// running from before (overlap) or the agent is draining.
func (r *Runner) fire(ctx context.Context, j *config.Job, slot time.Time, trigger runtrace.Trigger, extra map[string]any) {
	id := runtrace.JobID(j.Name)
	if p, _ := state.ReadPause(r.h.Paths.JobPaused(j.Name)); p.Active(time.Now()) {
		r.skip(id, trigger, slot, runtrace.ReasonPaused, map[string]any{"pause": p})
		return
	} else if p != nil {
		// A pause whose --for has passed ends here, as a service's does: its
		// sentinel is removed, so status and verify stop showing it.
		if err := state.RemovePause(r.h.Paths.JobPaused(j.Name)); err != nil {
			r.h.Log.Warn("pause.remove_failed", "job", j.Name, "err", err)
		} else {
			r.h.Log.Info("pause.expired", "job", j.Name, "reason", p.Reason)
		}
	}
	if j.External {
		return // another scheduler runs it; `missing` checks its slots
	}
	if r.h.Draining() {
		r.skip(id, trigger, slot, runtrace.ReasonDraining, nil)
		return
	}
	if busy := r.launch(j, launch{ctx: ctx, slot: slot, trigger: trigger, extra: extra}); busy != nil {
		r.skip(id, trigger, slot, runtrace.ReasonOverlap, busy.detail())
	}
}
