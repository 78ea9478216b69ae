package report

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"svcctl/internal/words"
	"time"

	"svcctl/config"
	"svcctl/probe"
	"svcctl/runtrace"
	"svcctl/schedule"
	"svcctl/snapshot"
	"svcctl/state"
	"svcctl/watchdog"
)

// Diagnosis is the answer of `svc-ctl why` (docs/runbook.md, "The four-way
// table"): for the slot or cycle in question, no row / skipped / failed /
// ok, the answer in plain words with what the row holds (the cause of a
// restart, the exit code and last output of a failed job, who paused and
// until when), and where to look next.
type Diagnosis struct {
	Target string        `json:"target"`
	Slot   *time.Time    `json:"slot,omitempty"`
	Row    *runtrace.Run `json:"row,omitempty"`
	Branch string        `json:"branch"` // no-row | skipped | failed | ok | running
	// Means is the answer, in plain words: "restarted by the watchdog:
	// exited: killed by SIGKILL", "failed: exited with code 3".
	Means    string   `json:"means"`
	LookNext []string `json:"look_next"`
	// What the row holds, for the answer: why a service was stopped and
	// started and by whom, a job's exit code and last output lines, the
	// pause in force.
	Cause     string       `json:"cause,omitempty"`
	RestartBy string       `json:"restart_by,omitempty"`
	ExitCode  *int         `json:"exit_code,omitempty"`
	Output    []string     `json:"output_tail,omitempty"`
	Pause     *state.Pause `json:"pause,omitempty"`
	// Failure: the answer is a failure (`why` exits 1): a failed run, a
	// service given up or backing off after failed starts, a slot past its
	// grace with no row.
	Failure  bool            `json:"failure"`
	Snapshot *snapshot.Entry `json:"snapshot,omitempty"`
	// Pending is a slot that came due but is still within its grace with
	// no row: not missing yet.
	Pending *PendingSlot `json:"pending,omitempty"`
	// Removed: the name is no longer in the config; the answer is its
	// history.
	Removed bool `json:"removed,omitempty"`
}

// PendingSlot is a slot within its grace.
type PendingSlot struct {
	Slot       time.Time `json:"slot"`
	GraceUntil time.Time `json:"grace_until"`
}

// Why diagnoses target ("proxy", "watchdog:proxy", "daily-pull" or
// "job:daily-pull") at the latest slot or cycle, or the one covering at
// (to the millisecond).
func Why(ctx context.Context, store *runtrace.Store, cfg *config.Config, target string, at, now time.Time) (*Diagnosis, error) {
	return WhyAt(ctx, store, cfg, target, at, time.Millisecond, now)
}

// WhyAt is Why for an instant given to width: a time typed to the second
// ("09:30:05", or copied from `svc-ctl runs`) covers that whole second, so
// the row that started at 09:30:05.358 is the one meant, not the one
// before it.
func WhyAt(ctx context.Context, store *runtrace.Store, cfg *config.Config, target string, at time.Time, width time.Duration, now time.Time) (*Diagnosis, error) {
	kind, name, removed := splitTarget(ctx, store, cfg, target)
	p := state.PathsOf(cfg)
	var d *Diagnosis
	var err error
	switch {
	case kind == runtrace.KindWatchdog:
		d, err = whyService(ctx, store, cfg, p, name, at, width)
	case kind == runtrace.KindJob && removed:
		d, err = whyRemovedJob(ctx, store, cfg, p, name, at, width)
	case kind == runtrace.KindJob:
		d, err = whyJob(ctx, store, cfg, p, name, at, width, now)
	default:
		return nil, fmt.Errorf("%w: %q (a service, a job, watchdog:NAME or job:NAME)", watchdog.ErrUnknownName, target)
	}
	if d != nil {
		d.Removed = removed
	}
	return d, err
}

