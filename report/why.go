package report

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"svcctl/config"
	"svcctl/runtrace"
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
