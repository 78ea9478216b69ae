package report

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"svcctl/config"
	"svcctl/internal/words"
	"svcctl/probe"
	"svcctl/runtrace"
	"svcctl/snapshot"
	"svcctl/state"
	"svcctl/watchdog"
)

// The words of a diagnosis: a row's verdict told as a person would say it,
// and the hints that say where to look next.

// rowDetail is what explain reads of a row's detail.
type rowDetail struct {
	Message     string         `json:"message"`
	Why         string         `json:"why"`
	Error       string         `json:"error"`
	ResultError string         `json:"result_error"`
	Cause       string         `json:"cause"`
	RestartBy   string         `json:"restart_by"`
	ExitCode    *int           `json:"exit_code"`
	OutputTail  []string       `json:"output_tail"`
	Pause       *state.Pause   `json:"pause"`
	Probe       []probe.Result `json:"probe"`
	Timeout     string         `json:"timeout"`
	PID         int32          `json:"pid"`
	Failures    int            `json:"consecutive_failures"`
	Running     int64          `json:"running_run_id"`
	By          string         `json:"by"`
	Orphan      string         `json:"orphan"`
}

// explain fills the branch, the answer in plain words and the hints from a
// row.
func explain(d *Diagnosis, r *runtrace.Run, cfg *config.Config, p state.Paths, name string) {
	var x rowDetail
	json.Unmarshal(r.Detail, &x) // a detail that is not an object says nothing more
	d.Branch = string(r.Outcome)
	d.Cause, d.RestartBy, d.ExitCode, d.Pause = x.Cause, runtrace.RestartBy(*r), x.ExitCode, x.Pause
	kind, _ := runtrace.SplitID(r.JobID)
	if kind == runtrace.KindJob && r.Outcome == runtrace.OutcomeFailed {
		d.Output = lastN(x.OutputTail, 10)
	}
	why := firstOf(x.Why, x.Error, x.ResultError, x.Message)
	switch {
	case r.Outcome == runtrace.OutcomeRunning:
		d.Means = "still running (or its process died and the reaper has not judged it yet)"
		d.LookNext = []string{"wait for it; a row left running past its timeout becomes failed/abandoned"}
	case r.Outcome == runtrace.OutcomeOK:
		d.Means = okWords(r, x, d.RestartBy)
		d.LookNext = okHints(r, d.RestartBy, cfg, p, name)
	case r.Outcome == runtrace.OutcomeSkipped && runtrace.JobReported(r.Reason):
		d.Means = "skipped, as the job itself decided (" + jobWord(r.Reason) + "): " + why
		d.LookNext = jobReportedHints(r, p, name)
	case r.Outcome == runtrace.OutcomeFailed && runtrace.JobReported(r.Reason):
		d.Failure = true
		d.Means = "failed, as the job itself reported (" + jobWord(r.Reason) + "): " + why
		if x.ExitCode != nil {
			d.Means += fmt.Sprintf(" (its command exited with code %d)", *x.ExitCode)
		}
		d.LookNext = jobReportedHints(r, p, name)
	case r.Outcome == runtrace.OutcomeSkipped:
		d.Failure = r.Reason == runtrace.ReasonGivenUp || r.Reason == runtrace.ReasonBackoff
		d.Means = skippedWords(r, x, why)
		d.LookNext = skippedHints(r, cfg, p, name)
	case r.Outcome == runtrace.OutcomeFailed:
		d.Failure = true
		d.Means = failedWords(r, x, why)
		d.LookNext = failedHints(r, cfg, p, name)
	}
	if kind == runtrace.KindWatchdog && (d.Cause != "" || r.Reason == runtrace.ReasonStartFailed || r.Reason == runtrace.ReasonSpawnError) {
		d.Snapshot = snapshotFor(p.Snapshots(name), r.ID)
	}
}

func firstOf(ss ...string) string {
	for _, s := range ss {
		if strings.TrimSpace(s) != "" {
			return s
		}
	}
	return ""
}

func jobWord(r runtrace.Reason) string {
	return strings.TrimPrefix(string(r), runtrace.JobReasonPrefix)
}

func lastN(xs []string, n int) []string {
	if len(xs) > n {
		return xs[len(xs)-n:]
	}
	return xs
}