// WhyRun diagnoses one row by its id (`why --run ID`, as `runs` and `run`
// print it).
func WhyRun(ctx context.Context, store *runtrace.Store, cfg *config.Config, id int64) (*Diagnosis, error) {
	r, err := store.RunByID(ctx, id)
	if err != nil {
		return nil, err
	}
	if r == nil {
		return nil, fmt.Errorf("%w: no run #%d in %s", ErrNoSuchRun, id, store.Path())
	}
	kind, name := runtrace.SplitID(r.JobID)
	d := &Diagnosis{Target: r.JobID, Row: r}
	if !r.ScheduledAt.IsZero() {
		slot := r.ScheduledAt.UTC()
		d.Slot = &slot
	}
	if (kind == runtrace.KindWatchdog && cfg.Service(name) == nil) || (kind == runtrace.KindJob && cfg.Job(name) == nil) {
		d.Removed = kind != ""
	}
	explain(d, r, cfg, state.PathsOf(cfg), name)
	return d, nil
}

// ErrNoSuchRun: `why --run ID` of an id the ledger does not have.
var ErrNoSuchRun = errors.New("no such run")

// splitTarget finds what target names: a service or job of cfg, or one the
// config no longer has whose history the ledger keeps (removed).
func splitTarget(ctx context.Context, store *runtrace.Store, cfg *config.Config, t string) (kind, name string, removed bool) {
	if strings.Contains(t, ":") {
		k, n := runtrace.SplitID(t)
		switch {
		case k == runtrace.KindWatchdog && cfg.Service(n) != nil, k == runtrace.KindJob && cfg.Job(n) != nil:
			return k, n, false
		case (k == runtrace.KindWatchdog || k == runtrace.KindJob) && hasRuns(ctx, store, t):
			return k, n, true
		}
		return "", "", false
	}
	switch {
	case cfg.Service(t) != nil:
		return runtrace.KindWatchdog, t, false
	case cfg.Job(t) != nil:
		return runtrace.KindJob, t, false
	case hasRuns(ctx, store, runtrace.WatchdogID(t)):
		return runtrace.KindWatchdog, t, true
	case hasRuns(ctx, store, runtrace.JobID(t)):
		return runtrace.KindJob, t, true
	}
	return "", "", false
}

func hasRuns(ctx context.Context, store *runtrace.Store, id string) bool {
	n, err := store.Count(ctx, runtrace.Filter{JobID: id})
	return err == nil && n > 0
}

func whyService(ctx context.Context, store *runtrace.Store, cfg *config.Config, p state.Paths, name string, at time.Time, width time.Duration) (*Diagnosis, error) {
	d := &Diagnosis{Target: runtrace.WatchdogID(name)}
	row, err := coveringRow(ctx, store, d.Target, at, width)
	if err != nil {
		return nil, err
	}
	if row == nil {
		d.Branch = "no-row"
		d.Means = "never checked: no cycle of " + name + " is recorded"
		if !at.IsZero() {
			d.Means += " by then"
		}
		d.LookNext = []string{
			"is the agent running? `svc-ctl status` (heartbeat) and `svc-ctl verify`",
			"the last cycle result, kept even when the ledger is unavailable: " + p.WatchdogLast(),
			"the agent's log: `svc-ctl logs agent`",
		}
		return d, nil
	}
	d.Row = row
	explain(d, row, cfg, p, name)
	return d, nil
}

// coveringRow is the row that covers the instant [at, at+width): the newest
// finished row that started before its end (a cycle still in progress has
// no verdict yet: the one before it does); zero at: the newest.
func coveringRow(ctx context.Context, store *runtrace.Store, job string, at time.Time, width time.Duration) (*runtrace.Run, error) {
	f := runtrace.Filter{JobID: job, Limit: 5}
	if !at.IsZero() {
		f.Until = at.Add(max(width, time.Millisecond))
	}
	rs, err := store.Runs(ctx, f)
	if err != nil {
		return nil, err
	}
	for i := range rs {
		if rs[i].Outcome != runtrace.OutcomeRunning {
			return &rs[i], nil
		}
	}
	if len(rs) > 0 {
		return &rs[0], nil
	}
	return nil, nil
}

