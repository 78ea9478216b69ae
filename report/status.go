package report

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/shirou/gopsutil/v4/host"

	"svcctl/config"
	"svcctl/internal/fsutil"
	"svcctl/notify"
	"svcctl/probe"
	"svcctl/runtrace"
	"svcctl/state"
	"svcctl/watchdog"
)

// BuildStatus gathers the status from the evidence on disk: the agent lock,
// the heartbeat rows, the service state files, the pause sentinels and
// run_trace. It never changes anything (the ledger is opened read-only). A
// state dir this process may not read is a *state.DeniedError, not a
// report: "agent: stopped" would be a lie when a root agent runs.
func BuildStatus(ctx context.Context, cfg *config.Config, now time.Time) (*StatusReport, error) {
	p := state.PathsOf(cfg)
	if err := state.Readable(p); err != nil {
		return nil, err
	}
	r := &StatusReport{Now: now.UTC(), Config: cfg.Path, StateDir: cfg.Agent.StateDir}
	r.Ledger.Path = p.DB()
	store, err := openForRead(p.DB())
	switch {
	case errors.Is(err, os.ErrNotExist):
		r.Ledger.Error = "not created yet: no agent or `svc-ctl start` has run with this state dir"
	case err != nil:
		r.Ledger.Error = err.Error()
	default:
		defer store.Close()
		r.Ledger.OK = true
	}
	live := liveReport(cfg, p, now)
	if live != nil {
		h := live.Ledger
		if !h.Up && (h.Cause == runtrace.CauseDiskFull || h.Cause == runtrace.CauseQuota) {
			if n, err := fsutil.FreeSpace(h.Dir); err == nil {
				h.FreeBytes = int64(min(n, 1<<62))
			}
		}
		r.Ledger.Writes = &h
	}
	r.Agent = agentStatus(ctx, cfg, p, store, live, now)
	r.ConfigDrift = configDrift(cfg, live)
	last, _ := state.ReadLast(p.WatchdogLast())
	for i := range cfg.Services {
		r.Services = append(r.Services, serviceStatus(ctx, &cfg.Services[i], p, store, last, now))
	}
	checkedSince(r.Services, live)
	markStarting(r, cfg)
	r.Jobs = jobStatuses(ctx, cfg, p, store, now)
	for _, rs := range removedServices(p, now) {
		if cfg.Service(rs.Name) == nil {
			r.Removed = append(r.Removed, rs)
		}
	}
	r.Channels = channelStatuses(ctx, cfg, store)
	return r, nil
}

// channelStatuses lists the [[notify]] channels and the pings of services
// and jobs with what their last attempts left in the ledger.
func channelStatuses(ctx context.Context, cfg *config.Config, store *runtrace.Store) []ChannelStatus {
	var out []ChannelStatus
	for _, n := range cfg.Notify {
		out = append(out, ChannelStatus{Name: n.Name, Kind: n.Kind, MinInterval: n.MinInterval})
	}
	for _, s := range cfg.Services {
		if s.Ping != "" {
			out = append(out, ChannelStatus{Name: notify.PingChannel(runtrace.WatchdogID(s.Name)), Kind: "ping"})
		}
	}
	for _, j := range cfg.Jobs {
		if j.Ping != "" {
			out = append(out, ChannelStatus{Name: notify.PingChannel(runtrace.JobID(j.Name)), Kind: "ping"})
		}
	}
	if store == nil || len(out) == 0 {
		return out
	}
	states, err := store.ChannelStates(ctx)
	if err != nil {
		return out
	}
	byName := map[string]runtrace.ChannelState{}
	for _, c := range states {
		byName[c.Channel] = c
	}
	pending, held, heldUntil := map[string]int{}, map[string]int{}, map[string]time.Time{}
	now := time.Now()
	if ds, err := store.Deliveries(ctx, 100000, runtrace.DeliveryPending); err == nil {
		for _, d := range ds {
			pending[d.Channel]++
			if d.Deferred(now) {
				held[d.Channel]++
				if u := heldUntil[d.Channel]; u.IsZero() || d.NextAt.Before(u) {
					heldUntil[d.Channel] = d.NextAt
				}
			}
		}
	}
	for i := range out {
		c := byName[out[i].Name]
		out[i].LastOK, out[i].LastError, out[i].LastErrorAt, out[i].FailingSince = c.LastOK, c.LastError, c.LastErrorAt, c.FailingSince
		out[i].Pending, out[i].Held, out[i].HeldUntil = pending[out[i].Name], held[out[i].Name], heldUntil[out[i].Name]
	}
	return out
}

