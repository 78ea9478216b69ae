package agent

import (
	"context"
	"fmt"
	"os"
	"runtime/debug"
	"strings"
	"time"

	"svcctl/internal/fsutil"
	"svcctl/proc"
	"svcctl/runtrace"
	"svcctl/state"
)

// recordStartup writes the agent's own start: the evidence L1 is judged by
// (a startup row newer than the host's boot time proves autostart fired).
func (a *Agent) recordStartup() {
	detail := map[string]any{
		"version": a.o.Version, "pid": os.Getpid(), "mode": a.o.Mode, "instance": a.instance,
		"started_at": a.started, "boot_time": a.boot, "config": a.config().Path, "state_dir": a.config().Agent.StateDir,
	}
	a.log.Info("agent.started", "version", a.o.Version, "mode", a.o.Mode, "boot_time", a.boot,
		"started_at", a.started, "config", a.config().Path, "state_dir", a.config().Agent.StateDir)
	a.record("agent", runtrace.TriggerStartup, runtrace.OutcomeOK, runtrace.ReasonStarted, detail)
	a.warnSecretsReadable()
}

// warnSecretsReadable says once, at start, that the config holds
// secrets other users can read (notification keys, env values): the keys and the
// fix, never the values. `svc-ctl verify` says it too.
func (a *Agent) warnSecretsReadable() {
	words, err := a.config().SecretsExposed()
	switch {
	case err != nil:
		a.log.Warn("config.secrets_unchecked", "config", a.config().Path, "err", err)
	case words != "":
		a.log.Warn("config.secrets_readable", "config", a.config().Path, "why", words)
	}
}

// record writes a run that starts and ends at once (a skip, a startup, a
// wake); slot is the job slot it serves, zero for none.
func (a *Agent) record(jobID string, trigger runtrace.Trigger, outcome runtrace.Outcome, reason runtrace.Reason, detail any) {
	a.recordSlot(jobID, trigger, time.Time{}, outcome, reason, detail)
}

func (a *Agent) recordSlot(jobID string, trigger runtrace.Trigger, slot time.Time, outcome runtrace.Outcome, reason runtrace.Reason, detail any) {
	a.recMu.RLock()
	defer a.recMu.RUnlock()
	if a.closed {
		return
	}
	ctx := context.Background()
	now := time.Now().UTC()
	id, err := a.rec.Begin(ctx, jobID, trigger, slot, now)
	if err == nil {
		err = a.rec.Finish(ctx, id, outcome, reason, detail, now)
	}
	if err != nil {
		a.log.Warn("ledger.write_failed", "job", jobID, "err", err)
	}
}

// reportCrash reports, once, that the previous agent died of a fatal runtime
// error, then installs crash.log for this process. The reported file moves to
// crash.prev.log: crash.log with content means "not reported yet".
func (a *Agent) reportCrash() (crashed bool) {
	path := a.paths.CrashLog()
	// Lstat and fsutil: a crash.log link would copy the tail of any file
	// into agent.log; it is reported and replaced.
	if st, err := os.Lstat(path); err == nil && st.Mode().IsRegular() && st.Size() > 0 {
		tail, _ := fsutil.TailLines(path, 40, 64<<10)
		a.log.Error("agent.previous_crash", "crash_log", path, "at", st.ModTime().UTC(), "tail", strings.Join(tail, "\n"))
		a.record("agent", runtrace.TriggerStartup, runtrace.OutcomeFailed, runtrace.ReasonPanic, map[string]any{
			"previous_agent_crashed": true, "crash_log_at": st.ModTime().UTC(), "tail": tail,
		})
		if err := os.Rename(path, a.paths.CrashPrevLog()); err != nil {
			a.log.Warn("crash_log.rotate_failed", "err", err)
		}
		crashed = true
	}
	f, err := fsutil.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, fsutil.FilePerm)
	if err != nil {
		a.log.Warn("crash_log.open_failed", "err", err)
		return crashed
	}
	if err := debug.SetCrashOutput(f, debug.CrashOptions{}); err != nil {
		a.log.Warn("crash_log.set_failed", "err", err)
	}
	f.Close() // SetCrashOutput keeps its own duplicate
	return crashed
}

// ReapEvery is how often the agent reaps runs that cannot finish any more:
// a row left running by a killed agent must not wait a day for a verdict.
const ReapEvery = time.Minute