// okWords is the answer for an ok row.
func okWords(r *runtrace.Run, x rowDetail, by string) string {
	switch r.Reason {
	case runtrace.ReasonAlreadyRunning:
		return "healthy: its check passed (" + firstOf(probe.Summary(x.Probe), "the probe answered") + "); nothing to do"
	case runtrace.ReasonStarted, runtrace.ReasonRestarted:
		if by == "" {
			return fmt.Sprintf("started (pid %d): not a restart, nothing that had been healthy was replaced (a first start, a start after a stop, or after a failed start)", x.PID)
		}
		return fmt.Sprintf("restarted by %s (new pid %d): %s", restartWho(by), x.PID, firstOf(x.Cause, "no cause recorded"))
	case runtrace.ReasonStopped:
		return "stopped: " + firstOf(x.Message, x.Why)
	case runtrace.ReasonCompleted:
		return "ran, and its command exited 0"
	case runtrace.ReasonResumed:
		return "the host slept and woke; every service was checked and the jobs caught up"
	case runtrace.ReasonReloaded:
		return firstOf(x.Message, "the config was reloaded")
	}
	return string(r.Reason)
}

func restartWho(by string) string {
	switch by {
	case watchdog.RestartByPerson:
		return "a person"
	case watchdog.RestartByReload:
		return "a reload"
	}
	return "the " + by
}

// skippedWords is the answer for a skipped row.
func skippedWords(r *runtrace.Run, x rowDetail, why string) string {
	switch r.Reason {
	case runtrace.ReasonPaused:
		if x.Pause == nil {
			return "paused: " + why
		}
		what := "paused"
		if x.Pause.HeldState() == state.Stopped {
			what = "stopped by hand"
		}
		until := "until resumed ('svc-ctl resume', or 'svc-ctl start')"
		if x.Pause.Until != nil {
			until = "until " + x.Pause.Until.Format(time.RFC3339)
		}
		return fmt.Sprintf("%s by %s at %s, %s: %s", what, firstOf(x.Pause.By, "someone"), x.Pause.At.Format(time.RFC3339), until, firstOf(x.Pause.Reason, "no reason given"))
	case runtrace.ReasonBackoff:
		return fmt.Sprintf("not started: waiting after %s in a row (%s)", words.Count(x.Failures, "failed start", "failed starts"), why)
	case runtrace.ReasonGivenUp:
		return fmt.Sprintf("given up after %d failed starts in a row: %s", x.Failures, why)
	case runtrace.ReasonLockHeld:
		return "skipped: another svc-ctl process was working on it at that moment (it held the service's lock)"
	case runtrace.ReasonOverlap:
		if x.Running > 0 {
			return fmt.Sprintf("not run: run #%d was still going", x.Running)
		}
		return "not run: " + firstOf(why, "the previous run was still going")
	case runtrace.ReasonDraining:
		return "skipped: the agent was stopping"
	}
	return "skipped (" + string(r.Reason) + "): " + why
}

// failedWords is the answer for a failed row.
func failedWords(r *runtrace.Run, x rowDetail, why string) string {
	switch r.Reason {
	case runtrace.ReasonExitNonzero:
		if x.ExitCode != nil {
			return fmt.Sprintf("failed: its command exited with code %d", *x.ExitCode)
		}
	case runtrace.ReasonTimeout:
		return "failed: it ran past its timeout " + firstOf(x.Timeout, "") + " and its process tree was killed"
	case runtrace.ReasonStartFailed:
		return "did not come up: " + strings.TrimPrefix(why, "start-failed: ")
	case runtrace.ReasonSpawnError:
		return "could not be started: " + strings.TrimPrefix(why, "spawn-error: ")
	case runtrace.ReasonDependencyFailed:
		return "not run: a dependency is down: " + why
	case runtrace.ReasonAbandoned:
		return "abandoned: whatever ran it died before it ended (" + firstOf(x.Orphan, why, "no word of how") + ")"
	case runtrace.ReasonInterrupted:
		return "interrupted: " + firstOf(why, "the agent stopped while it ran")
	case runtrace.ReasonPanic:
		return "svc-ctl itself failed while running it (a panic, recovered): " + why
	}
	return "failed (" + string(r.Reason) + "): " + why
}

