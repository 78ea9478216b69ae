package browser

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"svcctl/config"
	"svcctl/internal/testutil"
	"svcctl/runtrace"
	"svcctl/snapshot"
	"svcctl/state"
)

// TestStatusPageShowsADay: the page over a day of history — restarts of
// every cause, a failed start and its backoff, a pause, a failed and a
// job-skipped run, slots missed while the host slept — renders every kind
// of mark, the sleep shading and the cause labels, with no console error.
// The day before the live agent starts is written into the ledger through
// runtrace, as the agent would have written it; its screenshot is the one
// docs/ui.md shows.
func TestStatusPageShowsADay(t *testing.T) {
	exe := needBrowser(t)
	e := newEnv(t, func(e *env) string {
		return e.service("web", e.webAddr, "10m") + e.service("api", e.apiAddr, "10m") +
			e.job("nightly-pull", "0 * * * *", "Asia/Shanghai") + e.job("backup", "30 2 * * *", "Europe/Berlin")
	})
	cfg, err := config.Load(e.cfg)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now().UTC()
	seedDay(t, cfg, now)
	e.start(false, "agent", "--max-stagger", "200ms")
	testutil.WaitFor(t, 30*time.Second, "web and api started by the agent", func() bool {
		return testutil.Healthy(e.webAddr) && testutil.Healthy(e.apiAddr)
	})
	url := e.start(true, "ui")

	b := newBrowser(t, exe)
	b.do("load the page",
		chromedp.Navigate(url),
		chromedp.WaitVisible(chromedp.CSS(`#services .item`)),
		chromedp.WaitReady(chromedp.CSS(`#timeline .mark.missing`)))
	counts := eval[map[string]int](b, `(() => { const n = s => document.querySelectorAll('#timeline ' + s).length;
		return {restart: n('.mark.restart'), failed: n('.mark.failed'), skipped: n('.mark.skipped'), ok: n('.mark.ok:not(.restart)'),
			missing: n('.mark.missing'), sleep: n('rect.sleep'), density: n('rect.density')} })()`)
	for kind, atLeast := range map[string]int{"restart": 5, "failed": 2, "skipped": 3, "ok": 10, "missing": 2, "sleep": 1, "density": 2} {
		if counts[kind] < atLeast {
			t.Errorf("%d %s marks on the timeline, want at least %d (all: %v)", counts[kind], kind, atLeast, counts)
		}
	}
	labels := eval[string](b, `Array.from(document.querySelectorAll('#timeline .m-cause')).map(x => x.textContent).join(' ')`)
	for _, want := range []string{"exited", "resource-limit", "manual"} {
		if !strings.Contains(labels, want) {
			t.Errorf("cause labels %q lack %q", labels, want)
		}
	}
	jobs := b.text(`#jobs`)
	if !strings.Contains(jobs, "nightly-pull") || !strings.Contains(jobs, "backup") || !strings.Contains(jobs, "CST") {
		t.Errorf("jobs = %q, want both with the next run in their zone", jobs)
	}
	b.shot("ui.png")
	// A hover on the failed run of nightly-pull: the tooltip is the row.
	b.do("hover a failed run", js(`document.querySelector('#timeline [data-key="job:nightly-pull"] .mark.failed').dispatchEvent(new MouseEvent('mouseover', {bubbles: true}))`))
	if tip := b.text(`#tip`); !strings.Contains(tip, "failed/exit-nonzero") || !strings.Contains(tip, "upstream 502") {
		t.Errorf("tooltip of the failed run = %q, want its verdict and message", tip)
	}
	b.shotViewport("ui-tooltip.png")
	// The agent's wake opens its own row: how long the host was away.
	b.do("open the wake", js(`Array.from(document.querySelectorAll('#timeline [data-key="agent"] .mark')).find(m => (m.getAttribute('aria-label') || '').includes('host woke')).dispatchEvent(new MouseEvent('click', {bubbles: true}))`),
		chromedp.WaitVisible(chromedp.CSS(`#detail dl.kv`)))
	if wake := b.text(`#detail`); !strings.Contains(wake, "ok/resumed") || !strings.Contains(wake, "away ms") {
		t.Errorf("the wake's detail = %q, want its row with away_ms", wake)
	}
	b.do("close the detail", js(`document.getElementById('detail').close()`))
	b.shot("ui-week.png", js(`document.querySelector('[data-range="7d"]').click()`),
		chromedp.WaitReady(chromedp.CSS(`#timeline svg[aria-label$="last 7 days"]`)))
	b.shot("ui-dark.png", js(`document.querySelector('[data-range="24h"]').click()`), dark(),
		chromedp.WaitReady(chromedp.CSS(`#timeline svg[aria-label$="last 24 hours"]`)))
	b.shotViewport("ui-side-panel.png", chromedp.EmulateViewport(640, 900), chromedp.WaitReady(chromedp.CSS(`#timeline .mark`)))
	b.shotViewport("ui-narrow-dark.png", chromedp.EmulateViewport(420, 860), dark(), chromedp.WaitReady(chromedp.CSS(`#timeline .mark`)))
	b.noProblems()
}

