package report

import (
	"context"
	"fmt"
	"os"
	"strings"
	"time"

	"svcctl/internal/words"
	"svcctl/runtrace"
	"svcctl/state"
)

// The checks read from the ledger and the agent's written evidence: it
// started since boot, it beats, it cycles every service and its backstop,
// no job missed a run, no channel fails long, and it can write.

// checkLedgerWrites is the name of the check that the running agent can
// write its ledger.
const checkLedgerWrites = "ledger writable"

// ledgerWrites checks, by the running agent's own report, that it can
// write run_trace. Without a running agent there is nothing to ask (the
// heartbeat check fails then).
func (v *verifier) ledgerWrites() {
	if v.live == nil {
		return
	}
	h := v.live.Ledger
	if h.Up {
		v.add(checkLedgerWrites, Pass, fmt.Sprintf("the agent (pid %d) writes it (agent.status renewed %s ago)",
			v.live.PID, v.env.Now.Sub(v.live.UpdatedAt).Round(time.Second)))
		return
	}
	v.add(checkLedgerWrites, Fail, fmt.Sprintf("WRITE FAILING since %s: %s; %s", h.Since.Format(time.RFC3339), h.Summary(), h.Cause.Fix()))
}

// nameCause adds the cause to every failed check when the agent cannot
// write: a stale heartbeat or an old watchdog.last.json is then not a dead
// agent but a full disk (or whatever the cause is), and says so.
func (v *verifier) nameCause() {
	if v.live == nil || v.live.Ledger.Up {
		return
	}
	h := v.live.Ledger
	cause := fmt.Sprintf("cause: the agent (pid %d, alive: agent.status renewed %s ago) cannot write to %s since %s: %s",
		v.live.PID, v.env.Now.Sub(v.live.UpdatedAt).Round(time.Second), h.Dir, h.Since.Format(time.RFC3339), h.Cause.Words())
	for i := range v.r.Checks {
		c := &v.r.Checks[i]
		if c.Status == Fail && writtenEvidence(c.Name) {
			c.Evidence += "; " + cause
		}
	}
}

func (v *verifier) ledger(ctx context.Context, store *runtrace.Store) {
	if err := store.IntegrityCheck(ctx); err != nil {
		v.add("ledger readable", Fail, err.Error())
		return
	}
	v.add("ledger readable", Pass, v.p.DB()+" passes quick_check")
}

// startedSinceBoot is the L1 proof: the agent's newest startup row is newer
// than the host's boot, so something started it after the boot — autostart
// fired. "The unit file exists" proves nothing.
func (v *verifier) startedSinceBoot(ctx context.Context, store *runtrace.Store) {
	rs, err := store.Runs(ctx, runtrace.Filter{JobID: "agent", Reason: runtrace.ReasonStarted, Limit: 1})
	switch {
	case err != nil:
		v.add("agent started since boot", Fail, "read startup rows: "+err.Error())
	case len(rs) == 0:
		v.add("agent started since boot", Fail, "no agent startup row in run_trace: the agent has never run with this state dir")
	case v.env.BootTime.IsZero():
		v.add("agent started since boot", Warn, "host boot time unknown; last agent start "+rs[0].StartedAt.Format(time.RFC3339))
	case rs[0].StartedAt.Before(v.env.BootTime.Add(-2 * time.Second)):
		v.add("agent started since boot", Fail, fmt.Sprintf("last agent start %s is before the host's boot at %s: autostart did not fire",
			rs[0].StartedAt.Format(time.RFC3339), v.env.BootTime.Format(time.RFC3339)))
	default:
		v.add("agent started since boot", Pass, fmt.Sprintf("agent started %s, host booted %s (%s later)",
			rs[0].StartedAt.Format(time.RFC3339), v.env.BootTime.Format(time.RFC3339), rs[0].StartedAt.Sub(v.env.BootTime).Round(time.Second)))
	}
}

