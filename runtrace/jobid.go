package runtrace

import "strings"

// A run's job id names what ran: "watchdog:NAME" for a service's cycles,
// "job:NAME" for a job's runs, "agent" for the agent's own starts and wakes.
// Build and take them apart only here.
const (
	KindWatchdog = "watchdog"
	KindJob      = "job"
	// AgentID is the job id of the agent's own runs.
	AgentID = "agent"
)

// WatchdogID is the job id of the cycles of service name.
func WatchdogID(name string) string { return KindWatchdog + ":" + name }

// JobID is the job id of the runs of job name.
func JobID(name string) string { return KindJob + ":" + name }

// SplitID takes a job id apart: "watchdog:proxy" is (KindWatchdog, "proxy"),
// "agent" is (AgentID, ""). An id without a colon is its own kind.
func SplitID(id string) (kind, name string) {
	kind, name, _ = strings.Cut(id, ":")
	return kind, name
}
