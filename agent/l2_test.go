package agent

import (
	"context"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"log/slog"
	"maps"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"svcctl/config"
	"svcctl/internal/redact"
	"svcctl/internal/testutil"
	"svcctl/jobs"
	"svcctl/proc"
	"svcctl/runtrace"
	"svcctl/state"
)

// TestEveryGoroutineIsGuarded counts the `go` statements of the agent's
// shipped code, its own packages (agent/l2, ../jobs, ../logcap...) included: the
// only ones are the two in l2/l2.go (GoSafe and GoOnce) and goCommand in
// jobs/manual.go (the command line's own runs, with no agent to keep alive),
// so every goroutine the agent starts runs under the L2 net. The packages
// start theirs through the agent's (jobs.Host, logcap.Cap.Go).
func TestEveryGoroutineIsGuarded(t *testing.T) {
	fset := token.NewFileSet()
	files, _ := filepath.Glob("*.go")
	sub, _ := filepath.Glob(filepath.Join("*", "*.go"))
	// The job runner, metrics and the log cap are packages beside agent/.
	for _, dir := range []string{"jobs", "metrics", "logcap"} {
		more, _ := filepath.Glob(filepath.Join("..", dir, "*.go"))
		if len(more) == 0 {
			t.Fatalf("no Go files in ../%s: the scan must see the agent's parts", dir)
		}
		sub = append(sub, more...)
	}
	allowed := map[string]int{filepath.Join("l2", "l2.go"): 2, filepath.Join("..", "jobs", "manual.go"): 1}
	found, elsewhere := map[string]int{}, []string{}
	for _, f := range append(files, sub...) {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		file, err := parser.ParseFile(fset, f, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(file, func(n ast.Node) bool {
			if g, ok := n.(*ast.GoStmt); ok {
				if _, ok := allowed[f]; ok {
					found[f]++
				} else {
					elsewhere = append(elsewhere, fset.Position(g.Pos()).String())
				}
			}
			return true
		})
	}
	if len(elsewhere) > 0 || !maps.Equal(found, allowed) {
		t.Fatalf("go statements outside the L2 net: %v (allowed: %v, found there: %v)", elsewhere, allowed, found)
	}
}

// A panic planted in each kind of one-shot goroutine — a job run, an exit
// watcher, a metrics request — is recovered and logged with its stack; the
// job's open run is finished failed/panic; and everything goes on: the job
// runs again, the killed service is restored (by its periodic cycle, since
// its exit watcher died), /metrics answers.
func TestPanicsInJobRunExitWatcherAndMetricsAreContained(t *testing.T) {
	addr, maddr := testutil.FreeAddr(t), testutil.FreeAddr(t)
	e := envOf(t, testutil.Service{Name: "web", Addr: addr, Interval: "1s"}.TOML(testsvcBin)+`
[[job]]
name = "tick"
schedule = "@every 1s"
timezone = "UTC"
command = `+jobCommand(0, "", "")+`
`)
	e.Cfg.Agent.MetricsListen = maddr
	var jobPanics, exitPanics atomic.Int32
	var ag *Agent
	ra := startAgentWith(t, e, Options{}, func(a *Agent) {
		ag = a
		run := a.jobs.RunOne
		a.jobs.RunOne = func(ctx context.Context, p state.Paths, j *config.Job, red *redact.Redactor, hooks jobs.Hooks) jobs.Result {
			if jobPanics.Add(1) == 1 {
				panic("planted: job run")
			}
			return run(ctx, p, j, red, hooks)
		}
		onExit := a.onExit
		a.onExit = func(name string, id proc.Identity, how string, gone bool) {
			if exitPanics.Add(1) == 1 {
				panic("planted: exit watcher")
			}
			onExit(name, id, how, gone)
		}
		h := a.metricsHandler
		a.metricsHandler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == "/boom" {
				panic("planted: metrics handler")
			}
			h.ServeHTTP(w, r)
		})
	})

	// The job run: failed/panic with the stack, then the job runs on.
	testutil.WaitFor(t, 20*time.Second, "a failed/panic job row and an ok one after it", func() bool {
		rs := jobRuns(e, "tick")
		var panicked, okAfter bool
		for i := len(rs) - 1; i >= 0; i-- { // oldest first
			panicked = panicked || rs[i].Reason == runtrace.ReasonPanic
			okAfter = okAfter || (panicked && rs[i].Outcome == runtrace.OutcomeOK)
		}
		return panicked && okAfter
	})
	rs, _ := e.Store.Runs(context.Background(), runtrace.Filter{JobID: runtrace.JobID("tick"), Reason: runtrace.ReasonPanic})
	if len(rs) != 1 || !strings.Contains(string(rs[0].Detail), "planted: job run") || !strings.Contains(string(rs[0].Detail), "goroutine") {
		t.Fatalf("panic rows %+v; want one naming the panic with its stack", rs)
	}

	// The exit watcher: its panic is logged, the periodic cycle restores.
	testutil.WaitFor(t, 20*time.Second, "web started", func() bool {
		return latestStarted(e, "web", time.Time{}) != nil && testutil.Healthy(addr)
	})
	old := e.Pid("web")
	killedAt := time.Now()
	testutil.KillPID(t, int(old.PID))
	testutil.WaitFor(t, 20*time.Second, "the killed service restored", func() bool {
		return latestStarted(e, "web", killedAt.Add(-time.Second)) != nil && testutil.Healthy(addr)
	})
	if exitPanics.Load() == 0 {
		t.Fatal("the exit watcher never ran")
	}

	// The metrics handler: a 500 for the request that panicked, then on.
	r, err := http.Get("http://" + maddr + "/boom")
	if err != nil {
		t.Fatal(err)
	}
	r.Body.Close()
	if r.StatusCode != http.StatusInternalServerError {
		t.Fatalf("/boom answered %d, want 500", r.StatusCode)
	}
	r, err = http.Get("http://" + maddr + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(r.Body)
	r.Body.Close()
	if !strings.Contains(string(b), "svcctl_job_runs_total") {
		t.Fatalf("/metrics after the panic:\n%s", b)
	}

	log := ra.log.String()
	for _, g := range []string{`"goroutine":"job:tick"`, `"goroutine":"exit-watch:web"`, `"goroutine":"metrics /boom"`} {
		if !strings.Contains(log, g) {
			t.Errorf("no panic.recovered for %s in the log", g)
		}
	}
	if n := ag.net.Panics(); n != 3 {
		t.Errorf("L2 recovered %d panics, want 3", n)
	}
	if ag.net.Guarded() < 5 {
		t.Errorf("only %d goroutines started under L2", ag.net.Guarded())
	}
}

