package ui

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"svcctl/config"
	"svcctl/internal/redact"
	"svcctl/report"
	"svcctl/runtrace"
	"svcctl/snapshot"
	"svcctl/state"
	"svcctl/watchdog"
)

// Detail is what /api/detail answers for a service or job, at a run or now:
// the four-way why, the snapshot written before that restart, and the log
// tails, redacted.
type Detail struct {
	Name     string            `json:"name"`
	Kind     string            `json:"kind"` // service | job | agent
	At       time.Time         `json:"at,omitzero"`
	Why      *report.Diagnosis `json:"why,omitempty"`
	WhyError string            `json:"why_error,omitempty"`
	Cause    string            `json:"cause,omitempty"`
	Snapshot *snapshot.Entry   `json:"snapshot,omitempty"`
	Logs     []LogTail         `json:"logs"`
	Pause    *state.Pause      `json:"pause,omitempty"`
	Paths    map[string]string `json:"paths"`
	// Row is the agent's own run at At (its start, a wake, a reload): the
	// agent has no four-way table, its row and its log say what happened.
	Row *runtrace.Run `json:"row,omitempty"`
}

// LogTail is the end of one log file.
type LogTail struct {
	Name  string   `json:"name"` // runtime.prev.log, runtime.log, last.log
	Path  string   `json:"path"`
	Lines []string `json:"lines"`
	Error string   `json:"error,omitempty"`
}

// tailLines is how much of each log the detail shows.
const (
	tailLines = 40
	tailBytes = 64 << 10
)

func (s *Server) handleDetail(w http.ResponseWriter, r *http.Request) {
	name := r.URL.Query().Get("name")
	at, err := queryTime(r, "at")
	if err != nil {
		fail(w, http.StatusBadRequest, err)
		return
	}
	var d *Detail
	if r.URL.Query().Get("kind") == "agent" { // not a name: a service may be called "agent"
		d, err = s.agentDetail(r.Context(), at)
	} else {
		d, err = s.detail(r.Context(), name, at)
	}
	switch {
	case errors.Is(err, watchdog.ErrUnknownName):
		fail(w, http.StatusNotFound, err)
	case err != nil:
		fail(w, statusOf(err), err)
	default:
		writeJSON(w, http.StatusOK, d)
	}
}

func (s *Server) detail(ctx context.Context, name string, at time.Time) (*Detail, error) {
	view := s.view.Load()
	cfg := view.cfg
	p := state.PathsOf(cfg)
	if err := state.Readable(p); err != nil {
		return nil, err
	}
	d := &Detail{Name: name, At: at, Logs: []LogTail{}, Paths: map[string]string{}}
	red := redact.New(view.secrets...)
	switch {
	case cfg.Service(name) != nil:
		d.Kind = "service"
		d.Logs = append(d.Logs, tailOf(cfg, "runtime.prev.log", name, true, red), tailOf(cfg, "runtime.log", name, false, red))
		d.Paths["snapshots"] = p.Snapshots(name)
		d.Pause, _ = state.ReadPause(p.Paused(name))
	case cfg.Job(name) != nil:
		d.Kind = "job"
		d.Logs = append(d.Logs, tailOf(cfg, "last.prev.log", runtrace.JobID(name), true, red), tailOf(cfg, "last.log", runtrace.JobID(name), false, red))
		d.Pause, _ = state.ReadPause(p.JobPaused(name))
	default:
		return nil, fmt.Errorf("%w: %q", watchdog.ErrUnknownName, name)
	}
	store, err := openLedger(cfg)
	if err != nil {
		d.WhyError = "run_trace unavailable: " + err.Error()
		return d, nil
	}
	defer store.Close()
	why, err := report.Why(ctx, store, cfg, name, at, s.opts.Now())
	if err != nil {
		d.WhyError = err.Error()
		return d, nil
	}
	d.Why = why
	if d.Kind == "service" {
		d.Snapshot, d.Cause = snapshotBefore(p.Snapshots(name), why.Row, at)
	}
	return d, nil
}

// snapshotBefore is the snapshot that belongs to the run the detail is
// about: the one its cycle wrote (same run id); for a restart or a failed
// start of an older ledger (snapshots without run ids), the newest taken at
// or before it; for any other run, none (an old snapshot beside a paused or
// healthy cycle would explain nothing). Asked about no time in particular
// (the service's name was clicked), it is the latest snapshot. It also
// returns the run's cause.
func snapshotBefore(path string, row *runtrace.Run, at time.Time) (*snapshot.Entry, string) {
	es, _, _ := snapshot.Read(path, 500)
	reasons := map[int64]string{}
	for _, e := range es {
		if e.RunID > 0 {
			reasons[e.RunID] = e.Reason
		}
	}
	cause := ""
	if row != nil && (isRestart(*row) || reasons[row.ID] != "") {
		cause = causeOf(*row, reasons)
	}
	if len(es) == 0 {
		return nil, cause
	}
	// es is newest first (snapshot.Read).
	if at.IsZero() {
		return &es[0], cause
	}
	if row == nil {
		return nil, cause
	}
	for i := range es {
		if es[i].RunID == row.ID {
			return &es[i], cause
		}
	}
	if !isRestart(*row) && row.Reason != runtrace.ReasonStartFailed && row.Reason != runtrace.ReasonSpawnError {
		return nil, cause
	}
	for i := range es {
		if es[i].RunID == 0 && !es[i].Time.After(row.StartedAt.Add(time.Second)) {
			return &es[i], cause
		}
	}
	return nil, cause
}

// tailOf reads the end of a log (report.LogOf names it: who, prev), through
// its pinned directory as `svc-ctl logs` reads it, and redacts it: a
// service writes its own log, so nothing in it was scrubbed.
func tailOf(cfg *config.Config, label, who string, prev bool, red *redact.Redactor) LogTail {
	l, err := report.LogOf(cfg, who, prev)
	t := LogTail{Name: label, Path: l.Path, Lines: []string{}}
	if err != nil {
		t.Error = err.Error()
		return t
	}
	defer l.Close()
	lines, err := report.LastLines(l, tailLines, tailBytes)
	if err != nil {
		t.Error = state.Denied(l.Path, err).Error()
		return t
	}
	if lines != nil {
		t.Lines = red.Lines(lines)
	}
	return t
}

// agentDetail is the agent's row at (or before) at and the end of its log.
func (s *Server) agentDetail(ctx context.Context, at time.Time) (*Detail, error) {
	view := s.view.Load()
	cfg := view.cfg
	p := state.PathsOf(cfg)
	if err := state.Readable(p); err != nil {
		return nil, err
	}
	red := redact.New(view.secrets...)
	d := &Detail{Name: "agent", Kind: "agent", At: at, Paths: map[string]string{"log": p.AgentLog()},
		Logs: []LogTail{tailOf(cfg, "agent.log", report.LogAgent, false, red)}}
	store, err := openLedger(cfg)
	if err != nil {
		d.WhyError = "run_trace unavailable: " + err.Error()
		return d, nil
	}
	defer store.Close()
	until := s.opts.Now()
	if !at.IsZero() {
		until = at.Add(time.Millisecond)
	}
	if d.Row, err = store.LatestBefore(ctx, runtrace.AgentID, until); err != nil {
		d.WhyError = err.Error()
	}
	return d, nil
}
