package jobs

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"svcctl/config"
	"svcctl/internal/fsutil"
	"svcctl/internal/redact"
	"svcctl/probe"
	"svcctl/proc"
	"svcctl/runtrace"
	"svcctl/state"
)

// A job run has one definition, whoever starts it: the agent on a slot
// (RunJob) or another scheduler through `svc-ctl exec` (Exec). Both check
// the job's depends first, reach the same verdict for the same event, write
// the same detail keys and keep the same redacted output tail.

// Result is one job run's verdict.
type Result struct {
	Outcome runtrace.Outcome
	Reason  runtrace.Reason
	Detail  map[string]any
	// ExitCode is the command's own exit code when it exited by itself
	// (zero otherwise).
	ExitCode int
}

// outputTailLines is how much of a failed run's output its row keeps.
const outputTailLines = 20

func jobExited(code int) Result {
	if code == 0 {
		return Result{Outcome: runtrace.OutcomeOK, Reason: runtrace.ReasonCompleted, Detail: map[string]any{"exit_code": 0}}
	}
	return Result{Outcome: runtrace.OutcomeFailed, Reason: runtrace.ReasonExitNonzero,
		Detail: map[string]any{"exit_code": code}, ExitCode: code}
}

func jobTimedOut(timeout time.Duration) Result {
	return Result{Outcome: runtrace.OutcomeFailed, Reason: runtrace.ReasonTimeout,
		Detail: map[string]any{"timeout": timeout.String(), "killed": "process group"}}
}

func jobInterrupted(cause error) Result {
	return Result{Outcome: runtrace.OutcomeFailed, Reason: runtrace.ReasonInterrupted,
		Detail: map[string]any{"why": cause.Error()}}
}

// jobPanicked is a run the agent's own code broke: the L2 net caught the
// panic; the stack is kept for the bug report. The panic's value may quote
// data, so it is redacted like output.
func jobPanicked(p any, stack string, red *redact.Redactor) Result {
	return Result{Outcome: runtrace.OutcomeFailed, Reason: runtrace.ReasonPanic,
		Detail: map[string]any{"panic": red.String(fmt.Sprint(p)), "stack": stack}}
}

func jobSpawnFailed(err error, red *redact.Redactor) Result {
	return Result{Outcome: runtrace.OutcomeFailed, Reason: runtrace.ReasonSpawnError,
		Detail: map[string]any{"error": red.String(err.Error())}}
}

// keepTail records the end of a failed run's output, redacted: a job may
// print its own secrets.
func (r *Result) keepTail(lines []string, red *redact.Redactor) {
	if r.Outcome == runtrace.OutcomeFailed && len(lines) > 0 {
		r.Detail["output_tail"] = red.Lines(lines[max(0, len(lines)-outputTailLines):])
	}
}

// ExitStatus is what `svc-ctl exec` exits with, so the scheduler that ran it
// sees the command's own status: its exit code (a job-reported skip is 0,
// its failure the command's code or 1), 124 for a timeout (as
// timeout(1)), 127 when it could not be started (as a shell), 130 when
// interrupted, 1 for anything else that failed.
func (r Result) ExitStatus() int {
	switch {
	case r.Outcome != runtrace.OutcomeFailed:
		return 0
	case (r.Reason == runtrace.ReasonExitNonzero || runtrace.JobReported(r.Reason)) && r.ExitCode > 0:
		return r.ExitCode
	case r.Reason == runtrace.ReasonTimeout:
		return 124
	case r.Reason == runtrace.ReasonSpawnError:
		return 127
	case r.Reason == runtrace.ReasonInterrupted:
		return 130
	}
	return 1
}

// jobDepends checks the job's dependencies: a failing one means the command
// is not started.
func jobDepends(ctx context.Context, j *config.Job) (Result, bool) {
	if len(j.Depends) == 0 {
		return Result{}, false
	}
	specs := make([]probe.Spec, 0, len(j.Depends))
	for _, d := range j.Depends {
		specs = append(specs, probe.DependSpec(d, j.Env))
	}
	rs := probe.RunAll(ctx, probe.Stamp(specs, j.RunAs, nil))
	if probe.Healthy(rs) {
		return Result{}, false
	}
	return Result{Outcome: runtrace.OutcomeFailed, Reason: runtrace.ReasonDependencyFailed,
		Detail: map[string]any{"depends": rs, "why": probe.FirstFailure(rs)}}, true
}

// starter starts a goroutine: the agent's goOnce, so the L2 net covers it.
type starter func(name string, fn func(), onPanic func(p any, stack string))

// Hooks are what one run adds to a job's run: who is told of its
// process as soon as it runs (its running row names it), and where its
// output is copied as it comes besides last.log (a person's `svc-ctl run`
// prints it). Either may be nil.
type Hooks struct {
	Spawned func(proc.Instance)
	Tee     io.Writer
}