func (v *verifier) heartbeat(ctx context.Context, store *runtrace.Store) {
	hbs, err := store.Heartbeats(ctx)
	limit := 3*v.cfg.Agent.Heartbeat + 5*time.Second
	switch {
	case err != nil:
		v.add("heartbeat fresh", Fail, err.Error())
	case len(hbs) == 0:
		v.add("heartbeat fresh", Fail, "no heartbeat: the agent is not running (a clean stop deletes it)")
	case v.env.Now.Sub(hbs[0].BeatAt) > limit && v.live != nil && !v.live.Ledger.Up:
		v.add("heartbeat fresh", Fail, fmt.Sprintf("heartbeat of pid %d is %s old (renewed every %s): not renewed",
			hbs[0].PID, v.env.Now.Sub(hbs[0].BeatAt).Round(time.Second), v.cfg.Agent.Heartbeat))
	case v.env.Now.Sub(hbs[0].BeatAt) > limit:
		v.add("heartbeat fresh", Fail, fmt.Sprintf("heartbeat of pid %d is %s old (renewed every %s): the agent is stale",
			hbs[0].PID, v.env.Now.Sub(hbs[0].BeatAt).Round(time.Second), v.cfg.Agent.Heartbeat))
	default:
		v.add("heartbeat fresh", Pass, fmt.Sprintf("pid %d, %s, %s ago", hbs[0].PID, hbs[0].Mode, v.env.Now.Sub(hbs[0].BeatAt).Round(time.Second)))
	}
}

func (v *verifier) shortestInterval() time.Duration {
	var d time.Duration
	for _, s := range v.cfg.Services {
		if d == 0 || s.Interval < d {
			d = s.Interval
		}
	}
	return d
}

func (v *verifier) watchdogLast() {
	if len(v.cfg.Services) == 0 {
		v.add("watchdog.last.json fresh", Pass, "no services configured")
		return
	}
	st, err := os.Stat(v.p.WatchdogLast())
	limit := 2 * v.shortestInterval()
	// A running agent writes watchdog.last.json when a cycle changes
	// something (and at least every few minutes), and says in agent.status,
	// renewed at each heartbeat, when it last looked at each service: a live
	// report (renewed within three heartbeats) whose last look is within the
	// limit of the report's own time says the agent was cycling then.
	var looked time.Time
	if v.live != nil {
		for _, at := range v.live.Checked {
			if at.After(looked) {
				looked = at
			}
		}
	}
	switch {
	case err != nil:
		v.add("watchdog.last.json fresh", Fail, "no "+v.p.WatchdogLast()+": no cycle has ever run")
	case v.env.Now.Sub(st.ModTime()) <= limit:
		v.add("watchdog.last.json fresh", Pass, fmt.Sprintf("written %s ago", v.env.Now.Sub(st.ModTime()).Round(time.Second)))
	case !looked.IsZero() && v.live.UpdatedAt.Sub(looked) <= limit:
		v.add("watchdog.last.json fresh", Pass, fmt.Sprintf("written %s ago (nothing changed since); the agent last looked %s ago (agent.status of %s ago)",
			v.env.Now.Sub(st.ModTime()).Round(time.Second), v.env.Now.Sub(looked).Round(time.Second), v.env.Now.Sub(v.live.UpdatedAt).Round(time.Second)))
	default:
		v.add("watchdog.last.json fresh", Fail, fmt.Sprintf("last written %s ago, more than twice the shortest interval (%s)",
			v.env.Now.Sub(st.ModTime()).Round(time.Second), limit))
	}
}

