package ui

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"os"
	"sync"
	"time"

	"github.com/shirou/gopsutil/v4/host"

	"svcctl/config"
	"svcctl/report"
	"svcctl/runtrace"
	"svcctl/snapshot"
	"svcctl/state"
)

// Page is what /api/state answers: everything the page shows but the
// timeline and the detail, as of Now.
type Page struct {
	Now      time.Time              `json:"now"`
	Host     string                 `json:"host"`
	Config   string                 `json:"config"`
	StateDir string                 `json:"state_dir"`
	Version  string                 `json:"version"` // this svc-ctl's
	Agent    report.AgentStatus     `json:"agent"`
	Install  *report.InstallInfo    `json:"install,omitempty"`
	Ledger   report.LedgerStatus    `json:"ledger"`
	Services []ServiceView          `json:"services"`
	Jobs     []JobView              `json:"jobs"`
	Channels []report.ChannelStatus `json:"channels"`
	Verify   *VerifySummary         `json:"verify,omitempty"`
	Actions  []string               `json:"actions"` // what the page may ask for
	// ConfigError is why the config file does not load now ("" when it
	// does): the page shows it in a banner, and actions are refused (409)
	// until the file is fixed.
	ConfigError string `json:"config_error"`
	// ConfigShown says what the services and jobs come from: "file",
	// "state_dir" (the file does not load) or "previous" (the file cannot be
	// used at all; the config shown before is kept).
	ConfigShown string `json:"config_shown"`
}

// ServiceView is a service's line of `svc-ctl status` and what the page adds.
type ServiceView struct {
	report.ServiceStatus
	CPUPercent   *float64 `json:"cpu_pct,omitempty"` // of one core, since the page's previous look
	RestartCause string   `json:"last_restart_cause,omitempty"`
}

// JobView is a job's line of `svc-ctl status` and what the page adds.
type JobView struct {
	report.JobStatus
	NextInZone  string `json:"next_in_zone,omitempty"` // the next slot in the job's own zone, with the zone
	LastMessage string `json:"last_message,omitempty"`
	LastSlot    string `json:"last_slot,omitempty"` // the slot the last run served, in the job's zone
}

// VerifySummary is `svc-ctl verify` in short: the counts and what is not
// PASS.
type VerifySummary struct {
	At     time.Time      `json:"at"`
	OK     bool           `json:"ok"`
	Pass   int            `json:"pass"`
	Warn   int            `json:"warn"`
	Fail   int            `json:"fail"`
	Issues []report.Check `json:"issues,omitempty"`
}

func (s *Server) handleState(w http.ResponseWriter, r *http.Request) {
	p, err := s.page(r.Context())
	if err != nil {
		fail(w, statusOf(err), err)
		return
	}
	writeJSON(w, http.StatusOK, p)
}

// statusOf: a state dir this process may not read is 403, the rest 500.
func statusOf(err error) int {
	var d *state.DeniedError
	if errors.As(err, &d) {
		return http.StatusForbidden
	}
	return http.StatusInternalServerError
}

// openLedger opens run_trace read-only, as every reader does: no file
// created, no migration, no write.
func openLedger(cfg *config.Config) (*runtrace.Store, error) {
	path := state.PathsOf(cfg).DB()
	if _, err := os.Stat(path); err != nil {
		return nil, state.Denied(path, err)
	}
	st, err := runtrace.Open(path, runtrace.Options{BusyTimeout: 3 * time.Second, ReadOnly: true, Logger: slog.New(slog.DiscardHandler)})
	return st, state.Denied(path, err)
}

// bootTime is the host's, for verify's "started since boot".
func bootTime() time.Time {
	bt, err := host.BootTime()
	if err != nil {
		return time.Time{}
	}
	return time.Unix(int64(bt), 0).UTC()
}

func (s *Server) page(ctx context.Context) (*Page, error) {
	view := s.current(ctx)
	cfg := view.cfg
	now := s.opts.Now()
	st, err := report.BuildStatus(ctx, cfg, now)
	if err != nil {
		return nil, err
	}
	host, _ := os.Hostname()
	p := &Page{Now: st.Now, Host: host, Config: st.Config, StateDir: st.StateDir, Version: s.opts.Version,
		Agent: st.Agent, Ledger: st.Ledger, Channels: st.Channels, Actions: s.actions(),
		Services: []ServiceView{}, Jobs: []JobView{}, // [] not null: a config may have no jobs (or no services)
		ConfigShown: view.shown}
	if view.broken != nil {
		p.ConfigError = view.broken.Error()
	}
	if s.opts.Install != nil {
		if info, ok := s.install.peek(&s.bg, now, time.Minute, s.opts.Install); ok {
			p.Install = &info
		}
	}
	var store *runtrace.Store
	if st.Ledger.OK {
		if store, err = openLedger(cfg); err == nil {
			defer store.Close()
		}
	}
	snaps := snapshotReasons{paths: state.PathsOf(cfg)}
	for _, sv := range st.Services {
		v := ServiceView{ServiceStatus: sv, CPUPercent: s.cpu.percent(sv.Name, sv.Instance, now)}
		if store != nil {
			if r, err := store.LastRestart(ctx, runtrace.WatchdogID(sv.Name)); err == nil && r != nil {
				// The last restart, as status counts it, with its cause.
				v.LastRestart, v.RestartCause = r.StartedAt, causeOf(*r, snaps.of(sv.Name))
			}
		}
		p.Services = append(p.Services, v)
	}
	for _, js := range st.Jobs {
		p.Jobs = append(p.Jobs, s.jobView(ctx, cfg, js, store))
	}
	if view.shown != ShownStateDir {
		// verify judges a config: the state dir's stand-in would fail
		// checks the file does not ask for.
		p.Verify = s.verifySummary(ctx, cfg, now)
	}
	return p, nil
}

