package ui

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"time"

	"svcctl/config"
	"svcctl/report"
	"svcctl/runtrace"
	"svcctl/state"
)

// Timeline is what /api/timeline answers: one strip per service and job
// (and one for the agent) over [From, To).
type Timeline struct {
	Range    string    `json:"range"` // fit | 1h | 24h | 7d
	From     time.Time `json:"from"`
	To       time.Time `json:"to"`
	BucketMS int64     `json:"bucket_ms"` // width of one Ran bucket
	Strips   []Strip   `json:"strips"`
	Sleeps   []Sleep   `json:"sleeps"` // the host's sleep periods, from the agent's ok/resumed rows
	Error    string    `json:"error,omitempty"`
}

// Strip is one service's, job's or the agent's runs in the window.
type Strip struct {
	ID      string `json:"id"`   // watchdog:web, job:pull, agent
	Kind    string `json:"kind"` // service | job | agent
	Name    string `json:"name"`
	Marks   []Mark `json:"marks"`   // every run that is not a routine healthy cycle, oldest first
	Missing []Slot `json:"missing"` // expected job slots with no row (hollow marks)
	// Ran is 1 for each of the window's buckets in which some run started,
	// routine or not, else 0: where nothing ran, the agent was down or the
	// host asleep.
	Ran []int `json:"ran"`
	// IntervalMS is a service's cycle interval: a gap in Ran shorter than
	// about one interval is the rhythm of its cycles, not an outage.
	IntervalMS int64 `json:"interval_ms,omitempty"`
	Truncated  bool  `json:"truncated,omitempty"` // more marks than maxMarks: the oldest are left out
}

// Mark is one run as the page draws and explains it.
type Mark struct {
	ID         int64            `json:"id"`
	At         time.Time        `json:"at"` // started
	End        time.Time        `json:"end,omitzero"`
	Slot       time.Time        `json:"slot,omitzero"`
	Trigger    runtrace.Trigger `json:"trigger"`
	Outcome    runtrace.Outcome `json:"outcome"`
	Reason     runtrace.Reason  `json:"reason,omitempty"`
	DurationMS int64            `json:"duration_ms,omitempty"`
	Restart    bool             `json:"restart,omitempty"`    // an instance that had been healthy was replaced
	RestartBy  string           `json:"restart_by,omitempty"` // by whom: watchdog, person, reload
	Cause      string           `json:"cause,omitempty"`      // why the old one was stopped (restarts and failed restarts)
	Message    string           `json:"message,omitempty"`
	By         string           `json:"by,omitempty"`      // who asked, for manual runs that say
	AwayMS     int64            `json:"away_ms,omitempty"` // the agent's wake rows: how long the host was away
}

// Slot is a missing slot: its time, and in the job's zone for the hover.
type Slot struct {
	At     time.Time `json:"at"`
	InZone string    `json:"in_zone"`
}

// Sleep is a period the host was away.
type Sleep struct {
	From time.Time `json:"from"`
	To   time.Time `json:"to"`
}

// ranges the page offers: the history there is ("fit", the default: from
// the first run, at least 5 minutes and at most a day, so a fresh agent's
// first minute is not a sliver at the edge of a day), the last hour, a
// day, a week. Each is cut into 288 buckets.
var ranges = map[string]time.Duration{"fit": 24 * time.Hour, "1h": time.Hour, "24h": 24 * time.Hour, "7d": 7 * 24 * time.Hour}

// fitMin is the shortest span "fit" shows.
const fitMin = 5 * time.Minute

const (
	buckets  = 288
	maxMarks = 1500 // per strip: a job every minute for a day is 1440
)

func (s *Server) handleTimeline(w http.ResponseWriter, r *http.Request) {
	rg := r.URL.Query().Get("range")
	if rg == "" {
		rg = "fit"
	}
	span, ok := ranges[rg]
	if !ok {
		fail(w, http.StatusBadRequest, fmt.Errorf("range %q: want fit, 1h, 24h or 7d", rg))
		return
	}
	c, _ := s.timeline.LoadOrStore(rg, &cached[*Timeline]{})
	now := s.opts.Now()
	tl := c.(*cached[*Timeline]).get(now, 2*time.Second, func() *Timeline {
		ctx := context.WithoutCancel(r.Context())
		if rg == "fit" {
			span = fitSpan(ctx, s.Config(), now)
		}
		t := buildTimeline(ctx, s.Config(), now, span)
		t.Range = rg
		return t
	})
	writeJSON(w, http.StatusOK, tl)
}

// fitSpan is the span that shows the history there is: since the first run
// of the last day, at least fitMin.
func fitSpan(ctx context.Context, cfg *config.Config, now time.Time) time.Duration {
	store, err := openLedger(cfg)
	if err != nil {
		return roundSpan(fitMin)
	}
	defer store.Close()
	first, err := store.FirstRunSince(ctx, now.Add(-24*time.Hour))
	if err != nil || first.IsZero() {
		return roundSpan(fitMin)
	}
	// A little room before the first run, so its mark is not on the edge.
	return roundSpan(min(max(now.Sub(first)*11/10, fitMin), 24*time.Hour))
}

