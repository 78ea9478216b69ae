package reaper

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"svcctl/config"
	"svcctl/proc"
	"svcctl/runtrace"
	"svcctl/state"
)

// heartbeatsStale is how many missed heartbeats prove an agent instance gone.
const heartbeatsStale = 3

// Store is the ledger's part the reaper uses (*runtrace.Store).
type Store interface {
	Heartbeats(ctx context.Context) ([]runtrace.Heartbeat, error)
	Reap(ctx context.Context, p runtrace.ReapPolicy) (int, error)
	PruneHeartbeats(ctx context.Context, before time.Time) (int, error)
	Prune(ctx context.Context, before time.Time) (int, error)
}

// Reaper judges the rows of the agent's ledger that cannot be finished any
// more, and prunes the old ones.
type Reaper struct {
	Store Store
	// Flush writes what waits in the agent's queue of rows; false (with how
	// many still wait) when it could not. Nil: nothing waits.
	Flush  func(ctx context.Context) (ok bool, pending int)
	Log    *slog.Logger
	Config func() *config.Config // the config in force
	Paths  state.Paths
	Self   string // this agent's instance: its own runs are never abandoned
	// Busy are the job ids with a run in flight in this process: their rows
	// are not the reaper's to judge by the clock.
	Busy func() map[string]bool
}

// Reap finishes as failed/abandoned the runs that cannot finish any more: at
// once those of agent instances that are gone (heartbeat deleted or older
// than 3 heartbeats), the others past started_at + their timeout; then it
// prunes the heartbeats of the gone instances.
func (r *Reaper) Reap(ctx context.Context) {
	// A row whose verdict waits in the queue must not be judged abandoned:
	// reap only once everything waiting is written.
	if r.Flush != nil {
		if ok, pending := r.Flush(ctx); !ok {
			r.Log.Info("ledger.reap_deferred", "pending_rows", pending)
			return
		}
	}
	now := time.Now().UTC()
	stale := heartbeatsStale * r.Config().Agent.Heartbeat
	busy := r.Busy()
	n, err := r.Store.Reap(ctx, runtrace.ReapPolicy{Now: now, Self: r.Self, Stale: stale, Timeout: r.runTimeout,
		Skip: func(jobID string) bool { return busy[jobID] || r.paused(jobID) }, Orphan: r.stopOrphan})
	if err != nil {
		r.Log.Warn("ledger.reap_failed", "err", err)
	} else if n > 0 {
		r.Log.Warn("ledger.reaped", "abandoned", n)
	}
	if n, err := r.Store.PruneHeartbeats(ctx, now.Add(-stale)); err != nil {
		r.Log.Warn("ledger.heartbeats_prune_failed", "err", err)
	} else if n > 0 {
		r.Log.Info("ledger.heartbeats_pruned", "instances", n, "stale_after", stale.String())
	}
}

// Prune deletes the runs older than retention.
func (r *Reaper) Prune(ctx context.Context) {
	before := time.Now().Add(-r.Config().Agent.Retention).UTC()
	if n, err := r.Store.Prune(ctx, before); err != nil {
		r.Log.Warn("ledger.prune_failed", "err", err)
	} else if n > 0 {
		r.Log.Info("ledger.pruned", "rows", n, "before", before)
	}
}

// runTimeout is how long a run of jobID may take before a `running` row is
// judged abandoned (the store applies a floor of 60 s).
func (r *Reaper) runTimeout(jobID string) time.Duration {
	kind, name := runtrace.SplitID(jobID)
	switch kind {
	case runtrace.KindWatchdog:
		if s := r.Config().Service(name); s != nil {
			return s.StartTimeout + s.StopTimeout + s.Health.Confirm + 2*s.Health.Timeout
		}
	case runtrace.KindJob:
		if j := r.Config().Job(name); j != nil {
			return j.Timeout
		}
	}
	return 0
}

// paused reports whether jobID's service or job is paused now: its rows
// are not judged by the clock.
func (r *Reaper) paused(jobID string) bool {
	kind, name := runtrace.SplitID(jobID)
	var path string
	switch kind {
	case runtrace.KindWatchdog:
		path = r.Paths.Paused(name)
	case runtrace.KindJob:
		path = r.Paths.JobPaused(name)
	default:
		return false
	}
	p, _ := state.ReadPause(path)
	return p.Active(time.Now())
}

// orphanStopTimeout is how long an orphaned job run is given to end on
// SIGTERM before it is killed: as long as a job at its timeout (killTree).
const orphanStopTimeout = 2 * time.Second

// stopOrphan is the reaper's Orphan: a job run whose agent is gone (killed
// or crashed: a SIGKILLed agent takes nothing with it) may still be running,
// reparented to init. Its running row names its process (jobs noteProcess); when
// that process is proven to be the same instance (pid, start stamp, boot:
// proc.StopTree never signals a reused PID), its tree is stopped, so the
// next slot does not run a second copy beside it, and the row says what was
// done.
func (r *Reaper) stopOrphan(jobID string, detail json.RawMessage, why map[string]any) {
	if kind, _ := runtrace.SplitID(jobID); kind != runtrace.KindJob {
		return
	}
	var d struct {
		Process *proc.Instance `json:"process"`
	}
	if err := json.Unmarshal(detail, &d); err != nil || d.Process == nil || d.Process.PID <= 0 {
		return
	}
	inst := *d.Process
	ctx, cancel := context.WithTimeout(context.Background(), orphanStopTimeout+15*time.Second)
	defer cancel()
	res, err := proc.StopTree(ctx, inst, orphanStopTimeout)
	var did string
	switch {
	case errors.Is(err, proc.ErrNotOurs):
		did = fmt.Sprintf("its process (pid %d) has ended: that pid is now another process, which was not signalled", inst.PID)
	case err != nil:
		did = fmt.Sprintf("could not stop its orphaned process (pid %d): %v", inst.PID, err)
		r.Log.Error("job.orphan_stop_failed", "job", jobID, "pid", inst.PID, "err", err,
			"hint", "stop that process by hand: the next run may run beside it")
	case res.AlreadyGone:
		did = fmt.Sprintf("its process (pid %d) had already ended", inst.PID)
	default:
		did = fmt.Sprintf("killed the orphaned run (pid %d; %s)", inst.PID, res)
		why["orphan_stop"] = res
		r.Log.Warn("job.orphan_stopped", "job", jobID, "pid", inst.PID, "how", res.String())
	}
	why["process"] = inst
	why["orphan"] = did
	if w, ok := why["why"].(string); ok {
		why["why"] = w + "; " + did
	}
}
