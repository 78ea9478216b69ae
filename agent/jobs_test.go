package agent

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"svcctl/internal/testutil"
	"svcctl/report"
	"svcctl/runtrace"
)

func jobRuns(e *testEnv, name string) []runtrace.Run {
	rs, _ := e.Store.Runs(context.Background(), runtrace.Filter{JobID: runtrace.JobID(name)})
	return rs
}

// register backdates a job's registration, as if an agent had loaded it then
// and has been down since: the gap is real rows that are not there.
func (e *testEnv) register(name string, at time.Time) {
	e.T.Helper()
	j := e.Cfg.Job(name)
	if _, err := e.Store.Register(context.Background(), runtrace.JobID(name), j.Registration(), at); err != nil {
		e.T.Fatal(err)
	}
}

func hourlyJob(name string, catchUp bool) string {
	return fmt.Sprintf(`
[[job]]
name = %q
schedule = "@every 1h"
timezone = "UTC"
command = %s
catch_up = %v
grace = "1m"
`, name, jobCommand(0, "", ""), catchUp)
}

// waitJobSleeping waits until the job's loop has done its start (catch-up
// included) and sleeps until its next slot: the debug line job.next. Any run
// the start fired has its row by then (fire writes it before returning).
func waitJobSleeping(t *testing.T, ra *runningAgent, job string) {
	t.Helper()
	next := regexp.MustCompile(`"msg":"job.next","pid":\d+,"job":"` + regexp.QuoteMeta(job) + `"`)
	testutil.WaitFor(t, 10*time.Second, job+" sleeping until its next slot", func() bool {
		return next.MatchString(ra.log.String())
	})
}

func TestCatchUpAfterThreeHourGapIsOneRun(t *testing.T) {
	e := jobEnv(t, hourlyJob("pull", true))
	e.Cfg.Agent.LogLevel = "debug"
	reg := time.Now().Add(-3*time.Hour - 30*time.Minute).UTC()
	e.register("pull", reg)
	ra := startAgent(t, e, Options{CatchUpSpread: 10 * time.Millisecond})
	waitJobSleeping(t, ra, "pull")
	testutil.WaitFor(t, 10*time.Second, "the catch-up run finished", func() bool {
		rs := jobRuns(e, "pull")
		return len(rs) >= 1 && rs[0].Outcome == runtrace.OutcomeOK
	})
	rs := jobRuns(e, "pull")
	if len(rs) != 1 {
		t.Fatalf("%d runs, want one coalesced run", len(rs))
	}
	r := rs[0]
	want := reg.Truncate(time.Second).Add(3 * time.Hour)
	if r.Trigger != runtrace.TriggerCatchUp || !r.ScheduledAt.Equal(want) || !strings.Contains(string(r.Detail), `"coalesced":3`) {
		t.Fatalf("run %+v detail %s; want catch-up for %s coalescing 3", r, r.Detail, want)
	}
}

func TestNoCatchUpReportsMissing(t *testing.T) {
	e := jobEnv(t, hourlyJob("pull", false))
	reg := time.Now().Add(-3*time.Hour - 30*time.Minute).UTC()
	e.register("pull", reg)
	e.Cfg.Agent.LogLevel = "debug"
	ra := startAgent(t, e, Options{CatchUpSpread: 10 * time.Millisecond})
	waitJobSleeping(t, ra, "pull") // past the start: a wrong catch-up would have its row
	ra.stop(t)
	if rs := jobRuns(e, "pull"); len(rs) != 0 {
		t.Fatalf("catch_up = false ran %d times", len(rs))
	}
	ms, err := report.Missing(context.Background(), e.Store, e.Cfg, nil, time.Now().Add(-24*time.Hour), time.Now())
	if err != nil || len(ms) != 3 {
		t.Fatalf("missing = %v, %v; want 3 slots", ms, err)
	}
}

func TestOverlapIsSkipped(t *testing.T) {
	e := jobEnv(t, `
[[job]]
name = "slow"
schedule = "@every 1s"
timezone = "UTC"
command = `+jobCommand(0, "2.5s", "")+`
timeout = "10s"
`)
	startAgent(t, e, Options{})
	testutil.WaitFor(t, 10*time.Second, "an overlap", func() bool {
		for _, r := range jobRuns(e, "slow") {
			if r.Reason == runtrace.ReasonOverlap {
				return true
			}
		}
		return false
	})
}

// Across an agent restart no slot goes missing but those of the gap itself:
// the new agent keeps the job's registration and serves every slot after it
// is up. The window checked holds real slots (at least 4 past grace), so the
// test has something to find.
func TestMissingAcrossAgentRestart(t *testing.T) {
	e := jobEnv(t, `
[[job]]
name = "tick"
schedule = "@every 1s"
timezone = "UTC"
command = `+jobCommand(0, "", "")+`
catch_up = true
grace = "1s"
`)
	ctx := context.Background()
	ra := startAgent(t, e, Options{CatchUpSpread: 10 * time.Millisecond})
	testutil.WaitFor(t, 10*time.Second, "two runs", func() bool { return len(jobRuns(e, "tick")) >= 2 })
	down := time.Now()
	ra.stop(t)
	startAgent(t, e, Options{CatchUpSpread: 10 * time.Millisecond})
	up := time.Now()
	reg1, _, _ := e.Store.Registered(ctx, runtrace.JobID("tick"))
	first := len(jobRuns(e, "tick"))
	testutil.WaitFor(t, 15*time.Second, "three more runs", func() bool { return len(jobRuns(e, "tick")) >= first+3 })
	reg, _, _ := e.Store.Registered(ctx, runtrace.JobID("tick"))
	if !reg.Equal(reg1) {
		t.Fatalf("the restart re-registered the job: %s -> %s", reg1, reg)
	}
	now := time.Now()
	s, err := e.Cfg.Job("tick").Cron(reg)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(s.Slots(reg, now.Add(-time.Second), 0)); n < 4 {
		t.Fatalf("only %d slots in the window: the test would check nothing", n)
	}
	ms, err := report.Missing(ctx, e.Store, e.Cfg, nil, reg, now)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range ms {
		if m.Slot.Before(down.Add(-time.Second)) || m.Slot.After(up.Add(time.Second)) {
			t.Errorf("slot %s missing outside the restart gap %s..%s", m.Slot.Format(time.StampMilli), down.Format(time.StampMilli), up.Format(time.StampMilli))
		}
	}
}
