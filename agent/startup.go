package agent

import (
	"context"
	"os"
	"time"

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

// ReapEvery is how often the agent reaps runs that cannot finish any more:
// a row left running by a killed agent must not wait a day for a verdict.
const ReapEvery = time.Minute
