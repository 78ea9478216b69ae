package agent

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"svcctl/control"
	"svcctl/internal/testutil"
	"svcctl/runtrace"
	"svcctl/state"
)

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
	wake := make(chan struct{}, 1)
	var ag *Agent
	startAgentWith(t, e, Options{Requests: wake}, func(a *Agent) { ag = a })
	p := state.PathsOf(e.cfg)
	req, err := control.Post(p, control.KindRun, control.RunArgs{Job: "slow"})
	if err != nil {
		t.Fatal(err)
	}
	wake <- struct{}{}
	resp, err := control.Await(context.Background(), p, req, 1, 10*time.Second)
	if err != nil || resp.Refused != "" {
		t.Fatalf("the run request's answer: %+v, %v", resp, err)
	}
	var acc control.RunAccepted
	if err := resp.Decode(&acc); err != nil || acc.RunID <= 0 || acc.Stream == "" {
		t.Fatalf("accepted: %+v, %v", acc, err)
	}
	slot := time.Now().UTC().Truncate(time.Second)
	ag.jobs.fire(context.Background(), e.cfg.Job("slow"), slot, runtrace.TriggerSchedule, nil)
	var skipped runtrace.Run
	testutil.WaitFor(t, 5*time.Second, "the slot's row", func() bool {
		for _, r := range jobRuns(e, "slow") {
			if r.ScheduledAt.Equal(slot) {
				skipped = r
			}
		}
		return skipped.ID != 0
	})
	if skipped.Reason != runtrace.ReasonOverlap || !strings.Contains(string(skipped.Detail), fmt.Sprintf(`"running_run_id":%d`, acc.RunID)) {
		t.Fatalf("the slot that came due during the manual run: %s %s; want skipped/overlap naming run %d", skipped.Verdict(), skipped.Detail, acc.RunID)
	}
	resp, err = control.Await(context.Background(), p, req, 2, 10*time.Second)
	var fin control.RunFinished
	if err != nil || resp.Decode(&fin) != nil || fin.RunID != acc.RunID || fin.Outcome != "ok" || !resp.Final {
		t.Fatalf("the run's verdict: %+v %+v, %v", resp, fin, err)
	}
	rs, _ := e.store.Runs(context.Background(), runtrace.Filter{JobID: "job:slow", Outcome: runtrace.OutcomeOK})
	if len(rs) != 1 || rs[0].ID != acc.RunID || rs[0].Trigger != runtrace.TriggerManual || !rs[0].ScheduledAt.IsZero() {
		t.Fatalf("the manual run's row: %+v", rs)
	}
}
