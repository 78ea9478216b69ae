package watchdog

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sort"
	"strings"
	"time"

	"svcctl/internal/fsutil"
	"svcctl/probe"
	"svcctl/proc"
	"svcctl/runtrace"
	"svcctl/snapshot"
	"svcctl/state"
)

// restart is steps 1-5 of the cycle. The order is load-bearing: the snapshot
// and the log rotation are on disk before the spawn starts; reversed, the new
// instance's first lines would bury the evidence of why the old one failed.
func (c *cycle) restart(ctx context.Context) {
	now := c.s.now()
	c.st.LastStartTry = now
	c.st.MoveTo(state.Starting, "restart", now)
	c.evidence()
	c.stopOld(ctx)
	child, err := proc.Spawn(proc.SpawnSpec{Argv: c.svc.Command, Dir: c.svc.Dir, Env: c.svc.Env, LogPath: c.svc.Log})
	if err != nil {
		c.res.Detail.Error = err.Error()
		c.startFailed(runtrace.ReasonSpawnError, "spawn-error: "+err.Error())
		return
	}
	c.res.Detail.PID = child.PID
	if err := proc.WritePidFile(c.s.Paths.Pid(c.svc.Name), child.Identity); err != nil {
		c.log.Error("pidfile.write_failed", "err", err)
	}
	if c.s.OnSpawn != nil {
		c.s.OnSpawn(c.svc.Name, child)
	}
	c.log.Info("service.spawned", "service_pid", child.PID, "run_id", c.res.RunID)
	c.awaitHealthy(ctx, child)
}

// evidence writes the snapshot line and rotates runtime.log. A snapshot that
// cannot be written leaves runtime.log in place (the evidence stays there) and
// the restart goes on: a dead service is worse than a missing snapshot line.
func (c *cycle) evidence() {
	e := snapshot.Entry{
		Time:         c.s.now(),
		Service:      c.svc.Name,
		Reason:       c.whyRestart(),
		Phase:        "pre-restart",
		NoProgressMS: -1,
		Transitions:  c.st.Transitions,
		Probes:       map[string]any{"first": c.res.Detail.Probe, "second": c.res.Detail.SecondLook},
		EnvNames:     envNames(c.svc.Env),
		RunID:        c.res.RunID,
	}
	if c.lastGap > 0 {
		e.NoProgressMS = c.lastGap.Milliseconds()
	}
	if id, err := proc.ReadPidFile(c.s.Paths.Pid(c.svc.Name)); err == nil {
		if f, err := proc.FactsOf(id); err == nil {
			e.Process = f
		}
	}
	if err := fsutil.EnsureDir(c.s.Paths.ServiceDir(c.svc.Name)); err != nil {
		c.log.Error("snapshot.failed", "err", err)
	}
	if err := snapshot.Prepare(redactEntry(c.redactor(), e), c.s.Paths.Snapshots(c.svc.Name), c.svc.Log, c.redactor().String); err != nil {
		c.res.Detail.Snapshot = "failed: " + err.Error()
		c.log.Error("snapshot.failed", "err", err)
		return
	}
	c.res.Detail.Snapshot = "written"
}

func (c *cycle) whyRestart() string {
	if c.req.Why != "" {
		return c.req.Why
	}
	if c.req.Manual {
		return "unhealthy at manual start"
	}
	return "unhealthy"
}

func envNames(env map[string]string) []string {
	names := make([]string, 0, len(env))
	for k := range env {
		names = append(names, k)
	}
	sort.Strings(names)
	return names
}

// stopOld stops the instance recorded in the pid file if, and only if, its
// identity still matches: a PID reused by another program is never signalled.
func (c *cycle) stopOld(ctx context.Context) {
	id, err := proc.ReadPidFile(c.s.Paths.Pid(c.svc.Name))
	if errors.Is(err, os.ErrNotExist) {
		c.res.Detail.OldInstance = "none recorded"
		return
	}
	if err != nil {
		c.res.Detail.OldInstance = "pid file unreadable: " + err.Error()
		return
	}
	if c.s.OnReplace != nil {
		c.s.OnReplace(c.svc.Name, id)
	}
	r, err := proc.Stop(ctx, id, c.svc.StopTimeout)
	switch {
	case errors.Is(err, proc.ErrNotOurs):
		c.res.Detail.OldInstance = fmt.Sprintf("pid %d is no longer our instance (reused or replaced): not signalled", id.PID)
	case err != nil:
		c.res.Detail.OldInstance = fmt.Sprintf("stop pid %d: %v", id.PID, err)
		c.log.Warn("service.stop_failed", "service_pid", id.PID, "err", err)
	case r.AlreadyGone:
		c.res.Detail.OldInstance = fmt.Sprintf("pid %d already gone", id.PID)
	default:
		c.res.Detail.OldInstance = fmt.Sprintf("pid %d stopped (%s)", id.PID, r)
		c.log.Info("service.stopped", "service_pid", id.PID, "how", r.String())
	}
}

