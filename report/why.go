package report

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"svcctl/config"
	"svcctl/runtrace"
	"svcctl/schedule"
	"svcctl/snapshot"
	"svcctl/state"
	"svcctl/watchdog"
)

// Diagnosis is the four-way answer of `svc-ctl why` (DESIGN.md): for the
// slot or cycle in question, no row / skipped / failed / ok, what it means,
// and where to look next.
type Diagnosis struct {
	Target   string          `json:"target"`
	Slot     *time.Time      `json:"slot,omitempty"`
	Row      *runtrace.Run   `json:"row,omitempty"`
	Branch   string          `json:"branch"` // no-row | skipped | failed | ok | running
	Means    string          `json:"means"`
	LookNext []string        `json:"look_next"`
	Snapshot *snapshot.Entry `json:"snapshot,omitempty"`
	// Pending is a slot that came due but is still within its grace with
	// no row: not missing yet.
	Pending *PendingSlot `json:"pending,omitempty"`
}

// PendingSlot is a slot within its grace.
type PendingSlot struct {
	Slot       time.Time `json:"slot"`
	GraceUntil time.Time `json:"grace_until"`
}

// Why diagnoses target ("proxy", "watchdog:proxy", "daily-pull" or
// "job:daily-pull") at the latest slot or cycle, or the one at/before at.
func Why(ctx context.Context, store *runtrace.Store, cfg *config.Config, target string, at, now time.Time) (*Diagnosis, error) {
	kind, name := splitTarget(cfg, target)
	p := state.PathsOf(cfg)
	switch kind {
	case runtrace.KindWatchdog:
		return whyService(ctx, store, cfg, p, name, at)
	case runtrace.KindJob:
		return whyJob(ctx, store, cfg, p, name, at, now)
	}
	return nil, fmt.Errorf("%w: %q (a service, a job, watchdog:NAME or job:NAME)", watchdog.ErrUnknownName, target)
}

func splitTarget(cfg *config.Config, t string) (kind, name string) {
	if strings.Contains(t, ":") {
		k, n := runtrace.SplitID(t)
		if (k == runtrace.KindWatchdog && cfg.Service(n) != nil) || (k == runtrace.KindJob && cfg.Job(n) != nil) {
			return k, n
		}
		return "", ""
	}
	if cfg.Service(t) != nil {
		return runtrace.KindWatchdog, t
	}
	if cfg.Job(t) != nil {
		return runtrace.KindJob, t
	}
	return "", ""
}

func whyService(ctx context.Context, store *runtrace.Store, cfg *config.Config, p state.Paths, name string, at time.Time) (*Diagnosis, error) {
	d := &Diagnosis{Target: runtrace.WatchdogID(name)}
	row, err := latestVerdict(ctx, store, d.Target, at)
	if err != nil {
		return nil, err
	}
	if row == nil {
		d.Branch = "no-row"
		d.Means = "never triggered: no cycle of " + name + " is recorded"
		d.LookNext = []string{
			"is the agent running? `svc-ctl status` (heartbeat) and `svc-ctl verify`",
			"the last cycle result, kept even when the ledger is unavailable: " + p.WatchdogLast(),
			"the agent's log: " + p.AgentLog(),
		}
		return d, nil
	}
	d.Row = row
	explain(d, row, cfg, p, name)
	if row.Reason == runtrace.ReasonStartFailed || row.Reason == runtrace.ReasonSpawnError {
		d.Snapshot = snapshotFor(p.Snapshots(name), row.ID)
	}
	return d, nil
}