// openForRead opens the ledger read-only: readers never create, migrate or
// write it.
func openForRead(path string) (*runtrace.Store, error) {
	if _, err := os.Stat(path); err != nil {
		return nil, state.Denied(path, err)
	}
	st, err := runtrace.Open(path, runtrace.Options{BusyTimeout: 3 * time.Second, ReadOnly: true})
	return st, state.Denied(path, err)
}

// liveReport is the running agent's agent.status: only when an agent holds
// the lock and renewed the report within three heartbeats.
func liveReport(cfg *config.Config, p state.Paths, now time.Time) *state.AgentReport {
	if held, err := state.AgentLockHeld(p); err != nil || !held {
		return nil
	}
	r, err := state.ReadAgentReport(p)
	if err != nil || !r.StoppedAt.IsZero() || now.Sub(r.UpdatedAt) > 3*cfg.Agent.Heartbeat+5*time.Second {
		return nil
	}
	return r
}

// cannotBeat is why a live agent's heartbeat row is not renewed, or "".
func cannotBeat(live *state.AgentReport) string {
	if live == nil || live.Ledger.Up {
		return ""
	}
	return "cannot renew its heartbeat: " + live.Ledger.Cause.Words()
}

func agentStatus(ctx context.Context, cfg *config.Config, p state.Paths, store *runtrace.Store, live *state.AgentReport, now time.Time) AgentStatus {
	a := AgentStatus{State: "stopped", Why: "no heartbeat row and the agent lock is free"}
	if bt, err := host.BootTime(); err == nil {
		a.BootTime = time.Unix(int64(bt), 0).UTC()
	}
	held, err := state.AgentLockHeld(p)
	if err != nil {
		a.State, a.Why = "unknown", err.Error()
		return a
	}
	a.LockHeld = held
	if store != nil {
		if hbs, err := store.Heartbeats(ctx); err == nil && len(hbs) > 0 {
			h := hbs[0]
			a.PID, a.Version, a.Mode, a.StartedAt, a.HeartbeatAt = h.PID, h.Version, h.Mode, h.StartedAt, h.BeatAt
			age := now.Sub(h.BeatAt)
			a.HeartbeatAgo = age.Round(time.Second).String()
			a.UptimeS = int64(now.Sub(h.StartedAt).Seconds())
			switch {
			case live != nil && live.Draining:
				a.State, a.Why = "draining", "received its stop: in-flight runs finish (up to drain_timeout), nothing new starts; services keep running"
			case age > 3*cfg.Agent.Heartbeat+5*time.Second && cannotBeat(live) != "":
				a.State, a.Condition = "running", cannotBeat(live)
				a.Why = fmt.Sprintf("heartbeat is %s old, but the agent (pid %d) holds its lock and renewed agent.status %s ago",
					a.HeartbeatAgo, live.PID, now.Sub(live.UpdatedAt).Round(time.Second))
			case age > 3*cfg.Agent.Heartbeat+5*time.Second:
				a.State, a.Why = "stale", "heartbeat is "+a.HeartbeatAgo+" old (renewed every "+cfg.Agent.Heartbeat.String()+")"
			case !a.LockHeld:
				a.State, a.Why = "stale", "fresh heartbeat but no process holds the agent lock"
			default:
				a.State, a.Why = "running", "heartbeat "+a.HeartbeatAgo+" ago"
			}
			return a
		}
	}
	if a.LockHeld {
		a.State, a.Why = "running", "the agent lock is held (no heartbeat readable)"
		if pid, err := state.ReadAgentPID(p); err == nil {
			a.PID = pid
		}
		if c := cannotBeat(live); c != "" {
			a.Condition = c
			a.Why = fmt.Sprintf("the agent lock is held and agent.status was renewed %s ago", now.Sub(live.UpdatedAt).Round(time.Second))
		}
	}
	return a
}

