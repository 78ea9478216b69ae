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
	c.res.Detail.Cause = c.cause()
	c.replacing = c.restartBy() // before the stop: it judges the instance being replaced
	c.evidence(ctx)
	left := c.stopOld(ctx)
	if c.crashLoop(now) {
		return // nothing is started: the transition is unhealthy -> backoff (or given-up)
	}
	c.st.LastStartTry = now
	c.st.MoveTo(state.Starting, "restart", now)
	if c.oldLivesOn(left) || c.portTaken(ctx) {
		return
	}
	c.answeredBefore = c.answersWithoutUs(ctx)
	child, err := c.spawn()
	if err != nil {
		c.res.Detail.Error = err.Error()
		c.startFailed(runtrace.ReasonSpawnError, "spawn-error: "+err.Error())
		return
	}
	c.res.Detail.PID = child.PID
	c.res.Detail.Ownership = child.Notes
	c.s.savePid(c.svc.Name, child.Instance)
	c.st.InstanceHealthyAt = time.Time{} // a new instance: healthy once its check passes
	if c.s.OnSpawn != nil {
		c.s.OnSpawn(c.svc.Name, child)
	}
	c.log.Info("service.spawned", "service_pid", child.PID) // c.log names the run_id once begun
	c.awaitHealthy(ctx, child)
}

