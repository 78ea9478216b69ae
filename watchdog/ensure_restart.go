package watchdog

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"svcctl/config"
	"svcctl/internal/fsutil"
	"svcctl/internal/runas"
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
	c.stopOld(ctx)
	if c.crashLoop(now) {
		return // nothing is started: the transition is unhealthy -> backoff (or given-up)
	}
	c.st.LastStartTry = now
	c.st.MoveTo(state.Starting, "restart", now)
	if c.portTaken(ctx) {
		return
	}
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
	if inst, err := c.s.Instance(c.svc.Name); err == nil {
		since = inst.StartedAt
		// An instance seen ended whole has no process to describe (what
		// TreeFactsOf would find, one walk later).
		if !c.ended(inst) {
			if tf, err := proc.TreeFactsOf(inst, true); err == nil {
				tree, e.Process = tf, tf
			}
		}
	}
	if addr, port, ok := healthPort(c.svc.Health); ok && portHeld(ctx, addr) {
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

// stopOld stops every process of the recorded instance's tree, each only
// after its identity is proven: a PID reused by another program is never
// signalled, nor is a process that left the tree.
func (c *cycle) stopOld(ctx context.Context) {
	inst, err := c.s.Instance(c.svc.Name)
	if errors.Is(err, os.ErrNotExist) {
		c.res.Detail.OldInstance = "none recorded"
		return
	}
	if err != nil {
		c.res.Detail.OldInstance = "pid file unreadable: " + err.Error()
		return
	}
	if c.s.OnReplace != nil {
		c.s.OnReplace(c.svc.Name, inst.Identity)
	}
	var r proc.StopResult
	if c.ended(inst) {
		r = proc.Released(inst)
	} else {
		r, err = proc.StopTree(ctx, inst, c.svc.StopTimeout)
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
}

// portTaken is true when, with the old instance stopped, the health port
// is still held: by a process outside this service's tree (a daemon that
// left its session, another program). A new instance could not bind it,
// and the stranger may answer the health check in its place, so no spawn:
// the holder is named, never signalled.
func (c *cycle) portTaken(ctx context.Context) bool {
	addr, port, ok := healthPort(c.svc.Health)
	if !ok || !portHeld(ctx, addr) {
		return false
	}
	h := holderOf(ctx, port, nil)
	c.res.Detail.PortHolder = h
	c.res.Detail.LogTail = c.tail(5)
	msg := "start-failed: " + h.String() + ": not signalled, no new instance spawned " +
		"(health: " + probe.Summary(c.lastProbe()) + "); stop it, or run the agent under the unit svc-ctl installs " +
		"(a cgroup keeps daemons owned), then `svc-ctl start " + c.svc.Name + "`"
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

// awaitHealthy polls the probe until start_timeout. It polls fast at first
// (a service that starts in milliseconds is back in milliseconds) and stops
// early when the new instance fails: no need to wait out the timeout. A
// leader that exits 0 is a launcher (it forked the server, maybe as a
// daemon): that is not a failed start, and the wait goes on.
func (c *cycle) awaitHealthy(ctx context.Context, child *proc.Child) {
	spawned := time.Now()
	deadline := spawned.Add(c.svc.StartTimeout)
	// 1, 2, 4, 8 ms...: a refused connection costs microseconds, and a
	// service that starts in 4 ms should not wait for a 5 ms step to be seen
	// (the SIGKILL -> 200 figure against PM2, docs/benchmarks.md).
	delay := time.Millisecond
	specs := c.stamp(probe.HealthSpecs(c.svc.Health, c.svc.Env, c.svc.Dir, c.svc.SearchPath))
	leader := child.Done
	var last []probe.Result
	for {
		last = probe.RunAll(ctx, clampTimeouts(specs, time.Until(deadline)))
		c.st.LastProbe, c.st.LastProbeAt = last, c.s.now()
		if probe.Healthy(last) {
			c.started(ctx, child, time.Since(spawned))
			return
		}
		if !time.Now().Before(deadline) || ctx.Err() != nil {
			break
		}
		t := time.NewTimer(min(delay, time.Until(deadline)))
		select {
		case <-leader:
			if child.ExitCode() == 0 {
				// A launcher's job is to exit 0: what it started (in its
				// tree, or a daemon that left it) may still come up.
				leader = nil
				break
			}
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
	if ctx.Err() != nil {
		c.interrupt(ctx)
		c.res.Message += fmt.Sprintf(" (pid %d spawned, not yet healthy)", child.PID)
		return
	}
	msg := fmt.Sprintf("not healthy within start_timeout %s: %s", c.svc.StartTimeout, probe.Summary(last))
	if note := c.instanceNote(ctx, child); note != "" {
		c.res.Detail.Instance = note
		msg += " (" + note + ")"
	}
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

// exitedEarly says how the new instance ended, truly: "exited with code 3",
// "killed by SIGKILL" (never "code -1").
func (c *cycle) exitedEarly(child *proc.Child, last []probe.Result) {
	if code := child.ExitCode(); code >= 0 {
		c.res.Detail.ExitCode = &code
	}
	c.res.Detail.Exit = child.Exit()
	c.res.Detail.LogTail = c.tail(5)
	msg := fmt.Sprintf("start-failed: new instance %s before it was healthy", child.Exit())
	if n := len(c.res.Detail.LogTail); n > 0 {
		msg += " (last output: " + strings.TrimSpace(c.res.Detail.LogTail[n-1]) + ")"
	}
	if len(last) > 0 && probe.Summary(last) != "" {
		msg += "; health: " + probe.Summary(last)
	}
	c.startFailed(runtrace.ReasonStartFailed, msg)
}

func (c *cycle) tail(n int) []string {
	l, err := c.s.pinnedLog(c.svc)
	if err != nil {
		return nil
	}
	lines, _ := fsutil.TailLinesIn(l.Dir, l.Name, n, 64<<10, l.Owners)
	return c.redactor().Lines(lines)
}

func (c *cycle) started(ctx context.Context, child *proc.Child, took time.Duration) {
	now := c.s.now()
	c.countStart(now)
	c.st.BackoffUntil = time.Time{}
	c.st.GivenUpAt = time.Time{}
	c.st.AnsweredBy = ""
	c.st.LastHealthy = now
	c.st.InstanceHealthyAt = now
	c.st.LastRestart = now
	c.st.MoveTo(state.Healthy, "started", now)
	c.res.Detail.HealthyAfterMS = took.Milliseconds()
	verb, reason := "started", runtrace.ReasonStarted
	if c.req.Replace {
		verb, reason = "restarted", runtrace.ReasonRestarted
	}
	// Only a start that came up counts as a restart: one that failed is
	// counted by its failure.
	c.res.Detail.RestartBy = c.replacing
	how := fmt.Sprintf("pid %d, healthy after %s", child.PID, took.Round(time.Millisecond))
	before := c.res.Detail.PortHolder // the old instance's, from the evidence step
	if note := c.instanceNote(ctx, child); note != "" {
		c.res.Detail.Instance = note
		how += "; " + note
	}
	if h := c.res.Detail.PortHolder; h != nil && h != before && !h.Ours {
		c.recordEscapee(child, h) // it serves for this instance: not a stranger at the next cycle
	}
	c.set(runtrace.OutcomeOK, reason, verb+" ("+how+")")
}

// instanceNote says what became of a leader that is already gone when the
// service answers: a launcher whose tree lives on, or one whose server left
// the tree (a daemon that called setsid, without a cgroup to keep it), which
// svc-ctl will not be able to stop or replace.
func (c *cycle) instanceNote(ctx context.Context, child *proc.Child) string {
	select {
	case <-child.Done:
	default:
		return "" // the leader runs: the common case
	}
	t, err := proc.Members(child.Instance)
	if err != nil {
		return "launcher " + child.Exit() + "; its tree could not be listed: " + err.Error()
	}
	if n := t.Len(); n > 0 {
		return fmt.Sprintf("launcher %s, %s live on", child.Exit(), plural(n, "process", "processes"))
	}
	note := "launcher " + child.Exit() + " and no process of the instance is left"
	if addr, port, ok := healthPort(c.svc.Health); ok && portHeld(ctx, addr) {
		h := holderOf(ctx, port, nil)
		c.res.Detail.PortHolder = h
		note += "; " + h.String() + ": it left the instance (daemonized), svc-ctl cannot stop or replace it"
	}
	return note
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// startFailed counts a failed start: backoff doubles, and after give_up_after
// in a row the service is given up (still probed, retried now and then).
func (c *cycle) startFailed(reason runtrace.Reason, msg string) {
	now := c.s.now()
	c.st.Failures++
	c.st.LastFailure = strings.TrimPrefix(msg, "start-failed: ")
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

// spawn starts the service as its `user`/`group` (resolved now: the user
// database may have changed since the config was loaded), with the base
// environment plus env_file and env, its output appended to its log, which
// is opened in the log's pinned directory after the path was found to lead
// there still (logForSpawn) and checked on its descriptor.
func (c *cycle) spawn() (*proc.Child, error) {
	id, err := c.svc.RunAs.Identity()
	if err != nil {
		return nil, fmt.Errorf("run as %s: %w", c.svc.RunAs.User+":"+c.svc.RunAs.Group, err)
	}
	spec := proc.SpawnSpec{Argv: c.svc.Command, Dir: c.svc.Dir, SearchPath: c.svc.SearchPath, Env: c.svc.Env,
		Name: c.svc.Name, Cgroup: c.s.Cgroup, RunAs: id}
	out, err := c.openLog(id)
	if p := fsutil.ProblemOf(err); err != nil && (p == fsutil.ReadOnly || p == fsutil.NoSpace || p == fsutil.NoQuota) {
		// The disk refuses the service's log (a state dir remounted
		// read-only): a running service without its output beats a dead one.
		// The detail says the output is discarded; the next start that can
		// open the log writes it again.
		c.res.Detail.Output = fmt.Sprintf("discarded: %s cannot be opened (%s)", c.svc.Log, p)
		c.log.Warn("service.log_refused", "log", c.svc.Log, "problem", string(p), "err", err)
		return proc.Spawn(spec)
	}
	if err != nil {
		return nil, err
	}
	defer out.Close() // the child has its own descriptor
	spec.Output = out
	c.st.Log, c.st.User = c.svc.Log, c.svc.RunAs.User
	return proc.Spawn(spec)
}

// openLog opens the service's log for the new instance: appended to (never
// truncated: earlier output is evidence), created 0600 and, for a service
// run as another user, readable by that user's group (0640) while it stays
// the agent's.
func (c *cycle) openLog(id *runas.Identity) (*os.File, error) {
	l, err := c.s.logForSpawn(c.svc, id)
	if err != nil {
		return nil, err
	}
	f, err := l.Dir.OpenFile(l.Name, os.O_WRONLY|os.O_APPEND|os.O_CREATE, fsutil.FilePerm, l.Owners)
	if err != nil {
		return nil, fmt.Errorf("open log: %w", err)
	}
	if err := proc.ShareLog(f, id); err != nil {
		f.Close()
		return nil, fmt.Errorf("log %s: %w", l.Path(), err)
	}
	return f, nil
}

// privileged is whether this process acts as root (or an elevated
// administrator); tests swap it.
var privileged = func() bool { return !config.UserMode() }

// checkLogDir refuses, for a privileged agent, a log directory another user
// can write or replace, unless that user is the one the service runs as:
// they could otherwise swap the log for a link to any file between the
// check and the open. Its directory and every directory above it must be
// root's or that user's, and writable by no one else (sticky excepted). What
// is done in it goes through its pinned handle (logdir.go), and every file
// there is checked on its descriptor.
func checkLogDir(logPath string, id *runas.Identity) error {
	if !privileged() {
		return nil
	}
	if err := fsutil.CheckDirChain(filepath.Dir(logPath), serviceUIDs(id)...); err != nil {
		return fmt.Errorf("refusing log %s: %w", logPath, err)
	}
	return nil
}
