package agent

import "path/filepath"

// Paths names every file svc-ctl keeps under its state directory
// (DESIGN.md, "State on disk").
type Paths struct{ State string }

func (p Paths) DB() string           { return filepath.Join(p.State, "svc-ctl.db") }
func (p Paths) AgentLog() string     { return filepath.Join(p.State, "agent.log") }
func (p Paths) AgentLock() string    { return filepath.Join(p.State, "agent.lock") }
func (p Paths) CrashLog() string     { return filepath.Join(p.State, "crash.log") }
func (p Paths) WatchdogLast() string { return filepath.Join(p.State, "watchdog.last.json") }

func (p Paths) ServiceDir(name string) string { return filepath.Join(p.State, "services", name) }
func (p Paths) JobDir(name string) string     { return filepath.Join(p.State, "jobs", name) }

func (p Paths) Lock(name string) string      { return filepath.Join(p.ServiceDir(name), "lock") }
func (p Paths) Paused(name string) string    { return filepath.Join(p.ServiceDir(name), "paused") }
func (p Paths) Pid(name string) string       { return filepath.Join(p.ServiceDir(name), "pid") }
func (p Paths) StateFile(name string) string { return filepath.Join(p.ServiceDir(name), "state.json") }
func (p Paths) Snapshots(name string) string {
	return filepath.Join(p.ServiceDir(name), "snapshots.jsonl")
}

// JobPaused is the pause sentinel of a job.
func (p Paths) JobPaused(name string) string { return filepath.Join(p.JobDir(name), "paused") }
