package jobs

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"svcctl/config"
	"svcctl/control"
	"svcctl/internal/fsutil"
	"svcctl/internal/redact"
	"svcctl/proc"
	"svcctl/runtrace"
	"svcctl/state"
)

// A person's run of a job (`svc-ctl run JOB`): the job's own argv, env,
// env_file, dir, user, timeout and result protocol, as a slot runs it (one
// definition: runJob), recorded with trigger manual and no slot. A manual
// run serves no slot: `missing` still counts the slot it did not run for.
// While it runs, a slot that comes due is recorded skipped/overlap; while a
// run is in flight, a person's run is refused, naming it. The running agent
// runs it when there is one (runManual, through a request), so its overlap
// rule and its reaper cover it; with no agent, the command runs it itself
// (RunNow), holding the job's lock.

// RunManual runs j now for a request and answers it twice: when the run
// began (its id, and where its output is copied as it comes) and when it
// ended (its verdict and the exit status `svc-ctl run` exits with).
func (r *Runner) RunManual(j *config.Job, req control.Request, reply func(control.Response)) {
	r.mu.Lock()
	runCtx := r.runCtx
	r.mu.Unlock()
	ctx, cancel := context.WithCancelCause(runCtx)
	path := control.StreamPath(r.h.Paths, req.ID)
	stream, err := openStream(path, j)
	if err != nil {
		r.h.Log.Warn("run.stream_failed", "job", j.Name, "err", err) // the run goes ahead; its output is in last.log
	}
	acc := control.RunAccepted{StreamMax: j.LogMax}
	if stream != nil {
		acc.Stream = path
	}
	if p, _ := state.ReadPause(r.h.Paths.JobPaused(j.Name)); p.Active(time.Now()) {
		acc.Paused = p.Reason
	}
	r.manual.Store(req.ID, cancel)
	started := time.Now()
	busy := r.launch(j, launch{ctx: ctx, trigger: runtrace.TriggerManual, tee: stream,
		extra: map[string]any{"by": req.By, "via": "svc-ctl run"},
		began: func(runID int64) {
			acc.RunID = runID
			reply(control.Response{Seq: 1, Result: control.Result(acc)})
		},
		ended: func(runID int64, res Result) {
			stream.Close() // all of the output is in the stream before the verdict is
			r.manual.Delete(req.ID)
			cancel(nil)
			reply(control.Response{Seq: 2, Final: true, Result: control.Result(control.RunFinished{RunID: runID,
				Outcome: string(res.Outcome), Reason: string(res.Reason), ExitStatus: res.ExitStatus(),
				Duration: time.Since(started), Detail: res.Detail})})
		}})
	if busy != nil {
		r.manual.Delete(req.ID)
		cancel(nil)
		stream.Close()
		os.Remove(path)
		reply(control.Response{Seq: 1, Final: true, Code: control.CodeBusy, Refused: busyWords(j.Name, busy)})
	}
}

// busyWords is the refusal of a person's run while another is in flight.
func busyWords(name string, b *busyRun) string {
	msg := "not run: " + b.why
	if b.runID > 0 {
		msg += fmt.Sprintf("; wait for it ('svc-ctl runs --job %s -n 1' shows it), or 'svc-ctl why --run %d'", name, b.runID)
	}
	return msg
}

// Interrupt ends the person's run that request id started: it is recorded
// failed/interrupted with why. False when no such run is in flight.
func (r *Runner) Interrupt(id, why string) bool {
	v, ok := r.manual.Load(id)
	if !ok {
		return false
	}
	v.(context.CancelCauseFunc)(errors.New(why))
	return true
}

// Streaming reports whether request id's run is in flight: its stream file
// is kept however long it goes quiet.
func (r *Runner) Streaming(id string) bool {
	_, ok := r.manual.Load(id)
	return ok
}

// stream is the copy of a person's run's output that `svc-ctl run` prints
// as it comes: at most the job's log_max (the bound last.log already
// holds), then one line saying the rest is only in last.log. It never fails
// the job's output: a write error stops the copy, not the run.
type stream struct {
	f    *os.File
	left int64
	job  string
	cut  bool
}

func openStream(path string, j *config.Job) (*stream, error) {
	f, err := fsutil.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, fsutil.FilePerm)
	if err != nil {
		return nil, err
	}
	return &stream{f: f, left: j.LogMax, job: j.Name}, nil
}

func (s *stream) Write(p []byte) (int, error) {
	n := len(p)
	if s == nil || s.cut {
		return n, nil
	}
	if int64(len(p)) > s.left {
		p = p[:s.left]
		s.cut = true
	}
	if _, err := s.f.Write(p); err != nil {
		s.cut = true
		return n, nil
	}
	s.left -= int64(len(p))
	if s.cut {
		fmt.Fprintf(s.f, "\n[svc-ctl: the output passed log_max; the rest is not copied here. last.log keeps its end: 'svc-ctl logs %s']\n", s.job)
	}
	return n, nil
}

// Close closes the file; a nil stream is fine.
func (s *stream) Close() error {
	if s == nil || s.f == nil {
		return nil
	}
	err := s.f.Close()
	s.f = nil
	s.cut = true
	return err
}

