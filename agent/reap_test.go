package agent

import (
	"context"
	"strings"
	"testing"
	"time"

	"svcctl/internal/testutil"
	"svcctl/runtrace"
)

// The running agent reaps on its own clock, not only at start: a row whose
// writer has no heartbeat (an agent that stopped without finishing it) is
// finished failed/abandoned at the next round, however young; a stale
// heartbeat is pruned; the agent's own rows and heartbeat are left alone.
func TestReaperRunsPeriodically(t *testing.T) {
	e := newEnv(t, testutil.Service{Name: "web", Addr: testutil.FreeAddr(t), Interval: "1h"})
	var ag *Agent
	startAgentWith(t, e, Options{ReapEvery: 100 * time.Millisecond}, func(a *Agent) { ag = a })
	ctx := context.Background()
	ghost, err := runtrace.Open(e.sup.Paths.DB(), runtrace.Options{Instance: "ghost"})
	if err != nil {
		t.Fatal(err)
	}
	defer ghost.Close()
	long := time.Now().Add(-time.Hour)
	if err := ghost.Beat(ctx, runtrace.Heartbeat{InstanceID: "old", PID: 1, Version: "t", StartedAt: long, BeatAt: long, Mode: "foreground", Hostname: "h"}); err != nil {
		t.Fatal(err)
	}
	_, err = ghost.Begin(ctx, runtrace.JobID("pull"), runtrace.TriggerSchedule, time.Time{}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	testutil.WaitFor(t, 10*time.Second, "the ghost's run reaped and the stale heartbeat pruned", func() bool {
		r, _ := e.Store.Latest(ctx, runtrace.JobID("pull"))
		hb, _ := e.Store.Heartbeats(ctx)
		return r != nil && r.Reason == runtrace.ReasonAbandoned && len(hb) == 1 && hb[0].InstanceID == ag.instance
	})
	r, _ := e.Store.Latest(ctx, runtrace.JobID("pull"))
	if !strings.Contains(string(r.Detail), "ghost") || !strings.Contains(string(r.Detail), "no heartbeat any more") {
		t.Fatalf("abandoned row does not name its gone writer: %s", r.Detail)
	}
	if n, _ := e.Store.Count(ctx, runtrace.Filter{Reason: runtrace.ReasonAbandoned}); n != 1 {
		t.Fatalf("%d rows abandoned, want only the ghost's", n)
	}
}
