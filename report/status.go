package report

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"time"

	"github.com/shirou/gopsutil/v4/host"

	"svcctl/config"
	"svcctl/internal/fsutil"
	"svcctl/notify"
	"svcctl/probe"
	"svcctl/proc"
	"svcctl/runtrace"
	"svcctl/state"
	"svcctl/watchdog"
)

// StatusReport is what `svc-ctl status` shows and `verify` judges.
type StatusReport struct {
	Now      time.Time       `json:"now"`
	Config   string          `json:"config"`
	StateDir string          `json:"state_dir"`
	Agent    AgentStatus     `json:"agent"`
	Install  *InstallInfo    `json:"install,omitempty"` // what the OS service manager says (set by the caller)
	Ledger   LedgerStatus    `json:"ledger"`
	Services []ServiceStatus `json:"services"`
	Jobs     []JobStatus     `json:"jobs,omitempty"`
	// Removed are services a reload removed from the config whose
	// processes it left running (reload --keep-removed): unsupervised.
	Removed  []RemovedService `json:"removed,omitempty"`
	Channels []ChannelStatus  `json:"channels,omitempty"`
	// ConfigDrift: the running agent's config differs from the file on disk.
	ConfigDrift *ConfigDrift `json:"config_drift,omitempty"`
	// ConfigBroken: the file does not load; the report comes from the state
	// dir alone (set by the caller).
	ConfigBroken string `json:"config_broken,omitempty"`
}

// ChannelStatus is one [[notify]] channel (or a ping) as its deliveries
// left it.
type ChannelStatus struct {
	Name         string    `json:"name"`
	Kind         string    `json:"kind"` // webhook | ntfy | ... | ping
	LastOK       time.Time `json:"last_delivery,omitzero"`
	LastError    string    `json:"last_error,omitempty"`
	LastErrorAt  time.Time `json:"last_error_at,omitzero"`
	FailingSince time.Time `json:"failing_since,omitzero"` // zero: the last attempt worked
	Pending      int       `json:"pending"`
	// Held of them wait only for the channel's min_interval (not failures,
	// not retries); the first goes out at HeldUntil.
	Held        int           `json:"held"`
	HeldUntil   time.Time     `json:"held_until,omitzero"`
	MinInterval time.Duration `json:"min_interval_ns,omitempty"`
}

// AgentStatus is the agent as its heartbeat and its lock show it.
type AgentStatus struct {
	State string `json:"state"` // running | stopped | stale
	// Condition qualifies a running agent that cannot do all its work:
	// "cannot renew its heartbeat: disk full" (from agent.status).
	Condition    string    `json:"condition,omitempty"`
	Why          string    `json:"why"`
	PID          int       `json:"pid,omitempty"`
	Version      string    `json:"version,omitempty"`
	Mode         string    `json:"mode,omitempty"`
	StartedAt    time.Time `json:"started_at,omitzero"`
	UptimeS      int64     `json:"uptime_s,omitempty"`
	HeartbeatAt  time.Time `json:"heartbeat_at,omitzero"`
	HeartbeatAgo string    `json:"heartbeat_age,omitempty"`
	BootTime     time.Time `json:"boot_time,omitzero"` // the host's, now
	LockHeld     bool      `json:"lock_held"`
}

// LedgerStatus says whether run_trace can be read, and whether the running
// agent can write it.
type LedgerStatus struct {
	OK    bool   `json:"ok"`
	Path  string `json:"path"`
	Error string `json:"error,omitempty"`
	// Writes is the running agent's own account of its writes, from
	// agent.status (free space measured again now); nil when no agent runs.
	Writes *runtrace.Health `json:"writes,omitempty"`
}

// WriteFailing reports whether the running agent says its writes fail.
func (l LedgerStatus) WriteFailing() bool { return l.Writes != nil && !l.Writes.Up }