func (v *verifier) servicesCycled(ctx context.Context, store *runtrace.Store) {
	last, _ := state.ReadLast(v.p.WatchdogLast())
	for _, s := range v.cfg.Services {
		name := "service " + s.Name + " cycled"
		at := time.Time{}
		if lr := last.Services[s.Name]; lr != nil {
			at = lr.Time
		}
		if store != nil {
			if r, err := store.Latest(ctx, runtrace.WatchdogID(s.Name)); err == nil && r != nil && r.StartedAt.After(at) {
				at = r.StartedAt
			}
		}
		st, _ := state.LoadService(v.p.StateFile(s.Name))
		switch {
		case at.IsZero():
			v.add(name, Fail, "no cycle recorded")
		case v.env.Now.Sub(at) > 2*s.Interval+s.StartTimeout+s.Health.Confirm:
			v.add(name, Fail, fmt.Sprintf("last cycle %s ago, more than two intervals (%s)", v.env.Now.Sub(at).Round(time.Second), 2*s.Interval))
		case st.LastHealthy.IsZero():
			// Cycling is not the claim: a service that has never once been
			// healthy is not supervised into working, whatever its rows say.
			status := Fail
			if p, _ := state.ReadPause(v.p.Paused(s.Name)); p.Active(v.env.Now) {
				status = Warn
			}
			v.add(name, status, fmt.Sprintf("cycles (last %s ago, state %s) but has never been healthy: 'svc-ctl why %s'",
				v.env.Now.Sub(at).Round(time.Second), st.State, s.Name))
		default:
			v.add(name, Pass, fmt.Sprintf("last cycle %s ago (interval %s)", v.env.Now.Sub(at).Round(time.Second), s.Interval))
		}
	}
}

func (v *verifier) backstop() {
	i := v.env.Install
	if !i.BackstopKnown || !i.BackstopInstalled {
		return // optional: checked only where installed
	}
	st, err := os.Stat(v.p.WatchdogLast())
	every := i.BackstopEvery
	if every <= 0 {
		every = 10 * time.Minute
	}
	if err != nil || v.env.Now.Sub(st.ModTime()) > 2*every {
		v.add("backstop ran recently", Fail, "backstop registered ("+i.BackstopDetail+") but no cycle written within two of its periods")
		return
	}
	v.add("backstop ran recently", Pass, "registered ("+i.BackstopDetail+")")
}

func (v *verifier) missing(ctx context.Context, store *runtrace.Store) {
	if len(v.cfg.Jobs) == 0 {
		return
	}
	ms, err := Missing(ctx, store, v.cfg, nil, v.env.Now.Add(-24*time.Hour), v.env.Now)
	switch {
	case err != nil:
		v.add("no missing runs (24 h)", Fail, err.Error())
	case len(ms) > 0:
		v.add("no missing runs (24 h)", Fail, fmt.Sprintf("%s with no row, first %s at %s: 'svc-ctl missing'", words.Count(len(ms), "slot", "slots"), ms[0].Job, ms[0].Slot.Format(time.RFC3339)))
	default:
		v.add("no missing runs (24 h)", Pass, "every due slot has a row")
	}
}

// channelFailingLong is how long a channel may fail before verify says FAIL:
// a day of undelivered messages is a day of nobody being told.
const channelFailingLong = 24 * time.Hour

// channels: WARN on a channel (or ping) whose last delivery failed, FAIL
// when it has been failing for more than a day.
func (v *verifier) channels(ctx context.Context, store *runtrace.Store) {
	for _, c := range channelStatuses(ctx, v.cfg, store) {
		name := "channel " + c.Name
		switch {
		case c.FailingSince.IsZero() && c.LastOK.IsZero():
			v.add(name, Pass, "no delivery yet ('svc-ctl notify test' tries one)")
		case c.FailingSince.IsZero():
			v.add(name, Pass, "last delivery "+c.LastOK.Local().Format(time.RFC3339))
		case v.env.Now.Sub(c.FailingSince) > channelFailingLong:
			v.add(name, Fail, fmt.Sprintf("failing since %s (%d waiting): %s; 'svc-ctl notify list', 'svc-ctl notify test %s'",
				c.FailingSince.Local().Format(time.RFC3339), c.Pending, c.LastError, strings.TrimPrefix(c.Name, "ping:")))
		default:
			v.add(name, Warn, fmt.Sprintf("last delivery failed at %s (%d waiting; retried): %s",
				c.LastErrorAt.Local().Format(time.RFC3339), c.Pending, c.LastError))
		}
	}
}