// evidence writes the snapshot line and rotates runtime.log. A snapshot that
// cannot be written leaves runtime.log in place (the evidence stays there) and
// the restart goes on: a dead service is worse than a missing snapshot line.
func (c *cycle) evidence(ctx context.Context) {
	e := snapshot.Entry{
		Time:         c.s.now(),
		Service:      c.svc.Name,
		Reason:       c.res.Detail.Cause,
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
	var tree *proc.TreeFacts
	var since time.Time // the recorded instance's start: its output since then is the evidence
	if inst, err := c.s.record(c.svc.Name); err == nil {
		since = inst.StartedAt
		// An instance seen ended whole has no process to describe (what
		// TreeFactsOf would find, one walk later).
		if !c.ended(inst) {
			if t, rec, err := c.s.lookAt(c.svc, inst, proc.Scan, true); err == nil {
				c.noteHung(t)
				e.Hung = c.res.Detail.Hung
				if tf, err := proc.FactsOfTree(rec, t, true); err == nil {
					tree, e.Process = tf, tf
				}
			}
		}
	}
	if addr, port, ok := healthPort(c.svc.Health); ok && PortHeld(ctx, addr) {
		h := holderOf(ctx, port, tree)
		c.res.Detail.PortHolder, e.PortHolder = h, h
	}
	if err := fsutil.EnsureDir(c.s.Paths.ServiceDir(c.svc.Name)); err != nil {
		c.log.Error("snapshot.failed", "err", err)
	}
	l, lerr := c.s.pinnedLog(c.svc)
	var err error
	if lerr != nil {
		// No pinned log to read or rotate: the line says why its tail is
		// empty, and the spawn below refuses the log the same way.
		e.LogTailError = lerr.Error()
		if err = snapshot.Append(c.s.Paths.Snapshots(c.svc.Name), redactEntry(c.redactor(), e)); err == nil {
			err = fmt.Errorf("log not rotated: %w", lerr)
		}
	} else {
		// The log lock: a size rotation (CapLog) must not copy and truncate
		// the log while it is read and renamed to runtime.prev.log here.
		unlock := c.s.lockLog(c.svc.Name)
		err = snapshot.PrepareSince(redactEntry(c.redactor(), e), c.s.Paths.Snapshots(c.svc.Name), l, since, c.redactor().String)
		unlock()
	}
	if err != nil {
		c.res.Detail.Snapshot = "failed: " + err.Error()
		c.log.Error("snapshot.failed", "err", err)
		return
	}
	c.res.Detail.Snapshot = "written"
}

// ended reports whether the request proves every process of inst gone
// (Request.Ended names this very instance).
func (c *cycle) ended(inst proc.Instance) bool {
	return c.req.Ended != nil && c.req.Ended.Same(inst.Identity)
}

func envNames(env map[string]string) []string {
	names := make([]string, 0, len(env))
	for k := range env {
		names = append(names, k)
	}
	sort.Strings(names)
	return names
}

// stopOld stops every process of the recorded instance's tree as the
// service says (stop_command, stop_signal, kill_mode, stop_timeout), each
// only after its identity is proven: a PID reused by another program is
// never signalled, nor is a process nothing proves a member. Then it looks
// again, with every proof, and returns the members that still live.
func (c *cycle) stopOld(ctx context.Context) []proc.Member {
	inst, err := c.s.record(c.svc.Name)
	if errors.Is(err, os.ErrNotExist) {
		c.res.Detail.OldInstance = "none recorded"
		return nil
	}
	if err != nil {
		c.res.Detail.OldInstance = "pid file unreadable: " + err.Error()
		return nil
	}
	if c.s.OnReplace != nil {
		c.s.OnReplace(c.svc.Name, inst.Identity)
	}
	var r proc.StopResult
	if c.ended(inst) {
		r = proc.Released(inst)
	} else {
		r, err = proc.StopWith(ctx, inst, stopOptions(c.svc))
	}
	switch {
	case errors.Is(err, proc.ErrNotOurs):
		c.res.Detail.OldInstance = fmt.Sprintf("pid %d is no longer our instance (reused after the instance ended): not signalled", inst.PID)
	case err != nil:
		c.res.Detail.OldInstance = fmt.Sprintf("stop pid %d: %v", inst.PID, err)
		c.log.Warn("service.stop_failed", "service_pid", inst.PID, "err", err)
	case r.AlreadyGone:
		c.res.Detail.OldInstance = fmt.Sprintf("pid %d: no process of the instance left", inst.PID)
	default:
		c.res.Detail.OldStop = &r
		c.res.Detail.OldInstance = fmt.Sprintf("pid %d stopped (%s)", inst.PID, r)
		c.log.Info("service.stopped", "service_pid", inst.PID, "how", r.String())
	}
	if c.res.Detail.PortHolder != nil && c.res.Detail.PortHolder.Ours && r.AlreadyGone {
		c.res.Detail.PortHolder.Ours = false // it was not stopped with the tree after all
	}
	if c.ended(inst) || errors.Is(err, proc.ErrNotOurs) {
		return nil
	}
	// Look again: a stop is done only when no member lives.
	t, err := proc.Members(r.Record())
	if err != nil {
		return nil
	}
	return t.Members
}

// oldLivesOn ends the cycle as a failed start, spawning nothing, when a
// member of the old instance outlived its stop (stuck in the kernel, or a
// signal refused): a new instance beside it would fight it for its port,
// its lock files, its data, and the row would say it was replaced.
func (c *cycle) oldLivesOn(left []proc.Member) bool {
	if len(left) == 0 {
		return false
	}
	c.res.Detail.OldLeft = describeMembers(left)
	c.res.Detail.LogTail = c.tail(5)
	msg := fmt.Sprintf("start-failed: the old instance did not end: %s still %s after its stop; no new instance spawned; "+
		"see `svc-ctl status %s`", strings.Join(c.res.Detail.OldLeft, ", "), pluralWord(len(left), "runs", "run"), c.svc.Name)
	c.startFailed(runtrace.ReasonStartFailed, msg)
	c.log.Warn("service.old_lives_on", "left", c.res.Detail.OldLeft)
	return true
}

// answersWithoutUs reports, for a health check that is not a local port
// (exec, a remote URL), whether it passes now, with no process of the old
// instance left and the new one not started: then something else answers
// it (another instance of the program, started outside svc-ctl), and a
// passing check proves nothing about the new instance.
func (c *cycle) answersWithoutUs(ctx context.Context) bool {
	if _, _, local := healthPort(c.svc.Health); local || !probe.Healthy(c.res.Detail.Probe) {
		return false
	}
	rs := probe.RunAll(ctx, c.stamp(probe.HealthSpecs(c.svc.Health, c.svc.Env, c.svc.Dir, c.svc.SearchPath)))
	if !probe.Healthy(rs) {
		return false
	}
	c.res.Detail.AnsweredBefore = "the health check passed with no process of the old instance left: the new instance is judged by its leader"
	return true
}

// noteHung names, in the detail, the members stopped by a signal (a hung
// instance): the snapshot and the row say which one hung.
func (c *cycle) noteHung(t proc.Tree) {
	if hung := t.Stopped(); len(hung) > 0 {
		c.res.Detail.Hung = describeMembers(hung)
	}
}

// describeMembers names processes for people: "pid 4242 (/usr/bin/postgres, stopped)".
func describeMembers(ms []proc.Member) []string {
	out := make([]string, 0, len(ms))
	for _, m := range ms {
		s := fmt.Sprintf("pid %d", m.PID)
		var what []string
		if m.Exe != "" {
			what = append(what, m.Exe)
		}
		if m.Stopped {
			what = append(what, "stopped")
		}
		if len(what) > 0 {
			s += " (" + strings.Join(what, ", ") + ")"
		}
		out = append(out, s)
	}
	return out
}

func pluralWord(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// portTaken is true when, with the old instance stopped, the health port
// is still held: by a process outside this service's tree (a daemon that
// left its session, another program). A new instance could not bind it,
// and the stranger may answer the health check in its place, so no spawn:
// the holder is named, never signalled.
func (c *cycle) portTaken(ctx context.Context) bool {
	addr, port, ok := healthPort(c.svc.Health)
	if !ok || !PortHeld(ctx, addr) {
		return false
	}
	h := holderOf(ctx, port, nil)
	c.res.Detail.PortHolder = h
	c.res.Detail.LogTail = c.tail(5)
	msg := "start-failed: " + h.String() + ": not signalled, no new instance spawned " +
		"(health: " + probe.Summary(c.lastProbe()) + "); stop it (or, if it is this service's daemon that nothing proves a member, " +
		"set pid_file), then `svc-ctl start " + c.svc.Name + "`"
	if c.notOurs != nil {
		leader := int32(0)
		if inst, err := c.s.Instance(c.svc.Name); err == nil {
			leader = inst.PID
		}
		msg = c.strangerMessage(h, leader)
	}
	c.startFailed(runtrace.ReasonStartFailed, msg)
	c.log.Warn("service.port_taken", "port", port, "holder_pid", h.PID, "holder_exe", h.Exe)
	return true
}
