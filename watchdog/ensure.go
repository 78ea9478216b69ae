package watchdog

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"svcctl/config"
	"svcctl/probe"
	"svcctl/proc"
	"svcctl/runtrace"
	"svcctl/state"
)

// Request says why a cycle runs and what the caller wants of it.
type Request struct {
	Trigger runtrace.Trigger
	// Manual is a person's `svc-ctl start`: it states the wanted state, so it
	// clears a pause, ignores backoff and given-up, and waits for the lock
	// rather than reporting lock-held.
	Manual bool
	// Restart is a person's `svc-ctl restart`: stop the tree and start it
	// again whatever the probe says, with the evidence steps, and record
	// ok/restarted with cause manual. It implies Manual and Replace.
	Restart bool
	// Replace stops the tree and starts it again whatever the probe says
	// (a reload that changed what the service runs), ok/restarted; without
	// Manual it respects a pause and a backoff like any cycle.
	Replace bool
	// Reload: the cycle is a reload's replace (restart_by "reload").
	Reload bool
	// SkipConfirm: the caller already has the second look (the process we
	// spawned exited), so an unhealthy first probe is final.
	SkipConfirm bool
	// Cause is the kind of cause the caller already knows (CauseExited,
	// CauseResourceLimit) and Why its words ("killed by SIGKILL"); empty:
	// the cycle's own health verdict (cause.go).
	Cause string
	Why   string
	// Ended, when set, is an instance every process of which the caller
	// saw end just now (the agent's exit watch, which listed the tree after
	// the leader's exit). While it is still the recorded instance, that
	// listing is the cycle's: the snapshot lists no process facts and the
	// stop signals nothing, without walking the process table again (each
	// walk stood between a SIGKILLed service and its new instance).
	Ended *proc.Identity
}

// Result is one cycle's verdict.
type Result struct {
	Service     string           `json:"service"`
	RunID       int64            `json:"run_id,omitempty"`
	Trigger     runtrace.Trigger `json:"trigger"`
	Outcome     runtrace.Outcome `json:"outcome"`
	Reason      runtrace.Reason  `json:"reason"`
	Message     string           `json:"message"`
	StartedAt   time.Time        `json:"started_at"`
	DurationMS  int64            `json:"duration_ms"`
	RecordError string           `json:"record_error,omitempty"`
	Detail      Detail           `json:"detail"`
}

// Detail is what a cycle saw and did; it becomes the run row's detail.
type Detail struct {
	Message        string           `json:"message,omitempty"`
	Cause          string           `json:"cause,omitempty"`      // why the service was stopped and started (cause.go)
	RestartBy      string           `json:"restart_by,omitempty"` // who the start is a restart by; "" for a start that is none (cause.go)
	Limit          *Breach          `json:"limit,omitempty"`      // the limit a resource-limit restart acted on
	LimitHeld      string           `json:"limit_held,omitempty"` // a breach left alone while its restart backoff runs
	State          string           `json:"state"`
	Failures       int              `json:"consecutive_failures"`
	BackoffUntil   *time.Time       `json:"backoff_until,omitempty"`
	NextTry        *time.Time       `json:"next_try,omitempty"`
	Probe          []probe.Result   `json:"probe,omitempty"`
	SecondLook     []probe.Result   `json:"second_look,omitempty"`
	Flap           bool             `json:"flap,omitempty"`
	Depends        []probe.Result   `json:"depends,omitempty"`
	PID            int32            `json:"pid,omitempty"`
	HealthyAfterMS int64            `json:"healthy_after_ms,omitempty"`
	OldInstance    string           `json:"old_instance,omitempty"`
	Snapshot       string           `json:"snapshot,omitempty"`
	Pause          *state.Pause     `json:"pause,omitempty"`
	ExitCode       *int             `json:"exit_code,omitempty"`
	Exit           string           `json:"exit,omitempty"`            // how the new instance's leader ended: "killed by SIGKILL"
	Instance       string           `json:"instance,omitempty"`        // the new instance's tree: "launcher exited 0, 2 processes live on"
	Ownership      []string         `json:"ownership,omitempty"`       // where the new instance is owned less than asked (no cgroup...)
	OldStop        *proc.StopResult `json:"old_stop,omitempty"`        // every process of the old tree and how it ended
	OldLeft        []string         `json:"old_left,omitempty"`        // members of the old instance that outlived its stop
	Hung           []string         `json:"hung,omitempty"`            // members stopped by a signal when the evidence was taken
	Mode           string           `json:"mode,omitempty"`            // how the new instance's tree is owned: cgroup, subreaper, plain, job
	AnsweredBefore string           `json:"answered_before,omitempty"` // the check (not a local port) passed with the old instance gone, before the new one started
	PortHolder     *PortHolder      `json:"port_holder,omitempty"`
	Served         string           `json:"served,omitempty"`     // the health port's holder could not be named: how the start was judged
	CrashLoop      *CrashLoop       `json:"crash_loop,omitempty"` // a start refused: the watchdog's starts within loop_window
	LogTail        []string         `json:"log_tail,omitempty"`
	Output         string           `json:"output,omitempty"` // where the new instance's output went, when not to its log
	Error          string           `json:"error,omitempty"`
	By             string           `json:"by,omitempty"` // who asked for a manual run (Supervisor.By)
}