func serviceStatus(ctx context.Context, svc *config.Service, p state.Paths, store *runtrace.Store, last *state.LastFile, now time.Time) ServiceStatus {
	st, _ := state.LoadService(p.StateFile(svc.Name))
	s := ServiceStatus{Name: svc.Name, State: st.State, Probe: st.LastProbe,
		Failures: st.Failures, Interval: svc.Interval.String(), Log: p.RuntimeLog(svc), PrevLog: p.PrevLog(svc)}
	if len(st.LastProbe) > 0 {
		s.Health = probe.Summary(st.LastProbe)
		s.HealthAt = st.LastProbeAt
		if s.HealthAt.IsZero() && probe.Healthy(st.LastProbe) {
			// A state file written before last_probe_at: a healthy verdict
			// is as old as the last healthy one. Never the last cycle's
			// time: a paused service's cycles probe nothing.
			s.HealthAt = st.LastHealthy
		}
		s.LatencyMS = st.LastProbe[0].LatencyMS
		if st.AnsweredBy != "" {
			s.AnsweredBy = st.AnsweredBy
			s.Health += ", but " + st.AnsweredBy
		}
	}
	s.Instance = instanceOf(ctx, p, svc.Name, svc, now)
	if pz, _ := state.ReadPause(p.Paused(svc.Name)); pz.Active(now) {
		s.Pause, s.State = pz, pz.HeldState()
	}
	if s.State == state.Stopped {
		// Its last verdict is from before the stop: not shown as if current.
		s.Health, s.HealthAt, s.LatencyMS, s.Probe, s.AnsweredBy = HealthNotChecked, time.Time{}, 0, nil, ""
	}
	if lr := last.Services[svc.Name]; lr != nil {
		s.LastCycle = &CycleBrief{At: lr.Time, Trigger: lr.Trigger, Outcome: lr.Outcome, Reason: lr.Reason, Message: lr.Message, RunID: lr.RunID}
		s.RecordedError = lr.RecordError
		var d struct {
			Depends []probe.Result `json:"depends"`
		}
		if json.Unmarshal(lr.Detail, &d) == nil {
			s.Depends = d.Depends
		}
	}
	if store != nil {
		fillFromLedger(ctx, &s, store, now)
	}
	return s
}

// fillFromLedger takes the last cycle and restarts from run_trace: the ledger
// is the record; the state file only remembers.
func fillFromLedger(ctx context.Context, s *ServiceStatus, store *runtrace.Store, now time.Time) {
	job := runtrace.WatchdogID(s.Name)
	if r, err := store.Latest(ctx, job); err == nil && r != nil && r.Outcome != runtrace.OutcomeRunning {
		if s.LastCycle == nil || !r.StartedAt.Before(s.LastCycle.At.Add(-time.Minute)) {
			msg := ""
			if s.LastCycle != nil && s.LastCycle.RunID == r.ID {
				msg = s.LastCycle.Message
			}
			s.LastCycle = &CycleBrief{At: r.FinishedAt, Trigger: r.Trigger, Outcome: r.Outcome, Reason: r.Reason, RunID: r.ID, Message: msg}
		}
	}
	// Restarts as runtrace counts them (restart_by): one definition.
	if r, err := store.LastRestart(ctx, job); err == nil && r != nil {
		s.LastRestart, s.LastRestartBy = r.StartedAt, runtrace.RestartBy(*r)
	}
	if n, err := store.RestartCounts(ctx, job, now.Add(-24*time.Hour)); err == nil {
		s.Restarts24h = n[watchdog.RestartByWatchdog]
		s.RequestedRestarts24h = n[watchdog.RestartByPerson] + n[watchdog.RestartByReload]
	}
}

// markStarting says, of each service no cycle has judged yet (state
// unknown) while an agent runs, when its first check comes: at once for one
// with no live instance, within its first stagger (min(interval, 30s)) for
// the others. A state a previous check left (healthy, ...) stays, with its age.
func markStarting(r *StatusReport, cfg *config.Config) {
	if r.Agent.State != "running" || r.Agent.StartedAt.IsZero() {
		return
	}
	for i := range r.Services {
		s := &r.Services[i]
		if s.State != state.Unknown && s.State != "" {
			continue
		}
		svc := cfg.Service(s.Name)
		if svc == nil {
			continue
		}
		s.State = state.Starting
		s.FirstCheckBy = r.Agent.StartedAt.Add(min(svc.Interval, 30*time.Second))
		if s.Instance == nil || s.Instance.Processes == 0 {
			s.FirstCheckBy = r.Agent.StartedAt // checked at once
		}
	}
}
