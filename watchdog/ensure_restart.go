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
	if !ok || !portHeld(ctx, addr) {
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

// awaitHealthy polls the probe until start_timeout, fast at first (a
// service that starts in milliseconds is back in milliseconds), and looks
// at the new instance's members as it goes: a Walk down from its leader at
// every poll (so a daemon a launcher forks is seen, and remembered, while
// the launcher still lives), a Scan once the leader has exited. A passing
// probe is the start's success only once the new instance is what serves
// (serves). The leader's exit is judged as a launcher's: non-zero is a
// failed start with its code and output, whatever the probe says (another
// instance may be what answers); zero is a launcher's, whose members must
// then answer, and with none left (nor a pid_file to wait for) the exit is
// the instance's end.
func (c *cycle) awaitHealthy(ctx context.Context, child *proc.Child) {
	spawned := time.Now()
	deadline := spawned.Add(c.svc.StartTimeout)
	// 1, 2, 4, 8 ms...: a refused connection costs microseconds, and a
	// service that starts in 4 ms should not wait for a 5 ms step to be seen
	// (the SIGKILL -> 200 figure against PM2, docs/benchmarks.md).
	delay := time.Millisecond
	specs := c.stamp(probe.HealthSpecs(c.svc.Health, c.svc.Env, c.svc.Dir, c.svc.SearchPath))
	w := &startWatch{child: child, inst: child.Instance, leader: child.Done}
	var last []probe.Result
	why := ""
	for {
		final := !time.Now().Before(deadline)
		last = probe.RunAll(ctx, clampTimeouts(specs, time.Until(deadline)))
		c.st.LastProbe, c.st.LastProbeAt = last, c.s.now()
		w.look(c)
		if probe.Healthy(last) {
			ok, reason := c.serves(ctx, w, final)
			if ok {
				c.started(w, time.Since(spawned))
				return
			}
			why = reason
		}
		if w.ended && w.tree.Len() == 0 && c.svc.PidFile == "" {
			c.launcherLeftNothing(ctx, child, last)
			return
		}
		if final || ctx.Err() != nil {
			break
		}
		t := time.NewTimer(min(delay, time.Until(deadline)))
		select {
		case <-w.leader:
			w.leader = nil
			if child.ExitCode() != 0 {
				t.Stop()
				c.exitedEarly(child, last)
				return
			}
			w.ended = true // a launcher's job is to exit 0: what it started must answer now
		case <-ctx.Done():
		case <-t.C:
		}
		t.Stop()
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
	if why != "" {
		msg = fmt.Sprintf("within start_timeout %s the health check passed, but %s", c.svc.StartTimeout, why)
	}
	if note := c.instanceNote(w); note != "" {
		c.res.Detail.Instance = note
		msg += " (" + note + ")"
	}
	c.startFailed(runtrace.ReasonStartFailed, "start-failed: "+msg)
}

// startWatch is what a start knows of its new instance as it waits for it.
type startWatch struct {
	child    *proc.Child
	inst     proc.Instance   // the record as last looked at (members remembered, main adopted)
	tree     proc.Tree       // its members at the last look
	leader   <-chan struct{} // the leader's end; nil once seen
	ended    bool            // the leader exited 0 (a launcher)
	scanned  bool            // looked with every proof since it did
	holder   *PortHolder     // who holds the health port when no member's sockets say so
	holderAt time.Time       // when holder was found
	// unnamed: the health port's holder could not be named; the start was
	// judged by the port being free at the spawn (serves).
	unnamed string
}

// look lists the new instance's members: a Walk down from what is known,
// and, once the leader has exited, one Scan (the daemon it left may have
// left its tree too). What it finds is remembered in the record.
func (w *startWatch) look(c *cycle) {
	d := proc.Walk
	if w.ended && !w.scanned {
		d, w.scanned = proc.Scan, true
	}
	t, rec, err := c.s.lookAt(c.svc, w.inst, d, true)
	if err != nil {
		return
	}
	w.tree, w.inst = t, rec
}

// serves decides whether a passing health check is the new instance's:
// a member of it lives; its pid_file, when set, names a process adopted as
// its main one; a local health port is served by one of its members (which
// is then its main process, when not the leader); a check that passed
// before the instance started (answersWithoutUs) counts only once its
// leader has exited 0 with a member alive, or has stayed up the whole
// start_timeout (final). When not, it says why.
func (c *cycle) serves(ctx context.Context, w *startWatch, final bool) (bool, string) {
	if w.tree.Len() == 0 {
		return false, "no process of the new instance is alive"
	}
	if c.svc.PidFile != "" && w.inst.Main == nil {
		why := "names no process yet"
		if _, err := proc.AdoptPidFile(c.svc.PidFile, w.inst); err != nil {
			why = err.Error()
		}
		return false, "its pid_file is not adopted: " + why
	}
	if _, port, local := healthPort(c.svc.Health); local {
		for _, m := range w.tree.Members {
			if memberListens(m, port) {
				c.setMain(w, m)
				return true, ""
			}
		}
		// No member's own sockets say so (or they could not be read): who
		// holds the port, from every process's sockets, at most once a
		// second (it reads them all).
		if w.holder == nil || time.Since(w.holderAt) > time.Second {
			w.holder, w.holderAt = holderOf(ctx, port, nil), time.Now()
		}
		if m, ok := w.tree.Member(w.holder.PID); ok && w.holder.id.Start == m.Start {
			c.setMain(w, m)
			return true, ""
		}
		if w.holder.PID <= 0 {
			// The OS names no owner (Wine's socket table; a process of
			// another user this agent may not read): the port was free when
			// the instance was spawned (portTaken) and a member of it lives,
			// so it is judged the new instance's, and the row says how.
			w.unnamed = w.holder.String()
			return true, ""
		}
		return false, w.holder.String() + ", not a process of the new instance"
	}
	if c.answeredBefore && !w.ended && !(final && w.tree.LeaderAlive()) {
		return false, "it passed before this instance started (something else answers it): waiting for the leader to exit 0, or to stay up start_timeout"
	}
	return true, ""
}

// setMain records m, the member that serves the health port, as the
// instance's main process when it is not the leader (a launcher's daemon)
// and no pid_file names one.
func (c *cycle) setMain(w *startWatch, m proc.Member) {
	if m.Leader || (w.inst.Main != nil && w.inst.MainVia == mainPidFile) {
		return
	}
	if w.inst.Main != nil && w.inst.Main.Same(m.Identity) {
		return
	}
	id := m.Identity
	w.inst.Main, w.inst.MainVia = &id, mainPort
	c.s.savePid(c.svc.Name, w.inst)
}

// launcherLeftNothing ends a start whose leader exited 0 leaving no
// process of the instance (and no pid_file to wait for): the exit is the
// instance's end, whatever answers the health check.
func (c *cycle) launcherLeftNothing(ctx context.Context, child *proc.Child, last []probe.Result) {
	code := 0
	c.res.Detail.ExitCode = &code
	c.res.Detail.Exit = child.Exit()
	c.res.Detail.LogTail = c.tail(5)
	msg := "start-failed: the leader " + child.Exit() + " and no process of the instance is left"
	if addr, port, ok := healthPort(c.svc.Health); ok && portHeld(ctx, addr) {
		h := holderOf(ctx, port, nil)
		c.res.Detail.PortHolder = h
		msg += "; " + h.String() + ": if it is this service's daemon, nothing proves it (it cleared its environment and was not seen as the launcher's child): set pid_file"
	} else if probe.Healthy(last) {
		msg += "; the health check passes, but not for this instance"
	}
	if n := len(c.res.Detail.LogTail); n > 0 {
		msg += " (last output: " + strings.TrimSpace(c.res.Detail.LogTail[n-1]) + ")"
	}
	c.startFailed(runtrace.ReasonStartFailed, msg)
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
	if probe.Healthy(last) {
		msg = fmt.Sprintf("start-failed: the leader %s (the health check passes, but not for this instance)", child.Exit())
	}
	if n := len(c.res.Detail.LogTail); n > 0 {
		msg += " (last output: " + strings.TrimSpace(c.res.Detail.LogTail[n-1]) + ")"
	}
	if len(last) > 0 && !probe.Healthy(last) && probe.Summary(last) != "" {
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

func (c *cycle) started(w *startWatch, took time.Duration) {
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
	// One look with every proof: what serves now is remembered before it
	// may write its title over its environment.
	if t, rec, err := c.s.lookAt(c.svc, w.inst, proc.Scan, true); err == nil {
		w.tree, w.inst = t, rec
	}
	c.res.Detail.Mode = w.inst.Mode
	how := fmt.Sprintf("pid %d, healthy after %s", w.child.PID, took.Round(time.Millisecond))
	if m := w.inst.Main; m != nil {
		how += fmt.Sprintf("; pid %d serves (%s)", m.PID, map[string]string{mainPidFile: "its pid_file", mainPort: "the health port"}[w.inst.MainVia])
	}
	if note := c.instanceNote(w); note != "" {
		c.res.Detail.Instance = note
		how += "; " + note
	}
	if w.unnamed != "" {
		c.res.Detail.Served = w.unnamed + ": free when the instance was spawned, so taken as its"
		how += "; " + c.res.Detail.Served
	}
	c.set(runtrace.OutcomeOK, reason, verb+" ("+how+")")
}

// instanceNote says what became of a leader that is already gone when the
// start is judged: a launcher whose members live on.
func (c *cycle) instanceNote(w *startWatch) string {
	select {
	case <-w.child.Done:
	default:
		return "" // the leader runs: the common case
	}
	if n := w.tree.Len(); n > 0 {
		return fmt.Sprintf("launcher %s, %s live on", w.child.Exit(), plural(n, "process", "processes"))
	}
	return "launcher " + w.child.Exit() + " and no process of the instance is left"
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
		Name: c.svc.Name, Cgroup: c.s.Cgroup, RunAs: id, Console: c.svc.StopSignal == config.WindowsStopSignal, Scope: c.s.Scope}
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
