package metrics

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
	"sync"
	"time"

	"svcctl/notify"
	"svcctl/runtrace"
	"svcctl/state"
)

// Counters holds the agent's counters for /metrics (opt-in: metrics_listen).
// The Prometheus text format is a few lines of printing; it does not warrant
// the client library and its dependency tree in an agent that aims at 10 MiB.
type Counters struct {
	mu         sync.Mutex
	started    time.Time
	cycles     map[[3]string]float64 // service, outcome, reason
	restarts   map[[2]string]float64 // service, by (restart_by: watchdog, person, reload)
	jobRuns    map[[3]string]float64 // job, outcome, reason
	lastCycle  map[string]time.Time
	state      map[string]string
	jobSuccess map[string]time.Time
	ledger     func() runtrace.Health // nil: no ledger
}

// New returns the counters of an agent started at started; ledger reports
// the ledger's write health (nil: no ledger).
func New(started time.Time, ledger func() runtrace.Health) *Counters {
	return &Counters{started: started, ledger: ledger, cycles: map[[3]string]float64{}, restarts: map[[2]string]float64{}, jobRuns: map[[3]string]float64{},
		lastCycle: map[string]time.Time{}, state: map[string]string{}, jobSuccess: map[string]time.Time{}}
}

// RunStarted: metrics count verdicts, not starts.
func (m *Counters) RunStarted(string, runtrace.Trigger, int64) {}

// RunFinished counts every verdict that passes the funnel: a watchdog
// cycle or a job run.
func (m *Counters) RunFinished(r runtrace.Run) {
	kind, name := runtrace.SplitID(r.JobID)
	m.mu.Lock()
	defer m.mu.Unlock()
	switch kind {
	case runtrace.KindWatchdog:
		m.cycles[[3]string{name, string(r.Outcome), string(r.Reason)}]++
		if by := runtrace.RestartBy(r); by != "" {
			m.restarts[[2]string{name, by}]++
		}
		m.lastCycle[name] = time.Now()
		var d struct {
			State string `json:"state"`
		}
		if json.Unmarshal(r.Detail, &d) == nil && d.State != "" {
			m.state[name] = d.State
		}
	case runtrace.KindJob:
		m.jobRuns[[3]string{name, string(r.Outcome), string(r.Reason)}]++
		if r.Outcome == runtrace.OutcomeOK {
			m.jobSuccess[name] = time.Now()
		}
	}
}

// Write prints the Prometheus text exposition format.
func (m *Counters) Write(w io.Writer) {
	m.mu.Lock()
	defer m.mu.Unlock()
	fmt.Fprintf(w, "# HELP svcctl_agent_start_time_seconds When this agent process started.\n# TYPE svcctl_agent_start_time_seconds gauge\nsvcctl_agent_start_time_seconds %d\n", m.started.Unix())
	m.writeLedger(w)
	fmt.Fprintln(w, "# HELP svcctl_cycles_total Watchdog cycles by outcome and reason.\n# TYPE svcctl_cycles_total counter")
	for _, k := range sortedKeys(m.cycles) {
		fmt.Fprintf(w, "svcctl_cycles_total{service=%q,outcome=%q,reason=%q} %g\n", k[0], k[1], k[2], m.cycles[k])
	}
	fmt.Fprintln(w, "# HELP svcctl_service_restarts_total Restarts: an instance that had been healthy replaced, by whom (watchdog, person, reload).\n# TYPE svcctl_service_restarts_total counter")
	for _, k := range sortedKeys2(m.restarts) {
		fmt.Fprintf(w, "svcctl_service_restarts_total{service=%q,by=%q} %g\n", k[0], k[1], m.restarts[k])
	}
	fmt.Fprintln(w, "# HELP svcctl_service_state The state of each service (1 for the current one).\n# TYPE svcctl_service_state gauge")
	for _, svc := range sortedNames(m.state) {
		for _, st := range state.All {
			fmt.Fprintf(w, "svcctl_service_state{service=%q,state=%q} %d\n", svc, st, b2i(m.state[svc] == st))
		}
	}
	fmt.Fprintln(w, "# HELP svcctl_service_last_cycle_timestamp_seconds When the service last cycled.\n# TYPE svcctl_service_last_cycle_timestamp_seconds gauge")
	for _, svc := range sortedNames(m.lastCycle) {
		fmt.Fprintf(w, "svcctl_service_last_cycle_timestamp_seconds{service=%q} %d\n", svc, m.lastCycle[svc].Unix())
	}
	fmt.Fprintln(w, "# HELP svcctl_job_runs_total Job runs by outcome and reason.\n# TYPE svcctl_job_runs_total counter")
	for _, k := range sortedKeys(m.jobRuns) {
		fmt.Fprintf(w, "svcctl_job_runs_total{job=%q,outcome=%q,reason=%q} %g\n", k[0], k[1], k[2], m.jobRuns[k])
	}
	fmt.Fprintln(w, "# HELP svcctl_job_last_success_timestamp_seconds When the job last completed.\n# TYPE svcctl_job_last_success_timestamp_seconds gauge")
	for _, j := range sortedNames(m.jobSuccess) {
		fmt.Fprintf(w, "svcctl_job_last_success_timestamp_seconds{job=%q} %d\n", j, m.jobSuccess[j].Unix())
	}
}

