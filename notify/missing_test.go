package notify

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"svcctl/runtrace"
)

// TestMissingCheck: a slot of an external job with no row past its grace
// raises job.missing once — not before the grace ends, not again on the next
// check or after a restart — and a long outage raises a few events, the last
// speaking for the rest.
func TestMissingCheck(t *testing.T) {
	cfg := cfgWith()
	j := &cfg.Jobs[0]
	j.Schedule, j.External = "0 * * * *", true
	s := newStore(t)
	if _, err := s.Register(ctxb, "job:pull", "spec", t0); err != nil { // 12:00
		t.Fatal(err)
	}
	d := NewDeriver(cfg, "ws-07", time.UTC)
	check := func(m *MissingCheck, at time.Time, want int) {
		t.Helper()
		n, err := m.Check(ctxb, at)
		if err != nil || n != want {
			t.Fatalf("Check at %s = %d, %v; want %d events", at.Format("15:04"), n, err, want)
		}
	}
	m := NewMissingCheck(cfg, s, d)
	// 13:00 ran (through svc-ctl exec); 14:00 did not.
	if _, err := s.Record(ctxb, runtrace.Run{JobID: "job:pull", Trigger: runtrace.TriggerSchedule,
		ScheduledAt: t0.Add(time.Hour), StartedAt: t0.Add(time.Hour), Outcome: runtrace.OutcomeOK, Reason: runtrace.ReasonCompleted}); err != nil {
		t.Fatal(err)
	}
	check(m, t0.Add(time.Hour+4*time.Minute), 0) // no slot has ended its grace: nothing is written
	if mk, _ := s.GetMark(ctxb, missingMarkKey("pull")); mk != (runtrace.Mark{}) {
		t.Fatalf("a check with no slot to look at wrote the watermark %+v", mk)
	}
	check(m, t0.Add(time.Hour+5*time.Minute), 0)
	check(m, t0.Add(2*time.Hour+4*time.Minute), 0) // 14:00 is still within its grace
	check(m, t0.Add(2*time.Hour+5*time.Minute), 1)
	check(m, t0.Add(2*time.Hour+6*time.Minute), 0)
	check(NewMissingCheck(cfg, s, d), t0.Add(2*time.Hour+7*time.Minute), 0) // a restarted agent
	ds, _ := s.Deliveries(ctxb, 10)
	if len(ds) != 0 {
		t.Fatalf("deliveries with no channel configured: %+v", ds)
	}
	// Six slots missed while the agent was down: 15:00 to 20:00.
	check(m, t0.Add(8*time.Hour+5*time.Minute), 3)
}

func TestMissingCheckQueuesForChannels(t *testing.T) {
	cfg := cfgWith(channelConf("phone", "ntfy", "http://127.0.0.1:1/t"))
	cfg.Jobs[0].Schedule = "0 * * * *"
	s := newStore(t)
	s.Register(ctxb, "job:pull", "spec", t0)
	m := NewMissingCheck(cfg, s, NewDeriver(cfg, "ws-07", time.UTC))
	if n, err := m.Check(ctxb, t0.Add(7*time.Hour+5*time.Minute)); n != 3 || err != nil {
		t.Fatalf("Check = %d, %v", n, err)
	}
	ds, _ := s.Deliveries(ctxb, 10)
	if len(ds) != 3 || ds[0].Channel != "phone" || ds[0].Kind != KindJobMissing {
		t.Fatalf("deliveries = %+v", ds)
	}
	var msgs []string
	for _, x := range ds {
		var e Event
		json.Unmarshal(x.Payload, &e)
		msgs = append(msgs, e.Message)
	}
	all := strings.Join(msgs, "\n")
	for _, want := range []string{"did not run at its 2026-03-01 13:00 UTC slot", "did not run at its 2026-03-01 14:00 UTC slot",
		"did not run at 5 slots from 2026-03-01 15:00 UTC to 2026-03-01 19:00 UTC"} {
		if !strings.Contains(all, want) {
			t.Errorf("no message says %q:\n%s", want, all)
		}
	}
}
