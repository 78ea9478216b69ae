//go:build linux

package agent

import (
	"context"
	"testing"

	"svcctl/runtrace"
)

// BenchmarkEnsureHealthy is one cycle of a healthy service, as the agent runs
// it: probe, run_trace row, state and watchdog.last.json.
func BenchmarkEnsureHealthy(b *testing.B) {
	addr := freeAddr(b)
	e := newEnv(b, svcOpts{name: "web", addr: addr})
	if r := e.sup.Ensure(context.Background(), "web", Request{Trigger: runtrace.TriggerManual, Manual: true}); r.Reason != runtrace.ReasonStarted {
		b.Fatalf("start: %s", r.Message)
	}
	b.ResetTimer()
	for b.Loop() {
		r := e.sup.Ensure(context.Background(), "web", Request{Trigger: runtrace.TriggerSchedule})
		if r.Reason != runtrace.ReasonAlreadyRunning {
			b.Fatalf("cycle: %s", r.Message)
		}
	}
}
