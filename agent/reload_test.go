package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"svcctl/agent/reloadplan"
	"svcctl/config"
	"svcctl/control"
	"svcctl/internal/testutil"
	"svcctl/proc"
	"svcctl/runtrace"
	"svcctl/state"
)

// reloadEnv is an agent whose config file the test rewrites.
type reloadEnv struct {
	*testEnv
	t      *testing.T
	agent  *runningAgent
	reload chan struct{}
	head   string // the file's [agent] table
}

func (r *reloadEnv) write(body string) {
	r.t.Helper()
	if err := os.WriteFile(r.Cfg.Path, []byte(r.head+body), 0o600); err != nil {
		r.t.Fatal(err)
	}
}

// reloadNow asks for a reload and waits for the agent row that answers it.
func (r *reloadEnv) reloadNow(after time.Time) runtrace.Run {
	r.t.Helper()
	r.reload <- struct{}{}
	var row *runtrace.Run
	testutil.WaitFor(r.t, 30*time.Second, "the reload's row", func() bool {
		rs, _ := r.Store.Runs(context.Background(), runtrace.Filter{JobID: runtrace.AgentID, Since: after})
		for i := range rs {
			if rs[i].Reason == runtrace.ReasonReloaded || rs[i].Reason == runtrace.ReasonConfigInvalid {
				row = &rs[i]
			}
		}
		return row != nil
	})
	return *row
}

func (r *reloadEnv) pid(name string) int32 {
	id, err := proc.ReadPidFile(state.PathsOf(r.Cfg).Pid(name))
	if err != nil {
		return 0
	}
	return id.PID
}

