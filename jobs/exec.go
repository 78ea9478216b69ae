package jobs

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"time"

	"svcctl/config"
	"svcctl/internal/child"
	"svcctl/internal/redact"
	"svcctl/internal/runas"
	"svcctl/internal/svcenv"
	"svcctl/runtrace"
)

// Ledger is where a job run is recorded: its row, begun when it starts and
// finished by id, and the job's registration (when its slots start to count).
// *runtrace.Store is one; watchdog.NopRecorder stands in when there is none.
type Ledger interface {
	Recorder
	Register(ctx context.Context, jobID, spec string, at time.Time) (time.Time, error)
}

// ExecRequest is one `svc-ctl exec JOB -- CMD...`.
type ExecRequest struct {
	Job  *config.Job
	Argv []string
	// Scheduled: the run serves the slot due now (trigger schedule), as
	// when cron runs it; otherwise it is a manual run with no slot.
	Scheduled      bool
	Stdin          io.Reader
	Stdout, Stderr io.Writer // the command's output goes here as it runs
	Redactor       *redact.Redactor
	// Runs reads the job's rows (the ledger), to see whether the slot a
	// scheduled run serves already has one; nil when the ledger cannot be
	// read (the run goes ahead).
	Runs interface {
		Runs(ctx context.Context, f runtrace.Filter) ([]runtrace.Run, error)
	}
}

var errJobTimeout = errors.New("job timeout")

// Exec runs a command another scheduler started (cron, launchd, Task
// Scheduler) as a run of job req.Job and records it. The command runs in
// the foreground, its output passing through, under the job's timeout. The
// error says the run could not be recorded; the result is the run's verdict
// either way.
func Exec(ctx context.Context, led Ledger, req ExecRequest) (Result, error) {
	j := req.Job
	trigger, slot := runtrace.TriggerManual, time.Time{}
	if req.Scheduled {
		trigger = runtrace.TriggerSchedule
		slot = dueSlot(ctx, led, j)
	}
	if prev := slotRun(ctx, req, slot); prev != nil {
		// The slot has its run: a second scheduler firing, or one that
		// retried. It is recorded, not run again.
		res := Result{Outcome: runtrace.OutcomeSkipped, Reason: runtrace.ReasonOverlap, Detail: map[string]any{
			"running_run_id": prev.ID, "why": fmt.Sprintf("the slot %s already has run #%d (%s)", slot.Format(time.RFC3339), prev.ID, prev.Verdict()),
			"via": "svc-ctl exec"}}
		now := time.Now().UTC()
		id, err := led.Begin(context.WithoutCancel(ctx), runtrace.JobID(j.Name), trigger, slot, now)
		if err == nil {
			err = led.Finish(context.WithoutCancel(ctx), id, res.Outcome, res.Reason, res.Detail, now)
		}
		return res, err
	}
	id, recErr := led.Begin(context.WithoutCancel(ctx), runtrace.JobID(j.Name), trigger, slot, time.Now().UTC())
	res, failed := jobDepends(ctx, j)
	if !failed {
		res = execOnce(ctx, req)
	}
	if recErr == nil {
		recErr = led.Finish(context.WithoutCancel(ctx), id, res.Outcome, res.Reason, res.Detail, time.Now().UTC())
	}
	return res, recErr
}

// slotRun is the run that already serves slot, if any.
func slotRun(ctx context.Context, req ExecRequest, slot time.Time) *runtrace.Run {
	if slot.IsZero() || req.Runs == nil {
		return nil
	}
	rs, err := req.Runs.Runs(ctx, runtrace.Filter{JobID: runtrace.JobID(req.Job.Name), Since: slot.Add(-time.Minute), Limit: 500})
	if err != nil {
		return nil
	}
	for i := range rs {
		if rs[i].ScheduledAt.Equal(slot) {
			return &rs[i]
		}
	}
	return nil
}