// RunNowRequest is a person's run of a job when no agent runs
// (`svc-ctl run JOB`): the command runs it itself.
type RunNowRequest struct {
	Paths    state.Paths
	Job      *config.Job
	Output   io.Writer // the run's output, as it comes (besides last.log)
	Redactor *redact.Redactor
	By       string
	// Runs reads the job's rows, to name a run in flight; nil when the
	// ledger cannot be read.
	Runs interface {
		Runs(ctx context.Context, f runtrace.Filter) ([]runtrace.Run, error)
	}
}

// ErrBusy: a run of the job is in flight (RunNow's refusal).
var ErrBusy = errors.New("a run of the job is in flight")

// RunNow runs req.Job once now in this process, as the agent would, and
// records it (trigger manual, no slot). It holds the job's lock while it
// runs, so an agent that starts meanwhile records its slots skipped/overlap
// rather than run beside it; a run in flight already (the lock is held) is
// ErrBusy, naming it. ctx ending (Ctrl-C) kills the run's tree: the
// verdict is failed/interrupted. The error says the run could not be
// recorded; the result is the run's verdict either way.
func RunNow(ctx context.Context, led Ledger, req RunNowRequest) (Result, int64, error) {
	j := req.Job
	lock, ok, err := state.TryLock(req.Paths.JobLock(j.Name))
	if err != nil {
		return Result{}, 0, err
	}
	if !ok {
		b := &busyRun{why: "a run of " + j.Name + " is still going", runID: runningRow(ctx, req)}
		return Result{}, 0, fmt.Errorf("%w: %s", ErrBusy, busyWords(j.Name, b))
	}
	defer lock.Unlock()
	id := runtrace.JobID(j.Name)
	runID, recErr := led.Begin(context.WithoutCancel(ctx), id, runtrace.TriggerManual, time.Time{}, time.Now().UTC())
	hooks := Hooks{Tee: req.Output, Spawned: func(inst proc.Instance) {
		if n, ok := led.(interface {
			Note(ctx context.Context, id int64, detail any) error
		}); ok && recErr == nil {
			n.Note(context.WithoutCancel(ctx), runID, map[string]any{"process": inst})
		}
	}}
	res := runJob(ctx, req.Paths, j, req.Redactor, goCommand, hooks)
	res.Detail["by"], res.Detail["via"] = req.By, "svc-ctl run"
	if recErr == nil {
		recErr = led.Finish(context.WithoutCancel(ctx), runID, res.Outcome, res.Reason, res.Detail, time.Now().UTC())
	}
	return res, runID, recErr
}

// runningRow is the newest running row of req's job, or 0.
func runningRow(ctx context.Context, req RunNowRequest) int64 {
	if req.Runs == nil {
		return 0
	}
	rs, err := req.Runs.Runs(ctx, runtrace.Filter{JobID: runtrace.JobID(req.Job.Name), Outcome: runtrace.OutcomeRunning, Limit: 1})
	if err != nil || len(rs) == 0 {
		return 0
	}
	return rs[0].ID
}

// goCommand starts fn for a run the command line makes itself (RunNow: no
// agent runs). There is no net: a panic ends the command, in front of the
// person who ran it, and the next agent's reaper judges the row it left.
func goCommand(_ string, fn func(), _ func(p any, stack string)) {
	go fn()
}

// HandleRun answers a run request (`svc-ctl run JOB`): it runs the job of
// cfg, the config in force (loaded at loadedAt), now, as a person asked:
// trigger manual, no slot.
func (r *Runner) HandleRun(cfg *config.Config, loadedAt time.Time, req control.Request, reply func(control.Response)) {
	var args control.RunArgs
	if err := json.Unmarshal(req.Args, &args); err != nil || args.Job == "" {
		reply(control.Response{Final: true, Code: control.CodeUsage, Refused: "a run request names no job"})
		return
	}
	j := cfg.Job(args.Job)
	switch {
	case j == nil:
		reply(control.Response{Final: true, Code: control.CodeUnknown, Refused: fmt.Sprintf(
			"the running agent's config has no job named %s (it runs the file as loaded at %s: 'svc-ctl reload' applies the file on disk)",
			args.Job, loadedAt.Format(time.RFC3339))})
	case j.External:
		reply(control.Response{Final: true, Code: control.CodeUsage, Refused: ExternalRefusal(j.Name)})
	case r.h.Draining():
		reply(control.Response{Final: true, Code: control.CodeStopping, Refused: "the agent is stopping (draining): run it after it is back"})
	default:
		r.RunManual(j, req, reply)
	}
}

// ExternalRefusal is the one answer to `svc-ctl run` of an external job,
// from the agent or from the command line when it runs the job itself.
func ExternalRefusal(name string) string {
	return fmt.Sprintf("%s is external = true: another scheduler runs it, through 'svc-ctl exec %s -- CMD...'; svc-ctl has no command of its own to run", name, name)
}

// HandleInterrupt answers an interrupt request: the person's run that the
// request it names started ends failed/interrupted.
func (r *Runner) HandleInterrupt(req control.Request, reply func(control.Response)) {
	var args control.InterruptArgs
	if err := json.Unmarshal(req.Args, &args); err != nil || args.Request == "" {
		reply(control.Response{Final: true, Code: control.CodeUsage, Refused: "an interrupt request names no run"})
		return
	}
	why := args.Why
	if why == "" {
		why = "interrupted by " + req.By
	}
	if !r.Interrupt(args.Request, why) {
		reply(control.Response{Final: true, Code: control.CodeUnknown, Refused: "no run of that request is in flight (it has ended)"})
		return
	}
	reply(control.Response{Final: true})
}
