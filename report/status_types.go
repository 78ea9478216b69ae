package report

import (
	"time"

	"svcctl/probe"
	"svcctl/runtrace"
	"svcctl/state"
)

// The shapes of `svc-ctl status`: what the report holds, as JSON prints it.

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

// Readable reports whether this process could read the tree's resource
// use: the OS hides another user's from a normal user on some systems (a
// live process never has zero resident memory).
func (in *Instance) Readable() bool {
	return in != nil && in.Processes > 0 && in.RSSBytes > 0 && in.Error == ""
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

// HealthNotChecked is a stopped service's health: nothing checks it until
// it is started again.
const HealthNotChecked = "not checked since the stop"