// ServiceStatus is one service's line.
type ServiceStatus struct {
	Name     string    `json:"name"`
	State    string    `json:"state"`
	Health   string    `json:"health,omitempty"`
	HealthAt time.Time `json:"health_at,omitzero"` // when that verdict was taken (never presented as current)
	// AnsweredBy: the last probe passed, but a stranger answered it (no
	// process of the service's instance lived): who holds its port.
	AnsweredBy string         `json:"answered_by,omitempty"`
	LatencyMS  float64        `json:"latency_ms,omitempty"`
	Instance   *Instance      `json:"instance,omitempty"`
	Probe      []probe.Result `json:"probe,omitempty"`
	LastCycle  *CycleBrief    `json:"last_cycle,omitempty"`
	// LastRestart is the newest restart (restart_by: the watchdog's, a
	// person's or a reload's; a first start is none); Restarts24h counts
	// the watchdog's in 24 h (a health signal), RequestedRestarts24h the
	// ones people and reloads asked for.
	LastRestart          time.Time `json:"last_restart,omitzero"`
	LastRestartBy        string    `json:"last_restart_by,omitempty"`
	Restarts24h          int       `json:"restarts_24h"`
	RequestedRestarts24h int       `json:"requested_restarts_24h"`
	// FirstCheckBy: the service has not been checked since the running
	// agent started (State "starting"): its first check comes by then.
	FirstCheckBy  time.Time      `json:"first_check_by,omitzero"`
	Failures      int            `json:"consecutive_failures"`
	Pause         *state.Pause   `json:"pause,omitempty"`
	Interval      string         `json:"interval"`
	Depends       []probe.Result `json:"depends,omitempty"`
	RecordedError string         `json:"record_error,omitempty"`
	Log           string         `json:"log"`      // runtime.log, where its `log` key puts it: `svc-ctl logs NAME`
	PrevLog       string         `json:"prev_log"` // what the instance before the last restart wrote: `logs NAME --prev`
}

// Instance is the service's recorded instance as it is now: its tree,
// read from the OS at the time of the report.
type Instance struct {
	LeaderPID   int32     `json:"leader_pid"`
	LeaderAlive bool      `json:"leader_alive"`
	Processes   int       `json:"processes"` // live processes of the tree; 0: the instance is gone
	StartedAt   time.Time `json:"started_at,omitzero"`
	UptimeS     int64     `json:"uptime_s,omitempty"`
	RSSBytes    uint64    `json:"rss_bytes,omitempty"`   // resident memory of the whole tree
	CPUSeconds  float64   `json:"cpu_seconds,omitempty"` // user+system CPU of the live processes
	// CPUPercent is the tree's CPU use over a short sample (SampleCPU), in
	// percent of one core; nil when not sampled or not readable.
	CPUPercent *float64 `json:"cpu_pct,omitempty"`
	PIDs       []int32  `json:"pids,omitempty"`
	Via        []string `json:"via,omitempty"` // what proved its members: cgroup, job, marker, session, descendants...
	Cgroup     string   `json:"cgroup,omitempty"`
	Job        string   `json:"job,omitempty"`
	// Mode is what owns the tree besides the record: cgroup, scope,
	// subreaper, plain (the record alone: a start by hand with no agent, or
	// macOS), job.
	Mode    string   `json:"mode,omitempty"`
	Members []Member `json:"members,omitempty"`
	// Serving is who serves the local health port (a tcp or http check of
	// this host), member or not; nil for other checks, or a port nobody holds.
	Serving *Serving `json:"serving,omitempty"`
	Error   string   `json:"error,omitempty"`
}

// Member is one live process of the instance and what proves it is one.
type Member struct {
	PID     int32  `json:"pid"`
	PPID    int32  `json:"ppid"`
	Exe     string `json:"exe,omitempty"`
	User    string `json:"user,omitempty"`
	Via     string `json:"via"` // leader, pid_file, port, marker, descendants, session, group, cgroup, job, outside
	Leader  bool   `json:"leader,omitempty"`
	Main    bool   `json:"main,omitempty"`    // the main process kill_mode "main" signals
	Stopped bool   `json:"stopped,omitempty"` // stopped by a signal: hung
}

