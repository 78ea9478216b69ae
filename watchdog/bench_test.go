package watchdog

import (
	"context"
	"testing"

	"svcctl/internal/testutil"
	"svcctl/runtrace"
)

// BenchmarkEnsureHealthy is one cycle of a healthy service, as the agent runs
// it: probe, run_trace row, state and watchdog.last.json.
func BenchmarkEnsureHealthy(b *testing.B) {
	addr := testutil.FreeAddr(b)
	e := newEnv(b, testutil.Service{Name: "web", Addr: addr})
	if r, _ := e.sup.Ensure(context.Background(), "web", Request{Trigger: runtrace.TriggerManual, Manual: true}); r.Reason != runtrace.ReasonStarted {
		b.Fatalf("start: %s", r.Message)
	}
	b.ResetTimer()
	for b.Loop() {
		r, _ := e.sup.Ensure(context.Background(), "web", Request{Trigger: runtrace.TriggerSchedule})
		if r.Reason != runtrace.ReasonAlreadyRunning {
			b.Fatalf("cycle: %s", r.Message)
		}
	}
}

// BenchmarkStrangerCheck is what a healthy cycle of a service with a
// recorded instance adds to judge who answers its probe (stranger.go): with
// the leader alive, one identity read.
func BenchmarkStrangerCheck(b *testing.B) {
	addr := testutil.FreeAddr(b)
	e := newEnv(b, testutil.Service{Name: "web", Addr: addr})
	if r, _ := e.sup.Ensure(context.Background(), "web", Request{Trigger: runtrace.TriggerManual, Manual: true}); r.Reason != runtrace.ReasonStarted {
		b.Fatalf("start: %s", r.Message)
	}
	c := &cycle{s: e.sup, svc: e.cfg.Service("web")}
	b.ResetTimer()
	for b.Loop() {
		if h := c.stranger(context.Background()); h != nil {
			b.Fatalf("its own instance taken for a stranger: %s", h)
		}
	}
}
