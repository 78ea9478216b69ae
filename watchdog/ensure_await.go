package watchdog

import (
	"context"
	"fmt"
	"strings"
	"time"

	"svcctl/internal/fsutil"
	"svcctl/probe"
	"svcctl/proc"
	"svcctl/runtrace"
	"svcctl/state"
)

// Step 5 of a restart: the wait for the new instance's health, bounded by
// start_timeout, and the verdict: started, exited early, or failed.

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
	if addr, port, ok := healthPort(c.svc.Health); ok && PortHeld(ctx, addr) {
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
