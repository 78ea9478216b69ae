package snapshot

import (
	"maps"
	"slices"
	"strings"
	"time"
	"unicode/utf8"
)

// Bounds on what one entry keeps, so a snapshot stays readable and the file
// holds many of them.
const (
	MaxTransitions  = 12        // last state transitions kept per entry
	LogTailLines    = 50        // last lines of runtime.log kept per entry
	LogTailMaxBytes = 256 << 10 // how much of runtime.log's end is read to find them
	MaxLineBytes    = 2 << 10   // one log line in an entry, longer ones are cut
)

// PhasePreRestart is the phase of a snapshot taken before a restart.
const PhasePreRestart = "pre-restart"

// Why a restart was decided: the kinds of a run's `cause` (docs/runbook.md,
// "Causes"), which begin Entry.Reason ("exited: killed by SIGKILL").
const (
	RestartUnhealthy     = "unhealthy"      // the probe failed twice
	RestartExited        = "exited"         // a process the agent spawned (or watched) exited
	RestartResourceLimit = "resource-limit" // the tree was over a [service.limits] limit for its `for`
	RestartManual        = "manual"         // svc-ctl restart NAME: a person asked
	RestartWake          = "wake"           // found unhealthy by the cycle that runs when the host wakes
)

// cutMarker ends a log line that was longer than MaxLineBytes.
const cutMarker = "…[cut]"

// Transition is one change of a service's state, e.g. healthy -> unhealthy.
type Transition struct {
	At   time.Time `json:"at"`
	From string    `json:"from"`
	To   string    `json:"to"`
	Why  string    `json:"why,omitempty"`
}

// Entry is one snapshot: everything known about a service just before it is
// restarted. Probes and Process are whatever the caller's packages marshal.
type Entry struct {
	Time         time.Time    `json:"time"`                     // UTC
	Service      string       `json:"service"`                  // the [[service]] name
	Reason       string       `json:"reason"`                   // why a restart: its cause, a Restart* kind and its words
	Phase        string       `json:"phase"`                    // what the cycle was doing: PhasePreRestart
	NoProgressMS int64        `json:"no_progress_ms"`           // ms since the last healthy verdict (-1 unknown)
	Transitions  []Transition `json:"transitions"`              // the last MaxTransitions
	Probes       any          `json:"probes"`                   // first and second look results
	Process      any          `json:"process,omitempty"`        // facts of the recorded instance's tree if it still exists
	PortHolder   any          `json:"port_holder,omitempty"`    // who held the health port (pid, program, user, whether ours)
	Hung         []string     `json:"hung,omitempty"`           // members stopped by a signal (SIGSTOP) when it was taken: "pid 4242 (/usr/bin/x, stopped)"
	LogTail      []string     `json:"log_tail"`                 // last LogTailLines lines of runtime.log
	LogTailError string       `json:"log_tail_error,omitempty"` // why LogTail is empty when the log could not be read
	EnvNames     []string     `json:"env_names"`                // names only, never values
	RunID        int64        `json:"run_id,omitempty"`         // the run_trace row of the cycle that took it
}

// EnvNames returns the sorted names of env, never its values: the one way a
// caller should fill Entry.EnvNames.
func EnvNames(env map[string]string) []string {
	return slices.Sorted(maps.Keys(env))
}

// normalized returns a copy of e within the bounds above: time in UTC (now
// when unset), the last MaxTransitions transitions, the last LogTailLines
// lines each cut to MaxLineBytes, env names sorted, unique and stripped of
// anything after '=' (a "NAME=value" passed by mistake must not leak the
// value). Empty lists become [] rather than null, for readers of the JSON.
func normalized(e Entry) Entry {
	if e.Time.IsZero() {
		e.Time = time.Now()
	}
	e.Time = e.Time.UTC()
	e.Transitions = lastTransitions(e.Transitions)
	e.LogTail = cutLines(e.LogTail)
	e.EnvNames = cleanNames(e.EnvNames)
	return e
}

func lastTransitions(ts []Transition) []Transition {
	ts = ts[max(len(ts)-MaxTransitions, 0):]
	out := make([]Transition, len(ts))
	for i, t := range ts {
		t.At = t.At.UTC()
		out[i] = t
	}
	return out
}

func cutLines(lines []string) []string {
	lines = lines[max(len(lines)-LogTailLines, 0):]
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = cutLine(l)
	}
	return out
}

// cutLine keeps the start of a long line (where the timestamp and the message
// usually are), cut on a UTF-8 boundary, so the result is at most MaxLineBytes.
func cutLine(l string) string {
	if len(l) <= MaxLineBytes {
		return l
	}
	end := MaxLineBytes - len(cutMarker)
	for end > 0 && !utf8.RuneStart(l[end]) {
		end--
	}
	return l[:end] + cutMarker
}

func cleanNames(names []string) []string {
	out := make([]string, 0, len(names))
	for _, n := range names {
		n, _, _ = strings.Cut(n, "=")
		if n != "" {
			out = append(out, n)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}