// latestVerdict is the newest finished cycle at or before at (zero: now): a
// cycle still in progress has no verdict yet, the one before it does.
func latestVerdict(ctx context.Context, store *runtrace.Store, job string, at time.Time) (*runtrace.Run, error) {
	f := runtrace.Filter{JobID: job, Limit: 5}
	if !at.IsZero() {
		f.Until = at.Add(time.Millisecond)
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

// whyJob answers for a job. With at, the slot at or before it. Without,
// the newest thing that happened: the newest row (a manual run or an exec
// counts), unless a slot that came due after it, past its grace, has no
// row: then that missing slot is the news. A slot still within its grace
// is not missing yet, and the answer says so.
func whyJob(ctx context.Context, store *runtrace.Store, cfg *config.Config, p state.Paths, name string, at, now time.Time) (*Diagnosis, error) {
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
		return whyJobAt(ctx, store, cfg, p, d, s, reg, at)
	}
	newest, err := latestVerdict(ctx, store, d.Target, time.Time{})
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
			d.Means = "never triggered: the job was never registered (no agent has loaded it, no `svc-ctl exec` has recorded it)"
			d.LookNext = []string{"is the agent running with this config? `svc-ctl status --config " + cfg.Path + "`"}
		default:
			d.Means = fmt.Sprintf("no slot has come due yet (registered %s; next slot %s)", reg.Format(time.RFC3339), s.Next(now).Format(time.RFC3339))
			d.LookNext = []string{"`svc-ctl schedule next " + name + "`"}
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

// whyJobAt answers for the slot at or before at.
func whyJobAt(ctx context.Context, store *runtrace.Store, cfg *config.Config, p state.Paths, d *Diagnosis, s *schedule.Schedule, reg, at time.Time) (*Diagnosis, error) {
	_, name := runtrace.SplitID(d.Target)
	j := cfg.Job(name)
	if s == nil {
		d.Branch = "no-row"
		d.Means = "never triggered: the job was never registered (no agent has loaded it, no `svc-ctl exec --scheduled` has recorded a slot of it)"
		return d, nil
	}
	slots := s.Slots(maxTime(reg, at.Add(-400*24*time.Hour)), at, 0)
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

// noRow is the answer for a slot past its grace without a row.
func noRow(d *Diagnosis, j *config.Job, p state.Paths, slot time.Time) {
	d.Branch = "no-row"
	d.Means = fmt.Sprintf("never triggered: the slot %s (%s) has no row", slot.Format(time.RFC3339), slot.In(j.Location).Format("2006-01-02 15:04 MST"))
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
		"the agent's log: " + p.AgentLog(),
	}
}

// explain fills the branch, meaning and hints from a row.
func explain(d *Diagnosis, r *runtrace.Run, cfg *config.Config, p state.Paths, name string) {
	d.Branch = string(r.Outcome)
	switch {
	case r.Outcome == runtrace.OutcomeRunning:
		d.Means = "still running (or its process died and the reaper has not judged it yet)"
		d.LookNext = []string{"wait for it; a row left running past its timeout becomes failed/abandoned at the next agent start"}
	case r.Outcome == runtrace.OutcomeOK:
		d.Means = "our side completed (" + string(r.Reason) + ")"
		d.LookNext = okHints(r, cfg, p, name)
	case r.Outcome == runtrace.OutcomeSkipped && runtrace.JobReported(r.Reason):
		d.Means = "triggered, and the job itself decided to skip: " + string(r.Reason) + " (its own word, written to SVCCTL_RESULT)"
		d.LookNext = jobReportedHints(r, p, name)
	case r.Outcome == runtrace.OutcomeFailed && runtrace.JobReported(r.Reason):
		d.Means = "the chain broke midway, as the job itself reported: " + string(r.Reason) + " (its own word, written to SVCCTL_RESULT)"
		d.LookNext = jobReportedHints(r, p, name)
	case r.Outcome == runtrace.OutcomeSkipped:
		d.Means = "triggered, but a precondition said no: " + string(r.Reason)
		d.LookNext = skippedHints(r, cfg, p, name)
	case r.Outcome == runtrace.OutcomeFailed:
		d.Means = "the chain broke midway: " + string(r.Reason)
		d.LookNext = failedHints(r, cfg, p, name)
	}
	if msg := detailString(r.Detail, "message", "why", "error", "result_error"); msg != "" {
		d.LookNext = append([]string{"detail: " + msg}, d.LookNext...)
	}
}

func detailString(raw json.RawMessage, keys ...string) string {
	var m map[string]any
	if json.Unmarshal(raw, &m) != nil {
		return ""
	}
	for _, k := range keys {
		if s, ok := m[k].(string); ok && s != "" {
			return s
		}
	}
	return ""
}

func okHints(r *runtrace.Run, cfg *config.Config, p state.Paths, name string) []string {
	switch r.Reason {
	case runtrace.ReasonStarted:
		return []string{"it was down and is running again; why it was down: `svc-ctl snapshot " + name + "` and " +
			prevLog(cfg, p, name)}
	case runtrace.ReasonAlreadyRunning:
		return []string{"the health check passed: if the service still misbehaves, the check does not test what matters (health.http, expect_body)"}
	case runtrace.ReasonResumed:
		return []string{"the host slept and woke; every service cycled and the jobs caught up"}
	}
	return []string{"delivery and reconciliation downstream: did the result arrive where it should?"}
}

// jobReportedHints: the verdict is the job's own; what it wrote and what it
// printed say more than svc-ctl can.
func jobReportedHints(r *runtrace.Run, p state.Paths, name string) []string {
	hints := []string{"the job's own words are in the detail's why; its output: " + p.JobLog(name) + " (`svc-ctl logs " + name + "`)"}
	var d struct {
		ExitCode *int `json:"exit_code"`
	}
	if json.Unmarshal(r.Detail, &d) == nil && d.ExitCode != nil {
		hints = append(hints, fmt.Sprintf("its command exited with code %d; the reason is the job's, not svc-ctl's", *d.ExitCode))
	}
	if r.Outcome == runtrace.OutcomeSkipped {
		hints = append(hints, "a skip is not retried: the next slot runs as scheduled (`svc-ctl schedule next "+name+"`)")
	}
	return hints
}

func skippedHints(r *runtrace.Run, cfg *config.Config, p state.Paths, name string) []string {
	switch r.Reason {
	case runtrace.ReasonPaused:
		return []string{"the pause sentinel (who, why, until): " + p.Paused(name) + " or " + p.JobPaused(name), "`svc-ctl resume " + name + "` to end it"}
	case runtrace.ReasonLockHeld:
		return []string{"another svc-ctl process held the service lock (a manual start, the backstop): usually harmless, the next cycle runs"}
	case runtrace.ReasonGivenUp:
		return []string{"the failed starts before it: `svc-ctl runs --job watchdog:" + name + " --outcome failed`", "`svc-ctl snapshot " + name + "` and " + prevLog(cfg, p, name), "fix the cause, then `svc-ctl resume " + name + "`"}
	case runtrace.ReasonBackoff:
		return []string{"the failed start before it: `svc-ctl runs --job watchdog:" + name + " -n 5`"}
	case runtrace.ReasonOverlap:
		return []string{"the previous run was still going: `svc-ctl runs --job job:" + name + " -n 5`; is the timeout longer than the interval?"}
	case runtrace.ReasonDraining:
		return []string{"the agent was stopping: `svc-ctl runs --job agent`"}
	}
	return nil
}

func failedHints(r *runtrace.Run, cfg *config.Config, p state.Paths, name string) []string {
	switch r.Reason {
	case runtrace.ReasonStartFailed:
		return []string{"the snapshot written before this restart: `svc-ctl snapshot " + name + "` (" + p.Snapshots(name) + ")",
			"what the old instance wrote: " + prevLog(cfg, p, name),
			"what the new instance wrote: " + runtimeLog(cfg, p, name)}
	case runtrace.ReasonSpawnError:
		return []string{"the command could not be started: check the path and permissions of its argv[0] in " + cfg.Path}
	case runtrace.ReasonExitNonzero:
		return []string{"exit code and output tail are in the row's detail; full output: " + p.JobLog(name),
			"proxy settings (HTTPS_PROXY in the job's env) and the downstream it calls"}
	case runtrace.ReasonTimeout:
		return []string{"it ran past its timeout and its process tree was killed: " + p.JobLog(name)}
	case runtrace.ReasonDependencyFailed:
		return []string{"the dependency named in the detail is down: restarting or re-running cannot fix an upstream"}
	case runtrace.ReasonAbandoned:
		return []string{"the agent (or the process) running it died mid-run: killed or crashed? " + p.CrashLog() + ", " + p.AgentLog() +
			"; the detail's `orphan` says whether the job's command outlived it and was stopped"}
	case runtrace.ReasonInterrupted:
		return []string{"the agent stopped while this ran, past drain_timeout: `svc-ctl runs --job agent`"}
	case runtrace.ReasonPanic:
		return []string{"svc-ctl itself panicked: the stack is in " + p.AgentLog() + " (search panic.recovered); please report it"}
	case runtrace.ReasonRowsLost:
		return []string{"the ledger could not be written (the cause is in the row's detail) for longer than the agent could keep rows: " +
			"the runs of that time are missing; docs/runbook.md, \"the disk is full\""}
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