// Ensure runs one L3 cycle for the named service (docs/architecture.md, "The
// L3 cycle") and returns its verdict. A name not of the config is an
// error wrapping ErrUnknownName: nothing ran, so there is no verdict and no
// row. Ensure never panics past its own record: a panic finishes the run as
// failed/panic and is re-raised for the L2 wrapper.
func (s *Supervisor) Ensure(ctx context.Context, name string, req Request) (res Result, err error) {
	svc := s.Config().Service(name)
	if svc == nil {
		return Result{}, UnknownService(s.Config(), name)
	}
	if req.Restart {
		req.Manual, req.Replace = true, true
	}
	c := &cycle{s: s, svc: svc, req: req, log: s.Log.With("service", name)}
	c.res = Result{Service: name, Trigger: req.Trigger, StartedAt: s.now()}
	if req.Manual {
		c.res.Detail.By = s.By
		c.begin(ctx) // a person is waiting on it: their row exists at once
	}
	// The verdict as finish wrote it (run id of a row recorded whole,
	// duration, redacted message): deferred first, so it runs last.
	defer func() { res = c.res }()
	defer c.finishOrPanic()
	c.run(ctx)
	return c.res, nil
}

// cycle is the working state of one Ensure call.
type cycle struct {
	s       *Supervisor
	svc     *config.Service
	req     Request
	log     *slog.Logger
	st      state.Service
	res     Result
	lastGap time.Duration // since the last healthy verdict
	// prevState is the state the cycle found: a cycle that ends as it began,
	// healthy, writes its bookkeeping without fsync (see mustSync).
	prevState string
	// begun: the run row was begun (or tried), so finish finishes it by id
	// rather than recording it whole.
	begun bool
	// notOurs: the probe passed, but a stranger answered it (stranger.go);
	// the cycle goes on as for an unhealthy service.
	notOurs *PortHolder
	// replacing: whose restart the start is if it comes up (restartBy,
	// judged before the old instance is stopped); "" for a plain start.
	replacing string
	// answeredBefore: the health check passed before the new instance
	// started (answersWithoutUs): passing proves nothing about it.
	answeredBefore bool
}

// mustSync reports whether this cycle's bookkeeping must survive a power loss:
// anything but a healthy service found healthy again. The common cycle —
// already-running, no change — skips the fsyncs of state.json and
// watchdog.last.json, which were a third of its CPU; the ledger row is still
// committed.
func (c *cycle) mustSync() bool {
	return !(c.res.Outcome == runtrace.OutcomeOK && c.res.Reason == runtrace.ReasonAlreadyRunning &&
		c.prevState == state.Healthy && c.st.State == state.Healthy)
}

func (c *cycle) set(outcome runtrace.Outcome, reason runtrace.Reason, msg string) {
	c.res.Outcome, c.res.Reason, c.res.Message = outcome, reason, msg
}

