package notify

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"svcctl/config"
	"svcctl/runtrace"
)

func contextTimeout(d time.Duration) (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), d)
}

// TestDeriveTransitions walks a service and a job through their lives and
// checks which rows raise which events: transitions, not every row.
func TestDeriveTransitions(t *testing.T) {
	cfg := cfgWith(config.Notify{Name: "all", Kind: config.NotifyWebhook},
		config.Notify{Name: "pager", Kind: config.NotifyNtfy, On: []string{KindServiceGivenUp, KindJobMissing}})
	cfg.Services = []config.Service{{Name: "proxy", Env: map[string]string{"API_TOKEN": "tok_9f8e7d6c5b4a"}}}
	d := NewDeriver(cfg, "ws-07", time.UTC)
	d.SetBootTime(t0)
	n := 0
	d.newID = func() string { n++; return fmt.Sprintf("id-%d", n) }
	steps := []struct {
		job     string
		trigger runtrace.Trigger
		outcome runtrace.Outcome
		reason  runtrace.Reason
		detail  string
		want    string // kind raised, "" for none
		wantMsg string
	}{
		// The first start after the boot is svc-ctl doing its job: no event.
		{"watchdog:proxy", "schedule", "ok", "started", `{"state":"healthy"}`, "", ""},
		{"watchdog:proxy", "schedule", "ok", "already-running", `{"state":"healthy"}`, "", ""},
		{"watchdog:proxy", "event", "ok", "started", `{"state":"healthy","cause":"exited: killed by SIGKILL"}`,
			KindServiceDown, "proxy on ws-07 was down (exited: killed by SIGKILL) and was restarted"},
		{"watchdog:proxy", "schedule", "failed", "start-failed", `{"state":"backoff","consecutive_failures":1,"log_tail":["token tok_9f8e7d6c5b4a rejected"],"probe":[{"kind":"http","target":"http://127.0.0.1:8789/health","healthy":false,"reason":"503"}]}`,
			KindServiceDown, "proxy on ws-07 is down: start-failed: http http://127.0.0.1:8789/health: 503"},
		{"watchdog:proxy", "schedule", "skipped", "backoff", `{"state":"backoff"}`, "", ""},
		{"watchdog:proxy", "schedule", "failed", "start-failed", `{"state":"backoff","consecutive_failures":2}`, "", ""},
		{"watchdog:proxy", "schedule", "failed", "start-failed", `{"state":"given-up","consecutive_failures":5,"message":"start-failed: health never passed"}`,
			KindServiceGivenUp, "proxy on ws-07 is given up after 5 failed starts (start-failed: health never passed); `svc-ctl start proxy` tries again"},
		{"watchdog:proxy", "schedule", "skipped", "given-up", `{"state":"given-up"}`, "", ""},
		{"watchdog:proxy", "manual", "ok", "started", `{"state":"healthy"}`, KindServiceRecovered, "proxy on ws-07 is healthy again (given up since"},
		{"watchdog:proxy", "manual", "ok", "started", `{"state":"healthy"}`, "", ""},
		// A crash loop's give-up says so.
		{"watchdog:proxy", "event", "failed", "start-failed", `{"state":"given-up","consecutive_failures":3,"cause":"exited: with code 4","crash_loop":{"up_for":"502ms"}}`,
			KindServiceGivenUp, "proxy on ws-07 is given up after 3 failed starts (crash loop: down again 502ms after each start, exited: with code 4)"},
		{"watchdog:proxy", "schedule", "failed", "interrupted", `{}`, "", ""},
		{"job:pull", "schedule", "failed", "exit-nonzero", `{"exit_code":2,"output_tail":["fetch: 502"]}`, KindJobFailed, "job pull on ws-07 failed: exit-nonzero: exit code 2"},
		{"job:pull", "schedule", "failed", "timeout", `{"timeout":"30m0s"}`, KindJobFailed, "job pull on ws-07 failed: timeout: timed out after 30m0s"},
		{"job:pull", "schedule", "skipped", "overlap", `{}`, "", ""},
		{"job:pull", "schedule", "skipped", "job.downstream-timeout", `{"why":"api.example.com timed out"}`, KindJobSkipped, "job pull on ws-07 skipped: job.downstream-timeout: api.example.com timed out"},
		{"job:pull", "schedule", "ok", "completed", `{}`, KindJobRecovered, "job pull on ws-07 ran ok again (failed since 2026-03-01 12:13 UTC, 4m)"},
		{"job:pull", "schedule", "ok", "completed", `{}`, "", ""},
	}
	marks := map[string]runtrace.Mark{}
	at := t0
	for i, st := range steps {
		at = at.Add(time.Minute)
		r := runtrace.Run{ID: int64(i + 1), JobID: st.job, Trigger: st.trigger, StartedAt: at, FinishedAt: at,
			Outcome: st.outcome, Reason: st.reason, Detail: json.RawMessage(st.detail)}
		evs, m := d.Emit(r, marks[st.job])
		marks[st.job] = m
		switch {
		case st.want == "" && len(evs) != 0:
			t.Errorf("step %d (%s %s/%s): raised %s, want nothing", i, st.job, st.outcome, st.reason, evs[0].Kind)
		case st.want != "" && len(evs) != 1:
			t.Errorf("step %d (%s %s/%s): raised %d events, want %s", i, st.job, st.outcome, st.reason, len(evs), st.want)
		case st.want != "":
			var e Event
			if err := json.Unmarshal(evs[0].Payload, &e); err != nil {
				t.Fatal(err)
			}
			if e.Kind != st.want || !strings.HasPrefix(e.Message, st.wantMsg) || e.RunID != int64(i+1) || e.Host != "ws-07" {
				t.Errorf("step %d: %s %q, want %s %q", i, e.Kind, e.Message, st.want, st.wantMsg)
			}
			if strings.Contains(string(evs[0].Payload), "tok_9f8e7d6c5b4a") {
				t.Errorf("step %d: a configured secret reached the event: %s", i, evs[0].Payload)
			}
			wantChans := "all"
			if e.Kind == KindServiceGivenUp {
				wantChans = "all,pager"
			}
			if got := strings.Join(evs[0].Channels, ","); got != wantChans {
				t.Errorf("step %d: channels %s, want %s", i, got, wantChans)
			}
		}
	}
}