// dueSlot is the slot this run serves: the newest slot at or before now,
// never one still to come, registering the job if no agent has.
func dueSlot(ctx context.Context, led Ledger, j *config.Job) time.Time {
	now := time.Now().UTC()
	reg := now.Add(-366 * 24 * time.Hour)
	if at, err := led.Register(ctx, runtrace.JobID(j.Name), j.Registration(), now); err == nil {
		reg = at
	}
	s, err := j.Cron(reg)
	if err != nil {
		return time.Time{}
	}
	slots := s.Slots(now.Add(-max(j.Grace, time.Hour)-time.Minute), now, 0) // (from, now]
	if len(slots) == 0 {
		return time.Time{}
	}
	return slots[len(slots)-1]
}

func execOnce(ctx context.Context, req ExecRequest) Result {
	start := time.Now()
	ctx, cancel := context.WithTimeoutCause(ctx, req.Job.Timeout, errJobTimeout)
	defer cancel()
	tail := &tailBuffer{max: 4 << 10}
	id, err := req.Job.RunAs.Identity()
	if err != nil {
		return jobSpawnFailed(fmt.Errorf("run as %s: %w", req.Job.RunAs.User+":"+req.Job.RunAs.Group, err), req.Redactor)
	}
	result, err := newResultFile(id)
	if err != nil {
		return jobSpawnFailed(err, req.Redactor)
	}
	c, err := execCommand(ctx, req, id, result)
	if err != nil {
		result.read()
		return jobSpawnFailed(err, req.Redactor)
	}
	c.Stdin = req.Stdin
	c.Stdout = io.MultiWriter(req.Stdout, tail)
	c.Stderr = io.MultiWriter(req.Stderr, tail)
	c.WaitDelay = 5 * time.Second
	err = c.Run()
	var res Result
	var ee *exec.ExitError
	switch {
	case err == nil:
		res = jobExited(0)
	case ctx.Err() != nil && errors.Is(context.Cause(ctx), errJobTimeout):
		res = jobTimedOut(req.Job.Timeout)
		res.Detail["killed"] = "process"
	case ctx.Err() != nil:
		res = jobInterrupted(context.Cause(ctx))
	case errors.As(err, &ee):
		res = jobExited(ee.ExitCode())
	default:
		res = jobSpawnFailed(err, req.Redactor)
	}
	line, rerr := result.read()
	applyResult(&res, line, rerr, req.Redactor)
	res.Detail["argv0"] = req.Argv[0]
	res.Detail["duration_ms"] = time.Since(start).Milliseconds()
	res.Detail["via"] = "svc-ctl exec"
	res.keepTail(tail.lines(), req.Redactor)
	return res
}

// execCommand is the command of an `svc-ctl exec` run. With the job's
// `user`, the agent's rule for anything that runs as another user
// (internal/svcenv): that user's base environment, search_path, env_file
// and env, never the caller's (a root cron line's HOME=/root and secrets
// must not reach a process of another user); a bare program name looked up
// in that PATH; the job's dir, else that user's home. Without one, CMD is
// the caller's own command, run as the caller: the caller's environment
// and PATH with the job's env_file and env on top, in the job's dir (else
// the caller's). Every run gets SVCCTL_RESULT, as every run of a job does.
func execCommand(ctx context.Context, req ExecRequest, id *runas.Identity, result *resultFile) (*child.Cmd, error) {
	j := req.Job
	if id != nil {
		pe := svcenv.Process{RunAs: id, Env: result.env(j.Env), SearchPath: j.SearchPath, Dir: j.Dir}
		exe, err := pe.LookPath(req.Argv[0])
		if err != nil {
			return nil, err
		}
		c := child.CommandContext(ctx, exe, req.Argv[1:]...)
		c.Args[0] = req.Argv[0]
		c.Env, c.Dir = pe.Environ(), pe.WorkDir()
		runAs(c.Cmd, id)
		return c, nil
	}
	c := child.CommandContext(ctx, req.Argv[0], req.Argv[1:]...)
	env := os.Environ()
	for _, k := range slices.Sorted(maps.Keys(j.Env)) {
		env = append(env, k+"="+j.Env[k]) // later wins
	}
	c.Env, c.Dir = append(env, EnvResult+"="+result.path), j.Dir
	return c, nil
}

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	mu  sync.Mutex
	max int
	b   []byte
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if len(t.b) > t.max {
		t.b = t.b[len(t.b)-t.max:]
	}
	return len(p), nil
}

func (t *tailBuffer) lines() []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	s := strings.TrimRight(string(t.b), "\n")
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}