func snapshotFor(path string, runID int64) *snapshot.Entry {
	es, _, err := snapshot.Read(path, 200)
	if err != nil {
		return nil
	}
	for i := range es {
		if es[i].RunID == runID {
			return &es[i]
		}
	}
	return nil
}

// whyJob answers for a job. With at, the run that covers that instant (a
// manual run counts), else the slot at or before it. Without, the newest
// thing that happened: the newest row, unless a slot that came due after
// it, past its grace, has no row: then that missing slot is the news. A
// slot still within its grace is not missing yet, and the answer says so.
func whyJob(ctx context.Context, store *runtrace.Store, cfg *config.Config, p state.Paths, name string, at time.Time, width time.Duration, now time.Time) (*Diagnosis, error) {
	j := cfg.Job(name)
	d := &Diagnosis{Target: runtrace.JobID(name)}
	reg, known, err := store.Registered(ctx, d.Target)
	if err != nil {
		return nil, err
	}
	var s *schedule.Schedule
	if known {
		if s, err = j.Cron(reg); err != nil {
			return nil, err
		}
	}
	if !at.IsZero() {
		return whyJobAt(ctx, store, cfg, p, d, s, reg, at, width)
	}
	newest, err := coveringRow(ctx, store, d.Target, time.Time{}, 0)
	if err != nil {
		return nil, err
	}
	if s != nil {
		if slots := s.Slots(maxTime(reg, now.Add(-j.Grace).Add(-400*24*time.Hour)), now.Add(-j.Grace), 0); len(slots) > 0 {
			slot := slots[len(slots)-1].UTC()
			row, err := runForSlot(ctx, store, d.Target, slot)
			if err != nil {
				return nil, err
			}
			if row == nil && (newest == nil || newest.StartedAt.Before(slot)) {
				d.Slot = &slot
				noRow(d, j, p, slot)
				pendingSlot(ctx, store, d, j, s, now)
				return d, nil
			}
		}
	}
	if newest == nil {
		d.Branch = "no-row"
		switch {
		case !known:
			d.Means = "never run: the job was never registered (no agent has loaded it, no `svc-ctl exec` has recorded it)"
			d.LookNext = []string{"is the agent running with this config? `svc-ctl status --config " + cfg.Path + "`"}
		default:
			d.Means = fmt.Sprintf("no slot has come due yet (registered %s; next slot %s)", reg.Format(time.RFC3339), s.Next(now).Format(time.RFC3339))
			d.LookNext = []string{"`svc-ctl schedule next " + name + "`", "`svc-ctl run " + name + "` runs it now"}
		}
		if s != nil {
			pendingSlot(ctx, store, d, j, s, now)
		}
		return d, nil
	}
	d.Row = newest
	if !newest.ScheduledAt.IsZero() {
		slot := newest.ScheduledAt.UTC()
		d.Slot = &slot
	}
	explain(d, newest, cfg, p, name)
	if s != nil {
		pendingSlot(ctx, store, d, j, s, now)
	}
	return d, nil
}

// whyJobAt answers for the instant at: the run that covers it (started by
// then and not finished before it), else the slot at or before it.
func whyJobAt(ctx context.Context, store *runtrace.Store, cfg *config.Config, p state.Paths, d *Diagnosis, s *schedule.Schedule, reg, at time.Time, width time.Duration) (*Diagnosis, error) {
	_, name := runtrace.SplitID(d.Target)
	j := cfg.Job(name)
	if r, err := coveringRow(ctx, store, d.Target, at, width); err != nil {
		return nil, err
	} else if r != nil && !r.FinishedAt.IsZero() && !r.FinishedAt.Before(at) {
		d.Row = r
		if !r.ScheduledAt.IsZero() {
			slot := r.ScheduledAt.UTC()
			d.Slot = &slot
		}
		explain(d, r, cfg, p, name)
		return d, nil
	}
	if s == nil {
		d.Branch = "no-row"
		d.Means = "never run: the job was never registered (no agent has loaded it, no `svc-ctl exec --scheduled` has recorded a slot of it)"
		return d, nil
	}
	slots := s.Slots(maxTime(reg, at.Add(-400*24*time.Hour)), at.Add(width-time.Nanosecond), 0)
	if len(slots) == 0 {
		d.Branch = "no-row"
		d.Means = fmt.Sprintf("no slot had come due by then (registered %s)", reg.Format(time.RFC3339))
		d.LookNext = []string{"`svc-ctl schedule next " + j.Name + "`"}
		return d, nil
	}
	slot := slots[len(slots)-1].UTC()
	d.Slot = &slot
	row, err := runForSlot(ctx, store, d.Target, slot)
	if err != nil {
		return nil, err
	}
	if row == nil {
		noRow(d, j, p, slot)
		return d, nil
	}
	d.Row = row
	explain(d, row, cfg, p, j.Name)
	return d, nil
}