// seedDay writes the 24 hours before now into the ledger and the
// snapshots, as an agent running through that day would have.
func seedDay(t *testing.T, cfg *config.Config, now time.Time) {
	t.Helper()
	p := state.PathsOf(cfg)
	st, err := runtrace.Open(p.DB(), runtrace.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ctx := context.Background()
	ago := func(d time.Duration) time.Time { return now.Add(-d).Truncate(time.Second) }
	// Asleep for 2 h from 5 min before an hour: two hourly slots missed.
	sleepFrom := now.Add(-9 * time.Hour).Truncate(time.Hour).Add(-5 * time.Minute)
	sleepTo := sleepFrom.Add(2 * time.Hour)
	asleep := func(at time.Time) bool { return !at.Before(sleepFrom) && at.Before(sleepTo) }
	var id int64
	rec := func(r runtrace.Run, detail map[string]any) {
		t.Helper()
		if r.FinishedAt.IsZero() {
			r.FinishedAt = r.StartedAt.Add(r.Duration)
		}
		if detail != nil {
			r.Detail, _ = json.Marshal(detail)
		}
		if id, err = st.Record(ctx, r); err != nil {
			t.Fatalf("seed %+v: %v", r, err)
		}
	}
	// The agent: started a day ago, woke from a sleep.
	rec(runtrace.Run{JobID: runtrace.AgentID, Trigger: runtrace.TriggerStartup, StartedAt: ago(23*time.Hour + 50*time.Minute),
		Outcome: runtrace.OutcomeOK, Reason: runtrace.ReasonStarted}, map[string]any{"message": "agent started (version 1.4.0)"})
	rec(runtrace.Run{JobID: runtrace.AgentID, Trigger: runtrace.TriggerCatchUp, StartedAt: sleepTo, Outcome: runtrace.OutcomeOK,
		Reason: runtrace.ReasonResumed}, map[string]any{"away_ms": sleepTo.Sub(sleepFrom).Milliseconds(), "away": sleepTo.Sub(sleepFrom).String()})

	// Routine cycles every 10 minutes, none while the host slept.
	for _, svc := range []string{"web", "api"} {
		for at := ago(23*time.Hour + 48*time.Minute); at.Before(ago(2 * time.Minute)); at = at.Add(10 * time.Minute) {
			if asleep(at) || (svc == "api" && at.After(ago(5*time.Hour)) && at.Before(ago(4*time.Hour))) {
				continue
			}
			rec(runtrace.Run{JobID: runtrace.WatchdogID(svc), Trigger: runtrace.TriggerSchedule, StartedAt: at, Duration: 3 * time.Millisecond,
				Outcome: runtrace.OutcomeOK, Reason: runtrace.ReasonAlreadyRunning}, map[string]any{"message": "already-running", "state": "healthy"})
		}
	}
	restart := func(svc string, at time.Time, trig runtrace.Trigger, reason runtrace.Reason, cause, msg string, extra map[string]any) {
		by := "watchdog" // who a restart was by, as the watchdog writes it (runtrace/restarts.go)
		if trig == runtrace.TriggerManual {
			by = "person"
		}
		d := map[string]any{"message": msg, "cause": cause, "state": "healthy", "restart_by": by,
			"old_instance": "pid 41872 stopped (1 process: 1 on SIGTERM, in 12ms)"}
		for k, v := range extra {
			d[k] = v
		}
		rec(runtrace.Run{JobID: runtrace.WatchdogID(svc), Trigger: trig, StartedAt: at, Duration: 420 * time.Millisecond,
			Outcome: runtrace.OutcomeOK, Reason: reason}, d)
		if err := snapshot.Append(p.Snapshots(svc), snapshot.Entry{Time: at, Service: svc, Reason: cause, Phase: "pre-restart",
			NoProgressMS: 1200, RunID: id, LogTail: []string{svc + ": GET /api/orders 200 12ms", svc + ": worker 3 stalled"}}); err != nil {
			t.Fatal(err)
		}
	}
	restart("web", ago(19*time.Hour+12*time.Minute), runtrace.TriggerEvent, runtrace.ReasonStarted, "exited: killed by SIGKILL", "started (pid 51210, healthy after 310ms)", nil)
	rec(runtrace.Run{JobID: "watchdog:web", Trigger: runtrace.TriggerSchedule, StartedAt: ago(13*time.Hour + 40*time.Minute), Duration: 8 * time.Second,
		Outcome: runtrace.OutcomeFailed, Reason: runtrace.ReasonStartFailed},
		map[string]any{"message": "start-failed: not healthy within start_timeout 8s: http: timeout after 2s", "cause": "unhealthy: http: timeout after 2s"})
	rec(runtrace.Run{JobID: "watchdog:web", Trigger: runtrace.TriggerSchedule, StartedAt: ago(13*time.Hour + 30*time.Minute),
		Outcome: runtrace.OutcomeSkipped, Reason: runtrace.ReasonBackoff}, map[string]any{"message": "in backoff after 1 failed start(s)"})
	restart("web", ago(13*time.Hour+20*time.Minute), runtrace.TriggerSchedule, runtrace.ReasonStarted, "unhealthy: http: timeout after 2s", "started (pid 53001, healthy after 1.2s)", nil)
	restart("web", ago(2*time.Hour+5*time.Minute), runtrace.TriggerManual, runtrace.ReasonRestarted, "manual", "restarted (pid 60110, healthy after 280ms)", map[string]any{"by": "ui"})
	restart("api", ago(16*time.Hour), runtrace.TriggerSchedule, runtrace.ReasonStarted, "resource-limit: memory 612 MiB > 500 MiB for 5m", "started (pid 52007, healthy after 640ms)", nil)
	restart("api", sleepTo.Add(time.Second), runtrace.TriggerCatchUp, runtrace.ReasonStarted, "wake: http: connection refused", "started (pid 57100, healthy after 500ms)", nil)
	for at := ago(5 * time.Hour); at.Before(ago(4 * time.Hour)); at = at.Add(10 * time.Minute) {
		rec(runtrace.Run{JobID: "watchdog:api", Trigger: runtrace.TriggerSchedule, StartedAt: at, Outcome: runtrace.OutcomeSkipped,
			Reason: runtrace.ReasonPaused}, map[string]any{"message": "paused: schema migration (by ui)"})
	}

	// Jobs: registered a day ago; each slot ran, except what the sleep missed.
	for _, name := range []string{"nightly-pull", "backup"} {
		j := cfg.Job(name)
		reg := ago(24 * time.Hour)
		if _, err := st.Register(ctx, runtrace.JobID(name), j.Registration(), reg); err != nil {
			t.Fatal(err)
		}
		s, err := j.Cron(reg)
		if err != nil {
			t.Fatal(err)
		}
		for i, slot := range s.Slots(reg, now.Add(-j.Grace-time.Minute), 0) {
			if asleep(slot) {
				continue // never triggered: the host slept (catch_up = false)
			}
			r := runtrace.Run{JobID: runtrace.JobID(name), Trigger: runtrace.TriggerSchedule, ScheduledAt: slot, StartedAt: slot.Add(2 * time.Second),
				Duration: 41 * time.Second, Outcome: runtrace.OutcomeOK, Reason: runtrace.ReasonCompleted}
			d := map[string]any{"message": "completed", "exit_code": 0}
			switch {
			case name == "backup":
				r.Duration = 12 * time.Minute
			case i == 9:
				r.Outcome, r.Reason = runtrace.OutcomeFailed, runtrace.ReasonExitNonzero
				d = map[string]any{"message": "exit 3: upstream 502 Bad Gateway", "exit_code": 3}
			case i == 10:
				r.Outcome, r.Reason = runtrace.OutcomeSkipped, runtrace.JobReason("upstream-down")
				d = map[string]any{"message": "skipped upstream-down: api.example.com answers 503", "exit_code": 0}
			case i == 17:
				r.Outcome, r.Reason, r.Duration = runtrace.OutcomeFailed, runtrace.ReasonTimeout, 30*time.Second
				d = map[string]any{"message": "timeout after 30s: process tree killed"}
			}
			rec(r, d)
		}
	}
}