// outputDrain is how long a run's output may go on after its command exited:
// a daemon it left behind that keeps the pipe open is cut off then (it gets
// EPIPE on its next write), so the run ends.
const outputDrain = 2 * time.Second

// runJob runs a job's command once, as the agent does: dependencies first,
// output captured to jobs/<name>/last.log within log_max (jobOutput; the
// previous run's kept as last.prev.log), the whole process tree killed at
// the timeout. The output is read through a pipe by a goroutine that start
// starts.
//
// hooks say who is told of the job's process and where its output is
// copied besides last.log.
func runJob(ctx context.Context, p state.Paths, j *config.Job, red *redact.Redactor, start starter, hooks Hooks) Result {
	began := time.Now()
	if res, failed := jobDepends(ctx, j); failed {
		return res
	}
	logPath := p.JobLog(j.Name)
	if err := fsutil.EnsureDir(p.JobDir(j.Name)); err != nil {
		return jobSpawnFailed(err, red)
	}
	if err := rotateJobLog(logPath, p.JobPrevLog(j.Name)); err != nil {
		return jobSpawnFailed(err, red)
	}
	id, err := j.RunAs.Identity()
	if err != nil {
		return jobSpawnFailed(fmt.Errorf("run as %s: %w", j.RunAs.User+":"+j.RunAs.Group, err), red)
	}
	result, err := newResultFile(id)
	if err != nil {
		return jobSpawnFailed(err, red)
	}
	out, err := openJobOutput(logPath, p.JobLogTail(j.Name), j.LogMax)
	if err != nil {
		result.read()
		return jobSpawnFailed(err, red)
	}
	pr, pw, err := os.Pipe()
	if err != nil {
		out.Close()
		return jobSpawnFailed(fmt.Errorf("output pipe: %w", err), red)
	}
	child, err := proc.Spawn(proc.SpawnSpec{Argv: j.Command, Dir: j.Dir, SearchPath: j.SearchPath, Env: result.env(j.Env), Output: pw, RunAs: id, Name: j.Name})
	pw.Close() // the child has its own copy; EOF comes when the last holder closes it
	if err != nil {
		pr.Close()
		out.Close()
		result.read()
		return jobSpawnFailed(err, red)
	}
	if hooks.Spawned != nil {
		hooks.Spawned(child.Instance)
	}
	var w io.Writer = out
	if hooks.Tee != nil {
		w = io.MultiWriter(out, &teeWriter{w: hooks.Tee})
	}
	copied := make(chan struct{})
	start("job-output:"+j.Name, func() {
		defer close(copied)
		io.Copy(w, pr)
	}, nil)
	res := waitJob(ctx, child, j.Timeout)
	line, rerr := result.read()
	applyResult(&res, line, rerr, red)
	select {
	case <-copied:
	case <-time.After(outputDrain):
	}
	pr.Close() // ends the copy if something the job left behind still holds the pipe
	<-copied
	if err := out.Close(); err != nil {
		res.Detail["output_error"] = red.String(err.Error())
	}
	res.Detail["pid"] = child.PID
	res.Detail["duration_ms"] = time.Since(began).Milliseconds()
	if res.Outcome == runtrace.OutcomeFailed {
		tail, _ := fsutil.TailLines(logPath, outputTailLines, 4<<10)
		res.keepTail(tail, red)
	}
	return res
}

// teeWriter is the copy of a run's output for a person: a write it refuses
// (a terminal closed, `| head` done reading) stops the copy, never the
// run's own output, which its pipe would otherwise hold until the job
// blocked on it.
type teeWriter struct {
	w      io.Writer
	failed bool
}

func (t *teeWriter) Write(p []byte) (int, error) {
	if !t.failed {
		if _, err := t.w.Write(p); err != nil {
			t.failed = true
		}
	}
	return len(p), nil
}

func rotateJobLog(logPath, prev string) error {
	if err := os.Rename(logPath, prev); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("keep previous output: %w", err)
	}
	return nil
}

// waitJob waits for the job's exit, its timeout, or the agent's drain
// deadline; at a deadline the whole process group is killed.
func waitJob(ctx context.Context, child *proc.Child, timeout time.Duration) Result {
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	select {
	case <-child.Done:
		return jobExited(child.ExitCode())
	case <-timer.C:
		killTree(child)
		return jobTimedOut(timeout)
	case <-ctx.Done():
		killTree(child)
		return jobInterrupted(context.Cause(ctx))
	}
}

func killTree(child *proc.Child) {
	// The whole instance, marker and all: a helper the job started in a
	// session of its own is stopped with it.
	proc.StopTree(context.Background(), child.Instance, 2*time.Second)
	select {
	case <-child.Done:
	case <-time.After(5 * time.Second):
	}
}