// whyRemovedJob answers from the history of a job the config no longer
// has: its newest row, or the one covering at.
func whyRemovedJob(ctx context.Context, store *runtrace.Store, cfg *config.Config, p state.Paths, name string, at time.Time, width time.Duration) (*Diagnosis, error) {
	d := &Diagnosis{Target: runtrace.JobID(name)}
	r, err := coveringRow(ctx, store, d.Target, at, width)
	if err != nil || r == nil {
		return nil, err
	}
	d.Row = r
	if !r.ScheduledAt.IsZero() {
		slot := r.ScheduledAt.UTC()
		d.Slot = &slot
	}
	explain(d, r, cfg, p, name)
	return d, nil
}

// noRow is the answer for a slot past its grace without a row.
func noRow(d *Diagnosis, j *config.Job, p state.Paths, slot time.Time) {
	d.Branch = "no-row"
	d.Failure = true
	d.Means = fmt.Sprintf("never run: the slot %s (%s) has no row", slot.Format(time.RFC3339), slot.In(j.Location).Format("2006-01-02 15:04 MST"))
	d.LookNext = noRowHints(j, p)
}

// pendingSlot notes the newest slot that came due but is still within its
// grace without a row: it may still start, so it is not missing yet.
func pendingSlot(ctx context.Context, store *runtrace.Store, d *Diagnosis, j *config.Job, s *schedule.Schedule, now time.Time) {
	slots := s.Slots(now.Add(-j.Grace), now, 0)
	if len(slots) == 0 {
		return
	}
	slot := slots[len(slots)-1].UTC()
	if row, err := runForSlot(ctx, store, d.Target, slot); err != nil || row != nil {
		return // it has its row (or the ledger cannot say)
	}
	d.Pending = &PendingSlot{Slot: slot, GraceUntil: slot.Add(j.Grace)}
}

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

func runForSlot(ctx context.Context, store *runtrace.Store, job string, slot time.Time) (*runtrace.Run, error) {
	rs, err := store.Runs(ctx, runtrace.Filter{JobID: job, Since: slot.Add(-time.Minute), Limit: 500})
	if err != nil {
		return nil, err
	}
	for i := len(rs) - 1; i >= 0; i-- {
		if rs[i].ScheduledAt.Unix() == slot.Unix() {
			return &rs[i], nil
		}
	}
	return nil, nil
}

func noRowHints(j *config.Job, p state.Paths) []string {
	if j.External {
		return []string{
			"this job is external: did the outside scheduler run `svc-ctl exec " + j.Name + " --scheduled -- ...`? check its own log (cron, launchd, Task Scheduler)",
			"`svc-ctl schedule next " + j.Name + "`: is the schedule read in the zone you meant (" + j.Timezone + ")?",
		}
	}
	return []string{
		"was the agent running then? `svc-ctl runs --job agent` (startups, wakes) and its heartbeat in `svc-ctl status`",
		"`svc-ctl schedule next " + j.Name + "`: is the schedule read in the zone you meant (" + j.Timezone + ")?",
		"catch_up = " + fmt.Sprint(j.CatchUp) + ": with false, slots missed while the agent was down are only reported",
		"the agent's log: `svc-ctl logs agent`",
	}
}

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