// envPanicAgent makes the test binary an agent whose first job run panics
// (TestMain): the real process for on_panic = "exit".
const envPanicAgent = "SVCCTL_TEST_PANIC_AGENT_CONFIG"

// runPanicAgent runs the agent on the config at path with a panic planted in
// its job runs, and returns the process's exit code.
func runPanicAgent(path string) int {
	cfg, err := config.Load(path)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	a, err := newAgent(Options{Config: cfg, Version: "panic-agent"})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	a.jobs.RunOne = func(context.Context, state.Paths, *config.Job, *redact.Redactor, jobs.Hooks) jobs.Result {
		panic("planted: job run under on_panic = exit")
	}
	err = a.run(context.Background())
	a.closeAll()
	if err != nil {
		fmt.Fprintln(os.Stderr, "agent:", err)
		return 1
	}
	return 0
}

// on_panic = "exit": a real agent process logs the panic, finishes the run it
// broke as failed/panic, drains (no row left running, heartbeat deleted) and
// exits non-zero.
func TestOnPanicExitEndsTheProcess(t *testing.T) {
	path, stateDir := testutil.WriteConfig(t, `on_panic = "exit"
drain_timeout = "3s"`, `
[[job]]
name = "tick"
schedule = "@every 1s"
timezone = "UTC"
command = `+jobCommand(0, "", "")+`
`)
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), envPanicAgent+"="+path)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	select {
	case err := <-exited:
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 {
			t.Fatalf("agent exit: %v, want exit code 1\n%s", err, stderr.String())
		}
	case <-time.After(60 * time.Second):
		cmd.Process.Kill()
		t.Fatal("the agent did not exit after the panic")
	}
	if !strings.Contains(stderr.String(), `on_panic = "exit"`) {
		t.Fatalf("stderr does not say why it exited:\n%s", stderr.String())
	}
	logb, _ := os.ReadFile(filepath.Join(stateDir, "agent.log"))
	if !strings.Contains(string(logb), "panic.recovered") || !strings.Contains(string(logb), "agent.stopped") {
		t.Fatalf("agent.log lacks the panic or the drain:\n%s", logb)
	}
	st, err := runtrace.Open(filepath.Join(stateDir, "svc-ctl.db"), runtrace.Options{Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ctx := context.Background()
	if n, _ := st.Count(ctx, runtrace.Filter{JobID: runtrace.JobID("tick"), Reason: runtrace.ReasonPanic}); n != 1 {
		t.Fatalf("%d failed/panic rows, want 1", n)
	}
	if n, _ := st.Count(ctx, runtrace.Filter{Outcome: runtrace.OutcomeRunning}); n != 0 {
		t.Fatalf("%d rows left running", n)
	}
	if hb, _ := st.Heartbeats(ctx); len(hb) != 0 {
		t.Fatalf("heartbeat left: %+v", hb)
	}
}