// Serving is the process that holds the service's local health port.
type Serving struct {
	Port   uint32 `json:"port"`
	PID    int32  `json:"pid,omitempty"` // 0: held by a process this user cannot see
	Exe    string `json:"exe,omitempty"`
	User   string `json:"user,omitempty"`
	Member bool   `json:"member"` // a member of the instance (else: nothing svc-ctl may signal)
}

// RemovedService is a service the config no longer has whose processes a
// reload left running: `svc-ctl stop NAME` stops them.
type RemovedService struct {
	Name      string    `json:"name"`
	PID       int32     `json:"pid"`
	Processes int       `json:"processes"` // live now; 0: it has ended by itself
	At        time.Time `json:"removed_at"`
}

// removedServices lists the services a reload left running, as their
// records and process trees say now.
func removedServices(p state.Paths, now time.Time) []RemovedService {
	var out []RemovedService
	for _, name := range state.RemovedServices(p) {
		rec, err := state.ReadRemoved(p, name)
		if err != nil || rec == nil {
			continue
		}
		r := RemovedService{Name: name, PID: rec.PID, At: rec.At}
		if in := instanceOf(context.Background(), p, name, nil, now); in != nil {
			r.Processes = in.Processes
		}
		out = append(out, r)
	}
	return out
}

// instanceOf reads the recorded instance of name and its tree now, with
// every proof (the record is not written: a report changes nothing); with
// svc (a configured service), also the process its pid_file names when it
// may be adopted, and who serves its health port.
func instanceOf(ctx context.Context, p state.Paths, name string, svc *config.Service, now time.Time) *Instance {
	inst, err := proc.ReadInstance(p.Pid(name))
	if err != nil {
		return nil
	}
	in := &Instance{LeaderPID: inst.PID, StartedAt: inst.StartedAt, Cgroup: inst.Cgroup, Job: inst.Job, Mode: inst.Mode}
	if svc != nil && svc.PidFile != "" && (inst.Main == nil || !alive(*inst.Main)) {
		if id, err := proc.AdoptPidFile(svc.PidFile, inst); err == nil {
			inst.Main, inst.MainVia = &id, "pid_file"
		}
	}
	t, rec, err := proc.Look(inst, proc.Scan)
	if err != nil {
		in.Error = err.Error()
		return in
	}
	if svc != nil {
		in.serving(ctx, svc, t)
	}
	tf, err := proc.FactsOfTree(rec, t, false)
	switch {
	case errors.Is(err, proc.ErrGone):
		return in
	case err != nil:
		in.Error = err.Error()
		return in
	}
	in.LeaderAlive, in.Processes, in.RSSBytes, in.CPUSeconds, in.Via = tf.LeaderAlive, tf.Count, tf.RSSBytes, tf.CPUSeconds, tf.Via
	for _, m := range t.Members {
		in.PIDs = append(in.PIDs, m.PID)
		main := (rec.Main != nil && rec.Main.PID == m.PID) || (rec.Main == nil && m.Leader)
		in.Members = append(in.Members, Member{PID: m.PID, PPID: m.PPID, Exe: m.Exe, User: proc.UserOf(m.PID), Via: m.Via,
			Leader: m.Leader, Main: main, Stopped: m.Stopped})
	}
	if !inst.StartedAt.IsZero() {
		in.UptimeS = int64(now.Sub(inst.StartedAt).Seconds())
	}
	return in
}