func healthBody(addr string) string {
	c := http.Client{Timeout: time.Second}
	resp, err := c.Get("http://" + addr + "/health")
	if err != nil {
		return ""
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return string(b)
}

func quickJob(name, schedule string) string {
	return fmt.Sprintf("\n[[job]]\nname = %q\nschedule = %q\ntimezone = \"UTC\"\ncommand = %s\n", name, schedule, jobCommand(0, "", ""))
}

// TestReloadAddsChangesRemoves: under a running agent, a reload
// adds, changes and removes services and jobs. Unchanged services keep
// their instance (the same pid); a change of the loop alone (interval)
// keeps it too; a change of what the instance runs replaces it at once
// (ok/restarted, cause manual, the new command in force); an added service
// starts; a removed one is no longer cycled and its instance is stopped,
// recorded ok/stopped with its pid (a bare SIGHUP takes the defaults); an
// added job runs, a removed one no more.
func TestReloadAddsChangesRemoves(t *testing.T) {
	addr := map[string]string{}
	for _, n := range []string{"keep", "retime", "rerun", "gone", "fresh"} {
		addr[n] = testutil.FreeAddr(t)
	}
	svc := func(name, interval string, args ...string) string {
		return testutil.Service{Name: name, Addr: addr[name], Interval: interval, Args: args}.TOML(testsvcBin)
	}
	before := svc("keep", "1h") + svc("retime", "1h") + svc("rerun", "1h") + svc("gone", "1h") +
		quickJob("stays", "@every 1h") + quickJob("leaves", "@every 1s")
	e := newEnv(t)
	r := &reloadEnv{testEnv: e, t: t, reload: make(chan struct{}, 1)}
	r.head = fmt.Sprintf("[agent]\nstate_dir = %q\nheartbeat = \"1s\"\ndrain_timeout = \"3s\"\n", e.Cfg.Agent.StateDir)
	r.write(before)
	cfg, err := config.Load(e.Cfg.Path)
	if err != nil {
		t.Fatal(err)
	}
	e.Cfg = cfg
	r.agent = startAgent(t, e, Options{Reload: r.reload, Load: config.Load})
	for _, n := range []string{"keep", "retime", "rerun", "gone"} {
		testutil.WaitFor(t, 20*time.Second, n+" started", func() bool { return latestStarted(e, n, time.Time{}) != nil })
	}
	testutil.WaitFor(t, 10*time.Second, "a run of the job that leaves", func() bool { return len(jobRuns(e, "leaves")) > 0 })
	pids := map[string]int32{}
	for _, n := range []string{"keep", "retime", "rerun", "gone"} {
		pids[n] = r.pid(n)
	}

	at := time.Now().UTC()
	r.write(svc("keep", "1h") + svc("retime", "2h") + svc("rerun", "1h", "--body", "v2") + svc("fresh", "1h") +
		quickJob("stays", "@every 1h") + quickJob("arrives", "@every 1s"))
	row := r.reloadNow(at)
	if row.Reason != runtrace.ReasonReloaded {
		t.Fatalf("reload: %s %s", row.Verdict(), row.Detail)
	}
	var d struct {
		Message string          `json:"message"`
		Plan    reloadplan.Plan `json:"plan"`
	}
	json.Unmarshal(row.Detail, &d)
	if d.Plan.Unchanged != 2 || len(d.Plan.Replaced) != 1 || d.Plan.Replaced[0] != "rerun" ||
		fmt.Sprint(d.Plan.ChangedServices["retime"]) != "[interval]" || fmt.Sprint(d.Plan.RemovedServices) != "[gone]" ||
		fmt.Sprint(d.Plan.AddedServices) != "[fresh]" || fmt.Sprint(d.Plan.AddedJobs) != "[arrives]" || fmt.Sprint(d.Plan.RemovedJobs) != "[leaves]" {
		t.Fatalf("plan: %+v", d.Plan)
	}
	testutil.WaitFor(t, 20*time.Second, "rerun replaced, answering v2", func() bool { return healthBody(addr["rerun"]) == "v2" })
	testutil.WaitFor(t, 20*time.Second, "fresh started", func() bool { return testutil.Healthy(addr["fresh"]) })
	testutil.WaitFor(t, 10*time.Second, "a run of the job that arrived", func() bool { return len(jobRuns(e, "arrives")) > 0 })
	for _, n := range []string{"keep", "retime"} {
		if got := r.pid(n); got != pids[n] {
			t.Errorf("%s: pid %d -> %d: an instance the reload did not need to touch was replaced", n, pids[n], got)
		}
	}
	var restarted []runtrace.Run
	testutil.WaitFor(t, 20*time.Second, "rerun's restarted row", func() bool {
		restarted, _ = e.Store.Runs(context.Background(), runtrace.Filter{JobID: "watchdog:rerun", Since: at, Reason: runtrace.ReasonRestarted})
		return len(restarted) > 0
	})
	if len(restarted) != 1 || restarted[0].Trigger != runtrace.TriggerManual ||
		!strings.Contains(string(restarted[0].Detail), `"cause":"manual: config reloaded: command changed"`) {
		t.Fatalf("rerun's replacement: %+v", restarted)
	}
	if !strings.Contains(d.Message, "services removed: gone") {
		t.Errorf("reload message %q does not name the removed service", d.Message)
	}
	var stopped []runtrace.Run
	testutil.WaitFor(t, 10*time.Second, "gone's stopped row", func() bool {
		stopped, _ = e.Store.Runs(context.Background(), runtrace.Filter{JobID: "watchdog:gone", Since: at, Reason: runtrace.ReasonStopped})
		return len(stopped) > 0
	})
	if !strings.Contains(string(stopped[0].Detail), fmt.Sprintf(`"pid":%d`, pids["gone"])) || stopped[0].Outcome != runtrace.OutcomeOK {
		t.Errorf("the removed service's stop: %s %s, want ok/stopped naming pid %d", stopped[0].Verdict(), stopped[0].Detail, pids["gone"])
	}
	if ok, _ := proc.Match(mustIdentity(t, e, "gone")); ok || testutil.Healthy(addr["gone"]) {
		t.Fatal("the removed service's process still runs after the reload: a reload orphaned it")
	}
	// The removed job's loop was stopped before the reload's row was
	// written. The job that arrived has the same schedule: two of its runs
	// after that row are two slots the removed one would have run too.
	testutil.WaitFor(t, 10*time.Second, "two slots of the arrived job after the reload", func() bool {
		rs, _ := e.Store.Runs(context.Background(), runtrace.Filter{JobID: "job:arrives", Since: row.StartedAt})
		return len(rs) >= 2
	})
	if rs, _ := e.Store.Runs(context.Background(), runtrace.Filter{JobID: "job:leaves", Since: row.StartedAt}); len(rs) > 0 {
		t.Fatalf("the removed job still runs: %d runs after the reload", len(rs))
	}
	// gone is no longer supervised: nobody brings it back.
	if rs, _ := e.Store.Runs(context.Background(), runtrace.Filter{JobID: "watchdog:gone", Since: at}); len(rs) != 1 {
		t.Fatalf("the removed service has cycles after its stop: %+v", rs)
	}
}

func mustIdentity(t *testing.T, e *testEnv, name string) proc.Identity {
	t.Helper()
	id, err := proc.ReadPidFile(state.PathsOf(e.Cfg).Pid(name))
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// TestReloadRefusesInvalidFile: a file that does not load is refused as
// failed/config-invalid with its errors, and the config in force goes on:
// its service is still supervised (killed, it is back). A reload asked to
// keep removed services leaves their instance running, and says so.
func TestReloadRefusesInvalidFile(t *testing.T) {
	a, b := testutil.FreeAddr(t), testutil.FreeAddr(t)
	e := newEnv(t)
	r := &reloadEnv{testEnv: e, t: t, reload: make(chan struct{}, 1)}
	r.head = fmt.Sprintf("[agent]\nstate_dir = %q\nheartbeat = \"1s\"\ndrain_timeout = \"3s\"\n", e.Cfg.Agent.StateDir)
	web := testutil.Service{Name: "web", Addr: a, Interval: "1h"}.TOML(testsvcBin)
	old := testutil.Service{Name: "old", Addr: b, Interval: "1h"}.TOML(testsvcBin)
	r.write(web + old)
	cfg, err := config.Load(e.Cfg.Path)
	if err != nil {
		t.Fatal(err)
	}
	e.Cfg = cfg
	r.agent = startAgent(t, e, Options{Reload: r.reload, Load: config.Load})
	testutil.WaitFor(t, 20*time.Second, "web and old started", func() bool {
		return latestStarted(e, "web", time.Time{}) != nil && latestStarted(e, "old", time.Time{}) != nil
	})

	at := time.Now().UTC()
	r.write(web + "\n[[service]]\nname = \"broken\"\ncommand = []\n")
	row := r.reloadNow(at)
	if row.Outcome != runtrace.OutcomeFailed || row.Reason != runtrace.ReasonConfigInvalid ||
		!strings.Contains(string(row.Detail), "empty command") || !strings.Contains(string(row.Detail), "stays in force") {
		t.Fatalf("reload of an invalid file: %s %s", row.Verdict(), row.Detail)
	}
	killed := r.pid("web")
	testutil.KillPID(t, int(killed))
	testutil.WaitFor(t, 20*time.Second, "web back after the refused reload", func() bool {
		return r.pid("web") != killed && testutil.Healthy(a)
	})

	// Remove "old", asking for its processes to be kept.
	r.write(web)
	oldPID := r.pid("old")
	if _, err := control.Post(state.PathsOf(e.Cfg), control.KindReload, control.ReloadArgs{KeepRemoved: true}); err != nil {
		t.Fatal(err)
	}
	at = time.Now().UTC()
	row = r.reloadNow(at)
	if row.Reason != runtrace.ReasonReloaded || !strings.Contains(string(row.Detail), fmt.Sprintf(`"kept":{"old":"left running, no longer supervised: pid %d`, oldPID)) ||
		!strings.Contains(string(row.Detail), `"request_id"`) {
		t.Fatalf("reload --keep-removed: %s %s", row.Verdict(), row.Detail)
	}
	if !testutil.Healthy(b) {
		t.Fatal("the removed service was stopped though the reload asked to keep it")
	}
	if rec, err := state.ReadRemoved(state.PathsOf(e.Cfg), "old"); err != nil || rec == nil || rec.PID != oldPID || rec.StopTimeout != "2s" {
		t.Fatalf("the record that lets 'svc-ctl stop old' stop it later: %+v, %v", rec, err)
	}
}

// TestReloadRefusesAnIncludeThatEmptied: a conf.d whose files are all gone
// (a deploy half done) is refused instead of read as every job of it
// removed; with --allow-missing-include the same file is taken.
func TestReloadRefusesAnIncludeThatEmptied(t *testing.T) {
	e := jobEnv(t, "")
	r := &reloadEnv{testEnv: e, t: t, reload: make(chan struct{}, 1)}
	r.head = fmt.Sprintf("include = [\"conf.d/*.toml\"]\n[agent]\nstate_dir = %q\nheartbeat = \"1s\"\ndrain_timeout = \"3s\"\n", e.Cfg.Agent.StateDir)
	confd := filepath.Join(filepath.Dir(e.Cfg.Path), "conf.d")
	os.MkdirAll(confd, 0o700)
	inc := filepath.Join(confd, "pull.toml")
	if err := os.WriteFile(inc, []byte(quickJob("pull", "@every 1h")), 0o600); err != nil {
		t.Fatal(err)
	}
	r.write("")
	cfg, err := config.Load(e.Cfg.Path)
	if err != nil || cfg.Job("pull") == nil {
		t.Fatalf("load: %v", err)
	}
	e.Cfg = cfg
	r.agent = startAgent(t, e, Options{Reload: r.reload, Load: config.Load})

	os.Remove(inc)
	row := r.reloadNow(time.Now().UTC())
	if row.Reason != runtrace.ReasonConfigInvalid || !strings.Contains(string(row.Detail), `include \"conf.d/*.toml\" matched 1 file(s)`) ||
		!strings.Contains(string(row.Detail), "--allow-missing-include") {
		t.Fatalf("reload with an emptied include: %s %s", row.Verdict(), row.Detail)
	}
	if _, err := control.Post(state.PathsOf(e.Cfg), control.KindReload, control.ReloadArgs{AllowMissingInclude: true}); err != nil {
		t.Fatal(err)
	}
	row = r.reloadNow(time.Now().UTC())
	if row.Reason != runtrace.ReasonReloaded || !strings.Contains(string(row.Detail), `"removed_jobs":["pull"]`) {
		t.Fatalf("reload --allow-missing-include: %s %s", row.Verdict(), row.Detail)
	}
}