// Points are the counters for an otlp channel's metrics (notify
// otlp_metrics.go): cycles and job runs by outcome and reason (cumulative
// since the agent started), each service's state, the ledger's health.
func (m *Counters) Points() []notify.MetricPoint {
	var h runtrace.Health
	if m.ledger != nil {
		h = m.ledger()
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []notify.MetricPoint
	for _, k := range sortedKeys(m.cycles) {
		out = append(out, notify.MetricPoint{Name: "svcctl.cycles", Unit: "{cycle}", Counter: true,
			Description: "Watchdog cycles by outcome and reason.", Value: int64(m.cycles[k]),
			Attrs: map[string]string{"svcctl.service": k[0], "svcctl.outcome": k[1], "svcctl.reason": k[2]}})
	}
	for _, k := range sortedKeys(m.jobRuns) {
		out = append(out, notify.MetricPoint{Name: "svcctl.job.runs", Unit: "{run}", Counter: true,
			Description: "Job runs by outcome and reason.", Value: int64(m.jobRuns[k]),
			Attrs: map[string]string{"svcctl.job": k[0], "svcctl.outcome": k[1], "svcctl.reason": k[2]}})
	}
	for _, k := range sortedKeys2(m.restarts) {
		out = append(out, notify.MetricPoint{Name: "svcctl.service.restarts", Unit: "{restart}", Counter: true,
			Description: "Restarts: an instance that had been healthy replaced, by whom (watchdog, person, reload).", Value: int64(m.restarts[k]),
			Attrs: map[string]string{"svcctl.service": k[0], "svcctl.restart_by": k[1]}})
	}
	for _, svc := range sortedNames(m.state) {
		out = append(out, notify.MetricPoint{Name: "svcctl.service.state", Unit: "1",
			Description: "The state of each service (1 for the current one).", Value: 1,
			Attrs: map[string]string{"svcctl.service": svc, "svcctl.state": m.state[svc]}})
	}
	out = append(out,
		notify.MetricPoint{Name: "svcctl.ledger.up", Unit: "1", Description: "Whether run_trace takes writes.", Value: int64(b2i(h.Up))},
		notify.MetricPoint{Name: "svcctl.ledger.pending_rows", Unit: "{row}", Description: "Rows waiting in memory to be written to run_trace.", Value: int64(h.Pending)},
		notify.MetricPoint{Name: "svcctl.ledger.rows_lost", Unit: "{row}", Counter: true, Description: "Rows dropped because the queue of waiting rows was full.", Value: int64(h.TotalLost)},
	)
	return out
}

// writeLedger prints the ledger's write health: whether it takes writes,
// how many rows wait for it, and how many were written late or lost.
func (m *Counters) writeLedger(w io.Writer) {
	var h runtrace.Health
	if m.ledger != nil {
		h = m.ledger()
	}
	fmt.Fprintf(w, "# HELP svcctl_ledger_up Whether run_trace takes writes (0: rows wait in memory; see svc-ctl status).\n# TYPE svcctl_ledger_up gauge\nsvcctl_ledger_up %d\n", b2i(h.Up))
	fmt.Fprintf(w, "# HELP svcctl_ledger_pending_rows Rows waiting in memory to be written to run_trace.\n# TYPE svcctl_ledger_pending_rows gauge\nsvcctl_ledger_pending_rows %d\n", h.Pending)
	fmt.Fprintf(w, "# HELP svcctl_ledger_rows_written_late_total Rows written to run_trace after waiting in memory.\n# TYPE svcctl_ledger_rows_written_late_total counter\nsvcctl_ledger_rows_written_late_total %d\n", h.TotalWrittenLate)
	fmt.Fprintf(w, "# HELP svcctl_ledger_rows_lost_total Rows dropped because the queue of waiting rows was full.\n# TYPE svcctl_ledger_rows_lost_total counter\nsvcctl_ledger_rows_lost_total %d\n", h.TotalLost)
	fmt.Fprintln(w, "# HELP svcctl_ledger_write_failing Why run_trace refuses writes (1 for the current cause).\n# TYPE svcctl_ledger_write_failing gauge")
	if !h.Up && h.Cause != "" {
		fmt.Fprintf(w, "svcctl_ledger_write_failing{cause=%q} 1\n", h.Cause)
	}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

func sortedKeys(m map[[3]string]float64) [][3]string {
	ks := make([][3]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Slice(ks, func(i, j int) bool { return strings.Join(ks[i][:], "\x00") < strings.Join(ks[j][:], "\x00") })
	return ks
}

func sortedKeys2(m map[[2]string]float64) [][2]string {
	ks := make([][2]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Slice(ks, func(i, j int) bool { return ks[i][0]+"\x00"+ks[i][1] < ks[j][0]+"\x00"+ks[j][1] })
	return ks
}

func sortedNames[V any](m map[string]V) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}
