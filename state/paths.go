package state

import (
	"crypto/sha256"
	"encoding/hex"
	"path/filepath"

	"svcctl/config"
	"svcctl/runtrace"
	"svcctl/snapshot"
)

// File names under the state directory. Paths joins them; they are exported
// for the one place that must render a path for another OS than this one
// (install writes service definitions for every platform).
const (
	DBFile        = "svc-ctl.db"
	AgentLogFile  = "agent.log"
	AgentLockFile = "agent.lock"
	AgentPIDFile  = "agent.pid"
	// AgentStatusFile is the running agent's own report (AgentReport), kept
	// where a full disk cannot stop it from being renewed.
	AgentStatusFile  = "agent.status"
	CrashLogFile     = "crash.log"
	CrashPrevLogFile = "crash.prev.log"
	WatchdogLastFile = "watchdog.last.json"
	// StdioLogFile receives the agent's stdout and stderr where the init
	// system keeps no journal (SysV, OpenRC, launchd): messages from before
	// the agent's own log is open, such as a config error at boot.
	StdioLogFile = "agent.stdio.log"
	// BackstopLogFile receives the launchd backstop job's output.
	BackstopLogFile = "backstop.log"
	// RequestsDir holds the command line's requests to the running agent
	// and the agent's answers (package control).
	RequestsDir = "requests"
	// ServiceInstanceIDFile keeps the OpenTelemetry service.instance.id of
	// this agent install (a UUID made once), HostIDFile the host.id where
	// the OS has no machine id of its own (docs/fleet.md, "Attributes").
	ServiceInstanceIDFile = "service-instance.id"
	HostIDFile            = "host.id"
)

// Paths names every file svc-ctl keeps under its state directory
// (docs/architecture.md, "Data on disk"), and a service's runtime log
// wherever its `log` key puts it. Nothing else joins a state path by hand.
type Paths struct{ State string }

// PathsOf is the state directory of a loaded configuration.
func PathsOf(cfg *config.Config) Paths { return Paths{State: cfg.Agent.StateDir} }

func (p Paths) DB() string          { return filepath.Join(p.State, DBFile) }
func (p Paths) AgentLog() string    { return filepath.Join(p.State, AgentLogFile) }
func (p Paths) AgentLock() string   { return filepath.Join(p.State, AgentLockFile) }
func (p Paths) AgentPID() string    { return filepath.Join(p.State, AgentPIDFile) }
func (p Paths) AgentStatus() string { return filepath.Join(p.State, AgentStatusFile) }

// AgentStatusElsewhere is where the agent puts its report when agent.status
// cannot be rewritten (a read-only or unwritable state dir): the first of
// the ledger's spill directories (/run/svc-ctl for root on Linux), named
// after the state dir. It is the one state file outside the state dir.
func (p Paths) AgentStatusElsewhere() string {
	sum := sha256.Sum256([]byte(p.State))
	return filepath.Join(runtrace.SpillDirs(p.DB())[0], "status-"+hex.EncodeToString(sum[:6])+".json")
}
func (p Paths) CrashLog() string { return filepath.Join(p.State, CrashLogFile) }
func (p Paths) ServiceInstanceID() string {
	return filepath.Join(p.State, ServiceInstanceIDFile)
}
func (p Paths) HostID() string       { return filepath.Join(p.State, HostIDFile) }
func (p Paths) CrashPrevLog() string { return filepath.Join(p.State, CrashPrevLogFile) }
func (p Paths) WatchdogLast() string { return filepath.Join(p.State, WatchdogLastFile) }
func (p Paths) StdioLog() string     { return filepath.Join(p.State, StdioLogFile) }
func (p Paths) BackstopLog() string  { return filepath.Join(p.State, BackstopLogFile) }

// Requests is the directory of the command line's requests to the running
// agent and of its answers (package control names the files in it).
func (p Paths) Requests() string { return filepath.Join(p.State, RequestsDir) }

func (p Paths) ServiceDir(name string) string { return filepath.Join(p.State, "services", name) }
func (p Paths) JobDir(name string) string     { return filepath.Join(p.State, "jobs", name) }

func (p Paths) Lock(name string) string      { return filepath.Join(p.ServiceDir(name), "lock") }
func (p Paths) Paused(name string) string    { return filepath.Join(p.ServiceDir(name), "paused") }
func (p Paths) Pid(name string) string       { return filepath.Join(p.ServiceDir(name), "pid") }
func (p Paths) StateFile(name string) string { return filepath.Join(p.ServiceDir(name), "state.json") }

// Removed is the record of a service a reload removed from the config
// while its instance ran on (reload --keep-removed).
func (p Paths) Removed(name string) string { return filepath.Join(p.ServiceDir(name), "removed.json") }

func (p Paths) Snapshots(name string) string {
	return filepath.Join(p.ServiceDir(name), "snapshots.jsonl")
}

// DefaultRuntimeLog is where a service's output goes when its `log` key is
// empty. config resolves that default when it loads (it cannot import this
// package); a test holds the two equal.
func (p Paths) DefaultRuntimeLog(name string) string {
	return filepath.Join(p.ServiceDir(name), "runtime.log")
}

// RuntimeLog is the service's output log: its `log` key, as config resolved it.
func (p Paths) RuntimeLog(svc *config.Service) string {
	if svc.Log == "" {
		return p.DefaultRuntimeLog(svc.Name)
	}
	return svc.Log
}

// PrevLog is where a restart moves the runtime log: the evidence of the
// instance before the current one (runtime.log -> runtime.prev.log).
func (p Paths) PrevLog(svc *config.Service) string { return snapshot.PrevPath(p.RuntimeLog(svc)) }

// RotatedLog is where a size rotation keeps what it cut from a running
// service's log (runtime.log -> runtime.log.1; one generation).
func (p Paths) RotatedLog(svc *config.Service) string { return snapshot.RotatedPath(p.RuntimeLog(svc)) }

// JobPaused is the pause sentinel of a job.
func (p Paths) JobPaused(name string) string { return filepath.Join(p.JobDir(name), "paused") }

// JobLock is held by whoever runs the job (the agent, or `svc-ctl run`
// with no agent running): two runs of one job never overlap.
func (p Paths) JobLock(name string) string { return filepath.Join(p.JobDir(name), "lock") }

// JobLog is the output of a job's last run; JobPrevLog the run's before.
func (p Paths) JobLog(name string) string     { return filepath.Join(p.JobDir(name), "last.log") }
func (p Paths) JobPrevLog(name string) string { return filepath.Join(p.JobDir(name), "last.prev.log") }

// JobLogTail holds the newest half of a running job's output once the first
// half of log_max is in last.log; it is appended to last.log, in order, when
// the run ends, then removed.
func (p Paths) JobLogTail(name string) string { return filepath.Join(p.JobDir(name), "last.log.tail") }