// awaitHealthy polls the probe until start_timeout. It polls fast at first
// (a service that starts in milliseconds is back in milliseconds) and stops
// early when the new instance exits: no need to wait out the timeout.
func (c *cycle) awaitHealthy(ctx context.Context, child *proc.Child) {
	spawned := time.Now()
	deadline := spawned.Add(c.svc.StartTimeout)
	delay := 5 * time.Millisecond
	specs := probe.HealthSpecs(c.svc.Health, c.svc.Env, c.svc.Dir)
	var last []probe.Result
	for {
		last = probe.RunAll(ctx, clampTimeouts(specs, time.Until(deadline)))
		c.st.LastProbe = last
		if probe.Healthy(last) {
			c.started(child, time.Since(spawned))
			return
		}
		if !time.Now().Before(deadline) || ctx.Err() != nil {
			break
		}
		t := time.NewTimer(min(delay, time.Until(deadline)))
		select {
		case <-child.Done:
			t.Stop()
			c.exitedEarly(child, last)
			return
		case <-ctx.Done():
		case <-t.C:
		}
		delay = min(delay*2, 200*time.Millisecond)
	}
	c.res.Detail.Probe = last
	c.res.Detail.LogTail = c.tail(5)
	if c.interrupted(ctx) {
		c.res.Message += fmt.Sprintf(" (pid %d spawned, not yet healthy)", child.PID)
		return
	}
	msg := fmt.Sprintf("not healthy within start_timeout %s: %s", c.svc.StartTimeout, probe.Summary(last))
	c.startFailed(runtrace.ReasonStartFailed, "start-failed: "+msg)
}

func clampTimeouts(specs []probe.Spec, left time.Duration) []probe.Spec {
	left = max(left, 50*time.Millisecond)
	out := make([]probe.Spec, len(specs))
	for i, s := range specs {
		if s.Timeout > left {
			s.Timeout = left
		}
		out[i] = s
	}
	return out
}

func (c *cycle) exitedEarly(child *proc.Child, last []probe.Result) {
	code := child.ExitCode()
	c.res.Detail.ExitCode = &code
	c.res.Detail.LogTail = c.tail(5)
	msg := fmt.Sprintf("start-failed: new instance exited with code %d before it was healthy", code)
	if n := len(c.res.Detail.LogTail); n > 0 {
		msg += " (last output: " + strings.TrimSpace(c.res.Detail.LogTail[n-1]) + ")"
	}
	if len(last) > 0 && probe.Summary(last) != "" {
		msg += "; health: " + probe.Summary(last)
	}
	c.startFailed(runtrace.ReasonStartFailed, msg)
}

func (c *cycle) tail(n int) []string {
	lines, _ := fsutil.TailLines(c.svc.Log, n, 64<<10)
	return c.redactor().Lines(lines)
}

func (c *cycle) started(child *proc.Child, took time.Duration) {
	now := c.s.now()
	c.st.Failures = 0
	c.st.BackoffUntil = time.Time{}
	c.st.GivenUpAt = time.Time{}
	c.st.LastHealthy = now
	c.st.LastRestart = now
	c.st.MoveTo(state.Healthy, "started", now)
	c.res.Detail.HealthyAfterMS = took.Milliseconds()
	c.set(runtrace.OutcomeOK, runtrace.ReasonStarted,
		fmt.Sprintf("started (pid %d, healthy after %s)", child.PID, took.Round(time.Millisecond)))
}

// startFailed counts a failed start: backoff doubles, and after give_up_after
// in a row the service is given up (still probed, retried now and then).
func (c *cycle) startFailed(reason runtrace.Reason, msg string) {
	now := c.s.now()
	c.st.Failures++
	r := c.svc.Restart
	if r.GiveUpAfter > 0 && c.st.Failures >= r.GiveUpAfter {
		if c.st.State != state.GivenUp {
			c.st.GivenUpAt = now
		}
		c.st.MoveTo(state.GivenUp, fmt.Sprintf("%d failed starts in a row", c.st.Failures), now)
		msg += fmt.Sprintf(" (given up after %d failed starts)", c.st.Failures)
	} else {
		c.st.BackoffUntil = now.Add(backoffFor(c.st.Failures, r.BackoffInitial, r.BackoffMax))
		until := c.st.BackoffUntil
		c.res.Detail.BackoffUntil = &until
		c.st.MoveTo(state.Backoff, string(reason), now)
	}
	c.set(runtrace.OutcomeFailed, reason, msg)
}

// backoffFor is backoff_initial doubled for every further consecutive
// failure, capped at backoff_max.
func backoffFor(failures int, initial, max time.Duration) time.Duration {
	if failures <= 0 || initial <= 0 {
		return 0
	}
	d := initial
	for i := 1; i < failures; i++ {
		d *= 2
		if d >= max || d <= 0 {
			return max
		}
	}
	if d > max {
		return max
	}
	return d
}