// roundSpan rounds a span up so that each of its buckets is a whole number
// of 10 ms: bucket_ms, which the page draws with, is then exact.
func roundSpan(d time.Duration) time.Duration {
	unit := buckets * 10 * time.Millisecond
	return (d + unit - 1) / unit * unit
}

// buildTimeline reads the window's runs from the ledger (read-only). A
// ledger that cannot be read gives strips without marks and says why.
func buildTimeline(ctx context.Context, cfg *config.Config, now time.Time, span time.Duration) *Timeline {
	to := now.UTC().Truncate(time.Second).Add(time.Second)
	from := to.Add(-span)
	bucket := span / buckets
	tl := &Timeline{From: from, To: to, BucketMS: bucket.Milliseconds(), Sleeps: []Sleep{}}
	store, err := openLedger(cfg)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		tl.Error = "no runs yet: no agent or `svc-ctl start` has run with this state dir (" + state.PathsOf(cfg).DB() + ")"
	case err != nil:
		tl.Error = "run_trace unavailable: " + err.Error()
	default:
		defer store.Close()
	}
	snaps := snapshotReasons{paths: state.PathsOf(cfg)}
	for _, svc := range cfg.Services {
		st := Strip{ID: runtrace.WatchdogID(svc.Name), Kind: "service", Name: svc.Name, IntervalMS: svc.Interval.Milliseconds()}
		fillStrip(ctx, store, &st, from, to, bucket, snaps.of(svc.Name))
		tl.Strips = append(tl.Strips, st)
	}
	for i := range cfg.Jobs {
		j := &cfg.Jobs[i]
		st := Strip{ID: runtrace.JobID(j.Name), Kind: "job", Name: j.Name}
		fillStrip(ctx, store, &st, from, to, bucket, nil)
		if store != nil {
			if js, err := report.SlotsFor(ctx, store, j, from, now); err == nil {
				for _, m := range js.Missing {
					st.Missing = append(st.Missing, Slot{At: m.UTC(), InZone: m.In(j.Location).Format("Mon 2 Jan 15:04 MST")})
				}
			}
		}
		tl.Strips = append(tl.Strips, st)
	}
	ag := Strip{ID: runtrace.AgentID, Kind: "agent", Name: "agent", IntervalMS: cfg.Agent.Heartbeat.Milliseconds()}
	fillStrip(ctx, store, &ag, from, to, bucket, nil)
	for _, m := range ag.Marks {
		if m.Reason == runtrace.ReasonResumed && m.AwayMS > 0 {
			tl.Sleeps = append(tl.Sleeps, Sleep{From: m.At.Add(-time.Duration(m.AwayMS) * time.Millisecond), To: m.At})
		}
	}
	tl.Strips = append(tl.Strips, ag)
	return tl
}

func fillStrip(ctx context.Context, store *runtrace.Store, st *Strip, from, to time.Time, bucket time.Duration, snapReasons map[int64]string) {
	st.Marks, st.Missing, st.Ran = []Mark{}, []Slot{}, make([]int, buckets)
	if store == nil {
		return
	}
	runs, err := store.Notable(ctx, st.ID, from, to, maxMarks+1)
	if err != nil {
		return
	}
	if len(runs) > maxMarks {
		runs, st.Truncated = runs[:maxMarks], true
	}
	for i := len(runs) - 1; i >= 0; i-- { // oldest first: later marks draw on top
		st.Marks = append(st.Marks, markOf(runs[i], snapReasons))
	}
	if ran, err := store.Ran(ctx, st.ID, from, bucket, buckets); err == nil {
		for b, r := range ran {
			if r {
				st.Ran[b] = 1
			}
		}
	}
}

func markOf(r runtrace.Run, snapReasons map[int64]string) Mark {
	m := Mark{ID: r.ID, At: r.StartedAt, End: r.FinishedAt, Slot: r.ScheduledAt, Trigger: r.Trigger,
		Outcome: r.Outcome, Reason: r.Reason, DurationMS: r.Duration.Milliseconds(), Restart: isRestart(r)}
	if m.Restart {
		m.RestartBy = runtrace.RestartBy(r)
	}
	var d struct {
		Message string `json:"message"`
		Error   string `json:"error"`
		Cause   string `json:"cause"`
		By      string `json:"by"`
		AwayMS  int64  `json:"away_ms"`
	}
	json.Unmarshal(r.Detail, &d) // not an object: a mark without words
	m.Message, m.By, m.AwayMS = d.Message, d.By, d.AwayMS
	if m.Message == "" {
		m.Message = d.Error
	}
	if m.Restart || d.Cause != "" || snapReasons[r.ID] != "" {
		m.Cause = causeOf(r, snapReasons)
	}
	return m
}