func TestMissingEventIsStable(t *testing.T) {
	cfg := cfgWith()
	cfg.Jobs[0].External = true
	shanghai, _ := time.LoadLocation("Asia/Shanghai")
	cfg.Jobs[0].Location, cfg.Jobs[0].Timezone = shanghai, "Asia/Shanghai"
	d := NewDeriver(cfg, "ws-07", time.UTC)
	slot := time.Date(2026, 3, 1, 1, 30, 0, 0, time.UTC)
	a := d.Missing(&cfg.Jobs[0], slot, slot.Add(6*time.Minute))
	b := d.Missing(&cfg.Jobs[0], slot, slot.Add(time.Hour))
	if a.ID != b.ID || a.Kind != KindJobMissing || a.Subject != "job:pull" {
		t.Errorf("ids %s %s differ (or wrong kind/subject: %+v)", a.ID, b.ID, a)
	}
	var e Event
	json.Unmarshal(a.Payload, &e)
	if !strings.Contains(e.Message, "did not run at its 2026-03-01 09:30 CST slot (grace 5m)") ||
		e.Slot != "2026-03-01T09:30:00+08:00" || !strings.Contains(e.Detail, "another scheduler") {
		t.Errorf("missing event = %+v", e)
	}
	other := d.Missing(&cfg.Jobs[0], slot.Add(time.Hour), slot.Add(time.Hour))
	if other.ID == a.ID {
		t.Error("two slots share an id")
	}
}

// TestRestartAfterRebootIsNotDown: a service last seen up before this boot
// is started by its first cycle without an event; one seen up during this
// boot and then restarted is down.
func TestRestartAfterRebootIsNotDown(t *testing.T) {
	cfg := cfgWith(config.Notify{Name: "all", Kind: config.NotifyWebhook})
	d := NewDeriver(cfg, "ws-07", time.UTC)
	boot := t0.Add(time.Hour)
	d.SetBootTime(boot)
	started := runtrace.Run{ID: 1, JobID: "watchdog:proxy", Trigger: runtrace.TriggerSchedule, FinishedAt: boot.Add(time.Minute),
		Outcome: runtrace.OutcomeOK, Reason: runtrace.ReasonStarted}
	evs, m := d.Emit(started, runtrace.Mark{Value: markUp, At: t0}) // up before the reboot
	if len(evs) != 0 || m.Value != markUp || !m.At.Equal(started.FinishedAt) {
		t.Fatalf("first start after boot: %d events, mark %+v", len(evs), m)
	}
	started.ID, started.FinishedAt = 2, boot.Add(time.Hour)
	if evs, _ := d.Emit(started, m); len(evs) != 1 || evs[0].Kind != KindServiceDown {
		t.Fatalf("restart during the boot: %+v", evs)
	}
	// A healthy cycle during the boot writes no mark.
	ok := started
	ok.Reason = runtrace.ReasonAlreadyRunning
	if _, m2 := d.Emit(ok, m); m2 != m {
		t.Errorf("healthy cycle changed the mark: %+v -> %+v", m, m2)
	}
}

// Slots seconds apart are told apart in the message (it once said "from
// 08:00 UTC to 08:00 UTC" for a job every 15 s).
func TestMissingManySaysSecondsForCloseSlots(t *testing.T) {
	cfg := cfgWith(config.Notify{Name: "all", Kind: config.NotifyWebhook})
	d := NewDeriver(cfg, "ws-07", time.UTC)
	j := &config.Job{Name: "slow", Schedule: "@every 15s", Timezone: "UTC", Location: time.UTC, Grace: time.Second}
	ev := d.missingMany(j, []time.Time{t0, t0.Add(15 * time.Second), t0.Add(30 * time.Second)}, t0.Add(time.Minute))
	var e Event
	if err := json.Unmarshal(ev.Payload, &e); err != nil {
		t.Fatal(err)
	}
	if want := "did not run at 3 slots from 2026-03-01 12:00:00 UTC to 2026-03-01 12:00:30 UTC"; !strings.Contains(e.Message, want) {
		t.Fatalf("message %q, want %q", e.Message, want)
	}
}
