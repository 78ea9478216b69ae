package watchdog

import (
	"context"
	"os"
	"testing"
	"time"

	"svcctl/internal/testutil"
	"svcctl/runtrace"
)

// BenchmarkEnsureHealthy is one cycle of a healthy service, as the agent runs
// it: probe, run_trace row, state and watchdog.last.json.
func BenchmarkEnsureHealthy(b *testing.B) {
	b.ReportAllocs()
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
	c := &cycle{s: e.sup, svc: e.Cfg.Service("web")}
	b.ResetTimer()
	for b.Loop() {
		if h := c.stranger(context.Background()); h != nil {
			b.Fatalf("its own instance taken for a stranger: %s", h)
		}
	}
}

// BenchmarkSampleLimits is one sample of a service's tree for
// [service.limits] (what the agent does every for/2, at most every 10 s):
// its members listed and each one's RSS and CPU read.
func BenchmarkSampleLimits(b *testing.B) {
	addr := testutil.FreeAddr(b)
	e := newEnv(b, testutil.Service{Name: "web", Addr: addr, ExtraTOML: "[service.limits]\nmemory = \"1GiB\"\ncpu = \"400%\"\nfor = \"1m\"\n"})
	if r, _ := e.sup.Ensure(context.Background(), "web", Request{Trigger: runtrace.TriggerManual, Manual: true}); r.Reason != runtrace.ReasonStarted {
		b.Fatalf("start: %s", r.Message)
	}
	b.ResetTimer()
	for b.Loop() {
		if br, _ := e.sup.SampleLimits("web"); br != nil {
			b.Fatalf("breach: %s", br.Words)
		}
	}
}

// BenchmarkRestart is `svc-ctl restart` of a healthy service without its
// process start-up: snapshot, rotation, tree stop (SIGTERM), spawn, and
// the new instance healthy.
func BenchmarkRestart(b *testing.B) {
	addr := testutil.FreeAddr(b)
	e := newEnv(b, testutil.Service{Name: "web", Addr: addr})
	for b.Loop() {
		r, _ := e.sup.Restart(context.Background(), "web")
		if r.Outcome != runtrace.OutcomeOK {
			b.Fatalf("restart: %s", r.Message)
		}
	}
}

// BenchmarkStrangerCheckWorkers is the same for a server with 5 setsid
// workers: what a healthy cycle's Walk of 6 remembered members costs.
func BenchmarkStrangerCheckWorkers(b *testing.B) {
	addr := testutil.FreeAddr(b)
	e := newEnv(b, testutil.Service{Name: "web", Addr: addr, Args: []string{"--setsid-workers", "5"}})
	if r, _ := e.sup.Ensure(context.Background(), "web", Request{Trigger: runtrace.TriggerManual, Manual: true}); r.Reason != runtrace.ReasonStarted {
		b.Fatalf("start: %s", r.Message)
	}
	c := &cycle{s: e.sup, svc: e.Cfg.Service("web")}
	testutil.WaitFor(b, 10*time.Second, "6 members remembered", func() bool {
		c.stranger(context.Background())
		inst, _ := e.sup.Instance("web")
		return len(inst.Remembered) == 5
	})
	before, _ := os.Stat(e.sup.Paths.Pid("web"))
	b.ResetTimer()
	for b.Loop() {
		if h := c.stranger(context.Background()); h != nil {
			b.Fatalf("its own instance taken for a stranger: %s", h)
		}
	}
	b.StopTimer()
	if after, _ := os.Stat(e.sup.Paths.Pid("web")); !os.SameFile(before, after) {
		b.Fatal("the record was written again although no member changed")
	}
}