// serving names who holds the service's local health port: the member
// that listens there, else whoever does (found among every process's
// sockets), which is no member.
func (in *Instance) serving(ctx context.Context, svc *config.Service, t proc.Tree) {
	addr, port, ok := watchdog.HealthPort(svc.Health)
	if !ok {
		return
	}
	for _, m := range t.Members {
		if proc.Listens(m, port) {
			in.Serving = &Serving{Port: port, PID: m.PID, Exe: m.Exe, User: proc.UserOf(m.PID), Member: true}
			return
		}
	}
	if !portAnswers(ctx, addr) {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	h, err := proc.PortHolder(ctx, port)
	switch {
	case err != nil:
		in.Serving = &Serving{Port: port}
	case h != nil:
		in.Serving = &Serving{Port: port, PID: h.PID, Exe: h.Exe, User: h.User, Member: t.Has(h.PID)}
	}
}

func alive(id proc.Identity) bool {
	ok, _ := proc.Match(id)
	return ok
}

func portAnswers(ctx context.Context, addr string) bool {
	d := net.Dialer{Timeout: 500 * time.Millisecond}
	c, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return false
	}
	c.Close()
	return true
}

// Readable reports whether this process could read the tree's resource
// use: the OS hides another user's from a normal user on some systems (a
// live process never has zero resident memory).
func (in *Instance) Readable() bool {
	return in != nil && in.Processes > 0 && in.RSSBytes > 0 && in.Error == ""
}

// SampleCPU measures each live instance's CPU use over wait (as `top`
// does: the CPU time its tree used in that window), so that a one-shot
// `status` can show CPU% beside RSS.
func SampleCPU(ctx context.Context, r *StatusReport, wait time.Duration) {
	p := state.Paths{State: r.StateDir}
	before := map[string]float64{}
	for _, s := range r.Services {
		if s.Instance.Readable() {
			before[s.Name] = s.Instance.CPUSeconds
		}
	}
	if len(before) == 0 {
		return
	}
	start := time.Now()
	select {
	case <-ctx.Done():
		return
	case <-time.After(wait):
	}
	took := time.Since(start).Seconds()
	for i := range r.Services {
		s := &r.Services[i]
		cpu0, ok := before[s.Name]
		if !ok {
			continue
		}
		now := instanceOf(ctx, p, s.Name, nil, time.Now())
		if !now.Readable() || now.LeaderPID != s.Instance.LeaderPID || now.CPUSeconds < cpu0 {
			continue
		}
		pct := (now.CPUSeconds - cpu0) / took * 100
		s.Instance.CPUPercent = &pct
	}
}

// CycleBrief is a cycle's verdict in short.
type CycleBrief struct {
	At      time.Time        `json:"at"`
	Trigger runtrace.Trigger `json:"trigger"`
	Outcome runtrace.Outcome `json:"outcome"`
	Reason  runtrace.Reason  `json:"reason"`
	Message string           `json:"message,omitempty"`
	RunID   int64            `json:"run_id,omitempty"`
}

// JobStatus is one job's line (filled by the jobs code).
type JobStatus struct {
	Name       string       `json:"name"`
	Schedule   string       `json:"schedule"`
	Timezone   string       `json:"timezone"`
	External   bool         `json:"external"`
	NextSlot   time.Time    `json:"next_slot,omitzero"`
	LastRun    *CycleBrief  `json:"last_run,omitempty"`
	Missing7d  int          `json:"missing_7d"`
	Paused     *state.Pause `json:"pause,omitempty"`
	Registered time.Time    `json:"registered_at,omitzero"`
	Log        string       `json:"log"` // last.log: `svc-ctl logs NAME`
}

// Healthy reports whether status should exit 0: the agent runs, its
// ledger takes writes, and every service that is not paused is healthy.
func (r *StatusReport) Healthy() bool {
	if r.Agent.State != "running" || r.Ledger.WriteFailing() {
		return false // a ledger that refuses writes is a failed check too
	}
	for _, s := range r.Services {
		if s.State != state.Healthy && !state.Held(s.State) {
			return false
		}
	}
	return true
}

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

// HealthNotChecked is a stopped service's health: nothing checks it until
// it is started again.
const HealthNotChecked = "not checked since the stop"

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