func okHints(r *runtrace.Run, by string, cfg *config.Config, p state.Paths, name string) []string {
	switch r.Reason {
	case runtrace.ReasonStarted, runtrace.ReasonRestarted:
		if by == "" {
			return []string{"its output: " + runtimeLog(cfg, p, name) + " (`svc-ctl logs " + name + "`)"}
		}
		return []string{"the evidence kept before the restart: `svc-ctl snapshot " + name + "` (" + p.Snapshots(name) + ")",
			"what the old instance wrote: " + prevLog(cfg, p, name) + " (`svc-ctl logs " + name + " --prev`)"}
	case runtrace.ReasonAlreadyRunning:
		return []string{"if the service still misbehaves, its check does not test what matters (health.http, expect_body)"}
	case runtrace.ReasonCompleted:
		return []string{"its output: " + p.JobLog(name) + " (`svc-ctl logs " + name + "`)"}
	}
	return nil
}

// jobReportedHints: the verdict is the job's own; what it wrote and what it
// printed say more than svc-ctl can.
func jobReportedHints(r *runtrace.Run, p state.Paths, name string) []string {
	hints := []string{"its output: " + p.JobLog(name) + " (`svc-ctl logs " + name + "`)"}
	if r.Outcome == runtrace.OutcomeSkipped {
		hints = append(hints, "a skip is not retried: the next slot runs as scheduled (`svc-ctl schedule next "+name+"`)")
	}
	return hints
}

func skippedHints(r *runtrace.Run, cfg *config.Config, p state.Paths, name string) []string {
	switch r.Reason {
	case runtrace.ReasonPaused:
		return []string{"`svc-ctl resume " + name + "` ends the pause (for a stop: `svc-ctl start " + name + "`)"}
	case runtrace.ReasonLockHeld:
		return []string{"usually harmless: the next cycle runs; if it repeats, `svc-ctl runs --job watchdog:" + name + " --outcome running`"}
	case runtrace.ReasonGivenUp:
		return []string{"the failed starts before it: `svc-ctl runs --job watchdog:" + name + " --outcome failed`", "`svc-ctl snapshot " + name + "` and " + prevLog(cfg, p, name), "fix the cause, then `svc-ctl resume " + name + "`"}
	case runtrace.ReasonBackoff:
		return []string{"the failed start before it: `svc-ctl why " + name + " --at` its time, or `svc-ctl runs --job watchdog:" + name + " -n 5`"}
	case runtrace.ReasonOverlap:
		return []string{"the run still going: `svc-ctl runs --job job:" + name + " -n 5`; is the timeout longer than the interval?"}
	case runtrace.ReasonDraining:
		return []string{"who stopped the agent: `svc-ctl runs --job agent`"}
	}
	return nil
}

func failedHints(r *runtrace.Run, cfg *config.Config, p state.Paths, name string) []string {
	switch r.Reason {
	case runtrace.ReasonStartFailed:
		return []string{"the snapshot written before this start: `svc-ctl snapshot " + name + "` (" + p.Snapshots(name) + ")",
			"what the old instance wrote: " + prevLog(cfg, p, name),
			"what the new instance wrote: " + runtimeLog(cfg, p, name)}
	case runtrace.ReasonSpawnError:
		return []string{"check the path and permissions of argv[0], and dir, in " + cfg.Path}
	case runtrace.ReasonExitNonzero, runtrace.ReasonTimeout:
		return []string{"its whole output: " + p.JobLog(name) + " (`svc-ctl logs " + name + "`)", "run it again now: `svc-ctl run " + name + "`"}
	case runtrace.ReasonDependencyFailed:
		return []string{"restarting or re-running cannot fix an upstream: the dependency named above"}
	case runtrace.ReasonAbandoned:
		return []string{"was the agent killed or did it crash? " + p.CrashLog() + ", `svc-ctl logs agent`"}
	case runtrace.ReasonInterrupted:
		return []string{"who stopped it: `svc-ctl runs --job agent`"}
	case runtrace.ReasonPanic:
		return []string{"the stack is in `svc-ctl logs agent` (search panic.recovered); please report it"}
	case runtrace.ReasonRowsLost:
		return []string{"the runs of that time are missing from the ledger; docs/runbook.md, \"The disk is full\""}
	}
	return nil
}

// runtimeLog and prevLog are the service's logs where its `log` key puts them.
func runtimeLog(cfg *config.Config, p state.Paths, name string) string {
	if svc := cfg.Service(name); svc != nil {
		return p.RuntimeLog(svc)
	}
	return p.DefaultRuntimeLog(name)
}

func prevLog(cfg *config.Config, p state.Paths, name string) string {
	return snapshot.PrevPath(runtimeLog(cfg, p, name))
}