// bootSlack is how far two readings of one boot time may differ (the OS
// reports it to the second, computed from uptime).
const bootSlack = 5 * time.Second

// reportDeadAgents records, at start, each previous agent of this state dir
// whose heartbeat is still there: it did not stop cleanly (a clean stop
// deletes it), and this agent holds the lock, so it is gone. In the same
// boot that is an agent that died — killed (kill -9, the OOM killer) or
// crashed — and it is recorded failed/agent-died with its pid and last
// heartbeat, which raises an `agent` event. In an earlier boot it is the
// host that went down (a laptop's power-off, a reset): not an agent crash,
// no event. Neither is an agent stopped during its drain (a second signal
// ends it at once) nor one whose crash was reported from crash.log.
func (a *Agent) reportDeadAgents(ctx context.Context, crashed bool) {
	if a.store == nil {
		return
	}
	hbs, err := a.store.Heartbeats(ctx)
	if err != nil {
		a.log.Warn("heartbeat.read_failed", "err", err)
		return
	}
	for _, h := range hbs {
		if h.InstanceID == a.instance {
			continue
		}
		detail := map[string]any{"pid": h.PID, "instance": h.InstanceID, "version": h.Version, "started_at": h.StartedAt,
			"last_heartbeat": h.BeatAt, "mode": h.Mode}
		prev := a.ledger.prev
		if prev != nil && prev.Instance != h.InstanceID {
			prev = nil // agent.status was another agent's
		}
		drained := prev != nil && prev.Draining
		switch {
		case a.anotherBoot(h, prev):
			a.log.Info("agent.previous_host_down", "previous_pid", h.PID, "last_heartbeat", h.BeatAt, "previous_boot", h.BootTime, "boot", a.boot,
				"hint", "the host went down (powered off, reset) while the previous agent ran: not an agent crash")
		case drained:
			a.log.Info("agent.previous_stopped_draining", "previous_pid", h.PID, "last_heartbeat", h.BeatAt)
		case crashed:
			// crash.log told it already, with its output.
		default:
			detail["why"] = fmt.Sprintf("the previous agent (pid %d, started %s) ended without a clean stop: its last heartbeat was at %s; "+
				"it was killed (kill -9, the OOM killer: journalctl -k) or crashed, and nothing supervised the services meanwhile",
				h.PID, h.StartedAt.Format(time.RFC3339), h.BeatAt.Format(time.RFC3339))
			a.log.Error("agent.previous_died", "previous_pid", h.PID, "last_heartbeat", h.BeatAt)
			a.record(runtrace.AgentID, runtrace.TriggerStartup, runtrace.OutcomeFailed, runtrace.ReasonAgentDied, detail)
		}
	}
}

// anotherBoot reports whether the previous agent of heartbeat h ran in
// another boot than this one: by the boot id its agent.status named (a
// clock step at boot cannot fool it), else by the host's boot time.
func (a *Agent) anotherBoot(h runtrace.Heartbeat, prev *state.AgentReport) bool {
	if now := proc.BootID(); prev != nil && prev.Boot != "" && now != "" {
		return prev.Boot != now
	}
	return !h.BootTime.IsZero() && !a.boot.IsZero() && (h.BootTime.Sub(a.boot) > bootSlack || a.boot.Sub(h.BootTime) > bootSlack)
}

// forgetDeadAgents deletes, at start, the heartbeats of agents that stopped
// without a clean stop (killed, a power loss): this agent holds the agent
// lock, so no other agent of this state dir runs, and it has not beaten yet
// (it is called before the heartbeat loop starts), so every row there is is
// a dead one's. The reaper prunes them too, but only once they are older
// than 3 heartbeats: after a quick restart, status would say "stale" (not
// "stopped" after this agent's own clean stop) meanwhile.
func (a *Agent) forgetDeadAgents(ctx context.Context) {
	if a.store == nil {
		return
	}
	// Rows are kept in milliseconds: one beaten in this very millisecond is
	// included.
	n, err := a.store.PruneHeartbeats(ctx, time.Now().Add(time.Millisecond))
	if err != nil {
		a.log.Warn("heartbeat.prune_failed", "err", err)
	} else if n > 0 {
		a.log.Info("heartbeat.pruned", "dead_agents", n)
	}
}