// jobView adds to a job's status line its next slot in its own zone and
// what its last run said.
func (s *Server) jobView(ctx context.Context, cfg *config.Config, js report.JobStatus, store *runtrace.Store) JobView {
	v := JobView{JobStatus: js}
	j := cfg.Job(js.Name)
	if j == nil {
		return v
	}
	if !js.NextSlot.IsZero() {
		v.NextInZone = js.NextSlot.In(j.Location).Format("Mon 15:04 MST")
	}
	if store == nil || js.LastRun == nil {
		return v
	}
	if r, err := store.Latest(ctx, runtrace.JobID(js.Name)); err == nil && r != nil {
		v.LastMessage = detailMessage(r.Detail)
		if !r.ScheduledAt.IsZero() {
			v.LastSlot = r.ScheduledAt.In(j.Location).Format("Mon 15:04 MST")
		}
	}
	return v
}

// verifySummary is verify's answer, at most a minute old (it reads the
// whole ledger for its quick_check: not something to do every 2 s).
func (s *Server) verifySummary(ctx context.Context, cfg *config.Config, now time.Time) *VerifySummary {
	rep, _ := s.verify.peek(&s.bg, now, time.Minute, func() *report.VerifyReport {
		env := report.VerifyEnv{Now: now, BootTime: bootTime()}
		if s.opts.Install != nil {
			env.Install = s.install.get(now, time.Minute, s.opts.Install)
		}
		return report.Verify(context.WithoutCancel(ctx), cfg, env)
	})
	if rep == nil {
		return nil
	}
	v := &VerifySummary{At: rep.Now, OK: rep.OK}
	for _, c := range rep.Checks {
		switch c.Status {
		case report.Pass:
			v.Pass++
			continue
		case report.Warn:
			v.Warn++
		case report.Fail:
			v.Fail++
		}
		v.Issues = append(v.Issues, c)
	}
	return v
}

// detailMessage is the row's own short words (detail.message, else error).
func detailMessage(raw json.RawMessage) string {
	var d struct {
		Message string `json:"message"`
		Error   string `json:"error"`
	}
	if json.Unmarshal(raw, &d) != nil {
		return ""
	}
	if d.Message != "" {
		return d.Message
	}
	return d.Error
}

// snapshotReasons reads each service's snapshots.jsonl at most once per
// answer: run id -> the reason its snapshot gives for the restart.
type snapshotReasons struct {
	paths state.Paths
	by    map[string]map[int64]string
}

func (sr *snapshotReasons) of(service string) map[int64]string {
	if m, ok := sr.by[service]; ok {
		return m
	}
	if sr.by == nil {
		sr.by = map[string]map[int64]string{}
	}
	m := map[int64]string{}
	if es, _, err := snapshot.Read(sr.paths.Snapshots(service), 500); err == nil {
		for _, e := range es {
			if e.RunID > 0 {
				m[e.RunID] = e.Reason
			}
		}
	}
	sr.by[service] = m
	return m
}

// cpuSampler turns each service tree's cumulative CPU seconds into a
// percentage of one core between two looks of the page.
type cpuSampler struct {
	mu   sync.Mutex
	last map[string]cpuSample
}

type cpuSample struct {
	leader  int32
	started time.Time
	cpu     float64
	at      time.Time
	pct     *float64 // over the interval that ended at this sample
}

// minCPUInterval: two looks closer than this (two open tabs) keep the
// previous figure rather than divide by almost nothing.
const minCPUInterval = time.Second

func (c *cpuSampler) percent(name string, in *report.Instance, now time.Time) *float64 {
	if in == nil || in.Processes == 0 {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.last == nil {
		c.last = map[string]cpuSample{}
	}
	cur := cpuSample{leader: in.LeaderPID, started: in.StartedAt, cpu: in.CPUSeconds, at: now}
	prev, ok := c.last[name]
	same := ok && prev.leader == cur.leader && prev.started.Equal(cur.started) && cur.cpu >= prev.cpu
	if same && now.Sub(prev.at) < minCPUInterval {
		return prev.pct
	}
	switch {
	case same:
		pct := (cur.cpu - prev.cpu) / now.Sub(prev.at).Seconds() * 100
		cur.pct = &pct
	case in.UptimeS > 0:
		// A first look: the average over the instance's life, until the
		// next look gives the current figure.
		pct := in.CPUSeconds / float64(in.UptimeS) * 100
		cur.pct = &pct
	}
	c.last[name] = cur
	return cur.pct
}
