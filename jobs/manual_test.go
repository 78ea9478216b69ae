package jobs

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"svcctl/control"
	"svcctl/internal/redact"
	"svcctl/internal/testenv"
	"svcctl/internal/testutil"
	"svcctl/runtrace"
)

// runnerOn is a runner on e's real ledger, its goroutines plain ones (the
// agent's run under L2), never draining.
func runnerOn(t *testing.T, e *jobsEnv) (*Runner, *runtrace.Store) {
	t.Helper()
	st := testenv.Ledger(t, e.cfg)
	r := New(Host{
		Log: slog.New(slog.DiscardHandler), Paths: e.paths, Store: st, Rec: st,
		RecordSlot: func(id string, trigger runtrace.Trigger, slot time.Time, outcome runtrace.Outcome, reason runtrace.Reason, detail any) {
			now := time.Now().UTC()
			if runID, err := st.Begin(context.Background(), id, trigger, slot, now); err == nil {
				st.Finish(context.Background(), runID, outcome, reason, detail, now)
			}
		},
		GoSafe: func(ctx context.Context, _ string, fn func(context.Context)) <-chan struct{} {
			done := make(chan struct{})
			go func() { defer close(done); fn(ctx) }()
			return done
		},
		GoOnce:   func(_ string, fn func(), _ func(any, string)) { go fn() },
		Draining: func() bool { return false },
		Redactor: func() *redact.Redactor { return redact.New() },
	})
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(func() { cancel(); r.Wait() })
	r.Bind(ctx, ctx)
	return r, st
}

// TestSlotDuringManualRunIsOverlap: a slot that comes due while a person's
// run (`svc-ctl run`, a request) is in flight is recorded skipped/overlap,
// naming that run; the manual run ends with its own verdict, trigger manual.
func TestSlotDuringManualRunIsOverlap(t *testing.T) {
	e := jobEnv(t, `
[[job]]
name = "slow"
schedule = "@every 1h"
timezone = "UTC"
command = `+jobCommand(0, "2s", "manual")+`
`)
	r, st := runnerOn(t, e)
	replies := make(chan control.Response, 2)
	req, err := control.Post(e.paths, control.KindRun, control.RunArgs{Job: "slow"}) // as `svc-ctl run` asks
	if err != nil {
		t.Fatal(err)
	}
	r.RunManual(e.cfg.Job("slow"), req, func(resp control.Response) { replies <- resp })
	resp := <-replies
	var acc control.RunAccepted
	if err := resp.Decode(&acc); err != nil || resp.Refused != "" || acc.RunID <= 0 || acc.Stream == "" {
		t.Fatalf("accepted: %+v %+v, %v", resp, acc, err)
	}
	slot := time.Now().UTC().Truncate(time.Second)
	r.fire(context.Background(), e.cfg.Job("slow"), slot, runtrace.TriggerSchedule, nil)
	var skipped runtrace.Run
	testutil.WaitFor(t, 5*time.Second, "the slot's row", func() bool {
		rs, _ := st.Runs(context.Background(), runtrace.Filter{JobID: runtrace.JobID("slow")})
		for _, r := range rs {
			if r.ScheduledAt.Equal(slot) {
				skipped = r
			}
		}
		return skipped.ID != 0
	})
	if skipped.Reason != runtrace.ReasonOverlap || !strings.Contains(string(skipped.Detail), fmt.Sprintf(`"running_run_id":%d`, acc.RunID)) {
		t.Fatalf("the slot that came due during the manual run: %s %s; want skipped/overlap naming run %d", skipped.Verdict(), skipped.Detail, acc.RunID)
	}
	var fin control.RunFinished
	select {
	case resp = <-replies:
	case <-time.After(10 * time.Second):
		t.Fatal("no verdict for the manual run")
	}
	if resp.Decode(&fin) != nil || fin.RunID != acc.RunID || fin.Outcome != "ok" || !resp.Final {
		t.Fatalf("the run's verdict: %+v %+v", resp, fin)
	}
	rs, _ := st.Runs(context.Background(), runtrace.Filter{JobID: "job:slow", Outcome: runtrace.OutcomeOK})
	if len(rs) != 1 || rs[0].ID != acc.RunID || rs[0].Trigger != runtrace.TriggerManual || !rs[0].ScheduledAt.IsZero() {
		t.Fatalf("the manual run's row: %+v", rs)
	}
}