func (c *cycle) run(ctx context.Context) {
	lock, ok, err := c.lock(ctx)
	if err != nil {
		c.set(runtrace.OutcomeFailed, runtrace.ReasonInterrupted, "could not take the service lock: "+err.Error())
		c.res.Detail.Error = err.Error()
		return
	}
	if !ok {
		c.set(runtrace.OutcomeSkipped, runtrace.ReasonLockHeld, "another svc-ctl process is running a cycle of "+c.svc.Name)
		return
	}
	defer lock.Unlock()
	c.s.retryPid(c.svc.Name)
	c.s.capLog(c.svc, c.log)
	c.loadState()
	defer c.saveState()
	if c.req.Manual {
		c.clearHolds()
	} else {
		p := c.currentPause()
		if p == nil && state.Held(c.st.State) {
			c.st.MoveTo(state.Unknown, "pause ended", c.s.now())
		}
		if h := c.holdOff(p); h != nil {
			c.skip(h)
			return
		}
	}
	if c.req.Replace {
		c.replace(ctx)
		return
	}
	// A service that was healthy is most likely healthy again: its row is
	// written once when the cycle ends (lazily if nothing changed). Any
	// other cycle begins its row now, durably, so even its first probe runs
	// under a `running` row that a drain or a crash leaves for the reaper.
	if c.prevState != state.Healthy {
		c.begin(ctx)
	}
	first := c.look(ctx)
	c.res.Detail.Probe = first
	if ctx.Err() != nil {
		c.interrupt(ctx)
		return
	}
	if probe.Healthy(first) {
		h := c.stranger(ctx)
		if h == nil {
			if c.limitRestart(ctx) {
				return
			}
			c.healthy(ctx, false)
			return
		}
		c.answeredByStranger(h)
	}
	if c.st.State == state.GivenUp && !c.req.Manual && !c.retryDue() {
		c.givenUp()
		return
	}
	// From here the cycle acts (waits out confirm, snapshots, stops,
	// spawns): its row is durable first. (A second look never follows a
	// stranger: none is taken when no process of the instance lives.)
	c.begin(ctx)
	if second, ok := c.secondLook(ctx); ok {
		c.res.Detail.SecondLook = second
		if probe.Healthy(second) {
			c.healthy(ctx, true)
			return
		}
	}
	if ctx.Err() != nil {
		c.interrupt(ctx)
		return
	}
	c.st.MoveTo(state.Unhealthy, c.healthWords(), c.s.now())
	if rs := c.checkDepends(ctx); dependencyDown(rs) {
		c.dependencyFailed(rs)
		return
	}
	c.restart(ctx)
}

// interrupt ends the cycle as failed/interrupted: its context is gone (the
// agent's drain deadline passed, or the person pressed Ctrl-C), and a probe
// cut short proves nothing, so it must never lead to a restart.
func (c *cycle) interrupt(ctx context.Context) {
	c.set(runtrace.OutcomeFailed, runtrace.ReasonInterrupted, "interrupted: "+context.Cause(ctx).Error())
}

func (c *cycle) lock(ctx context.Context) (*state.ServiceLock, bool, error) {
	path := c.s.Paths.Lock(c.svc.Name)
	if !c.req.Manual {
		return state.TryLock(path)
	}
	h := c.svc.Health
	wait := c.svc.StartTimeout + c.svc.StopTimeout + 2*h.Timeout + h.Confirm + 5*time.Second
	return state.WaitLock(ctx, path, wait)
}

func (c *cycle) loadState() {
	st, err := c.s.loadState(c.svc.Name)
	if err != nil {
		c.log.Warn("state.damaged", "err", err)
	}
	c.st = st
	c.prevState = st.State
	if !st.LastHealthy.IsZero() {
		c.lastGap = c.s.now().Sub(st.LastHealthy)
	}
}

func (c *cycle) saveState() {
	c.st.LastCycle = c.s.now()
	c.res.Detail.State = c.st.State
	c.res.Detail.Failures = c.st.Failures
	c.s.saveState(c.svc.Name, c.st, c.mustSync())
}

func (c *cycle) givenUp() {
	words := c.healthWords()
	if c.st.LastFailure != "" {
		// Why it was given up, then what its probe says now.
		words = "the last: " + c.st.LastFailure + "; now " + words
	}
	msg := fmt.Sprintf("given up after %d failed starts (%s); `svc-ctl start %s` or `resume` to try again",
		c.st.Failures, words, c.svc.Name)
	if r := c.svc.Restart.RetryGivenUp; r > 0 {
		next := c.st.LastStartTry.Add(r)
		c.res.Detail.NextTry = &next
		msg = fmt.Sprintf("given up after %d failed starts (%s); next try at %s", c.st.Failures, words, next.Format(time.RFC3339))
	}
	c.set(runtrace.OutcomeSkipped, runtrace.ReasonGivenUp, msg)
}

func (c *cycle) retryDue() bool {
	r := c.svc.Restart.RetryGivenUp
	return r > 0 && !c.s.now().Before(c.st.LastStartTry.Add(r))
}
