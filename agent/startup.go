package agent

import (
	"context"
	"os"
	"runtime/debug"
	"strings"
	"time"

	"svcctl/internal/fsutil"
	"svcctl/runtrace"
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
