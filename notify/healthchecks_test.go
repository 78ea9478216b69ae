package notify

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"svcctl/config"
	"svcctl/runtrace"
)

// TestHealthchecksChannelEndsGreen: a healthchecks channel
// pings /fail only for a state a later event ends, and that later event
// sends the success ping, so the check is never left down after the
// incident is over. Through the whole path: rows recorded with the
// deriver, the outbox, the sender, a loopback server standing in for
// healthchecks.io.
func TestHealthchecksChannelEndsGreen(t *testing.T) {
	rc := newReceiver(t, nil)
	cfg := cfgWith(channelConf("fleet", config.NotifyHealthchecks, rc.srv.URL+"/ping/uuid-1"))
	cfg.Jobs[0].Schedule = "0 * * * *"
	s := newStore(t)
	d := NewDeriver(cfg, "ws-07", time.UTC)
	d.SetBootTime(t0.Add(-time.Hour))
	snd := NewSender(cfg, s, Options{Owner: "a", Now: func() time.Time { return t0.Add(24 * time.Hour) }})
	record := func(job string, at time.Time, slot time.Time, outcome runtrace.Outcome, reason runtrace.Reason, detail string) {
		t.Helper()
		trig := runtrace.TriggerSchedule
		if reason == runtrace.ReasonStarted {
			trig = runtrace.TriggerEvent
		}
		if _, err := s.RecordEmit(ctxb, runtrace.Run{JobID: job, Trigger: trig, ScheduledAt: slot, StartedAt: at, FinishedAt: at,
			Outcome: outcome, Reason: reason, Detail: json.RawMessage(detail)}, d.Emit); err != nil {
			t.Fatal(err)
		}
	}
	var paths []string
	step := func(what string, want ...string) {
		t.Helper()
		snd.Drain(ctxb)
		var got []string
		for _, r := range rc.got()[len(paths):] {
			got = append(got, strings.TrimPrefix(r.Path, "/ping/uuid-1"))
		}
		paths = append(paths, got...)
		if !slices.Equal(got, want) {
			t.Errorf("%s: pings %q, want %q", what, got, want)
		}
	}

	// A service found dead, restarted and healthy again in the same cycle:
	// over when told. Recorded on the check, its state unchanged.
	record("watchdog:proxy", t0, time.Time{}, runtrace.OutcomeOK, runtrace.ReasonAlreadyRunning, `{"state":"healthy"}`)
	record("watchdog:proxy", t0.Add(time.Minute), time.Time{}, runtrace.OutcomeOK, runtrace.ReasonStarted,
		`{"state":"healthy","cause":"exited: killed by SIGKILL"}`)
	step("service restarted and healthy", "/log")

	// A service whose start failed: down until it is healthy again.
	record("watchdog:proxy", t0.Add(2*time.Minute), time.Time{}, runtrace.OutcomeFailed, runtrace.ReasonStartFailed,
		`{"state":"backoff","consecutive_failures":1}`)
	step("service start failed", "/fail")
	record("watchdog:proxy", t0.Add(3*time.Minute), time.Time{}, runtrace.OutcomeOK, runtrace.ReasonStarted, `{"state":"healthy"}`)
	step("service healthy again", "")

	// A job that fails, fails again, then runs ok: green again at the ok run.
	if _, err := s.Register(ctxb, "job:pull", "spec", t0); err != nil {
		t.Fatal(err)
	}
	record("job:pull", t0.Add(time.Hour), t0.Add(time.Hour), runtrace.OutcomeFailed, runtrace.ReasonExitNonzero, `{"exit_code":2}`)
	record("job:pull", t0.Add(2*time.Hour), t0.Add(2*time.Hour), runtrace.OutcomeFailed, runtrace.ReasonExitNonzero, `{"exit_code":2}`)
	step("job failed twice", "/fail", "/fail")
	record("job:pull", t0.Add(3*time.Hour), t0.Add(3*time.Hour), runtrace.OutcomeOK, runtrace.ReasonCompleted, `{}`)
	step("job ok again", "")
	record("job:pull", t0.Add(4*time.Hour), t0.Add(4*time.Hour), runtrace.OutcomeOK, runtrace.ReasonCompleted, `{}`)
	step("job ok once more")

	// A slot missed (an external job's late or lost run), then an ok run.
	m := NewMissingCheck(cfg, s, d)
	if n, err := m.Check(ctxb, t0.Add(5*time.Hour+6*time.Minute)); n != 1 || err != nil {
		t.Fatalf("missing check: %d, %v", n, err)
	}
	step("slot missed", "/fail")
	record("job:pull", t0.Add(6*time.Hour), t0.Add(6*time.Hour), runtrace.OutcomeOK, runtrace.ReasonCompleted, `{}`)
	step("job ok after the missed slot", "")

	// The last word on the check is a success: it is green.
	if last := paths[len(paths)-1]; last != "" {
		t.Errorf("the check's last ping is %q: it stays down", last)
	}
}
