//go:build unix

package main

import (
	"fmt"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"svcctl/internal/testutil"
	"svcctl/proc"
	"svcctl/runtrace"
)

// TestSIGHUPReloads: a bare SIGHUP (no request) is a reload too; the agent
// records it and keeps running, and it stops what the file removed, as
// `svc-ctl reload` does. A file that cannot be read, or is empty (a save
// caught halfway), is refused as a whole, never read as "everything was
// removed": before, an empty file stopped every service's supervision.
func TestSIGHUPReloads(t *testing.T) {
	web, gone := testutil.FreeAddr(t), testutil.FreeAddr(t)
	cfg, state := writeConfig(t, "", webService("web", web, "1h"))
	head, err := os.ReadFile(cfg)
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(cfg, append(append([]byte{}, head...), webService("gone", gone, "1h")...), 0o600)
	agent, _ := startAgentProcess(t, cfg)
	testutil.WaitFor(t, 20*time.Second, "web and gone started", func() bool { return testutil.Healthy(web) && testutil.Healthy(gone) })
	goneID := readIdentity(t, state, "gone")
	hup := func(want string) {
		t.Helper()
		before := len(runsOf(t, state, "agent"))
		if err := agent.Process.Signal(syscall.SIGHUP); err != nil {
			t.Fatal(err)
		}
		testutil.WaitFor(t, 20*time.Second, "the reload's row: "+want, func() bool {
			rs := runsOf(t, state, "agent")
			return len(rs) > before && strings.Contains(rs[0].Verdict()+" "+string(rs[0].Detail), want)
		})
	}
	os.WriteFile(cfg, head, 0o600)
	hup("services removed: gone")
	if alive, _ := proc.Match(goneID); alive {
		t.Fatal("a SIGHUP reload left the removed service running")
	}
	hup("no service or job changed")
	os.WriteFile(cfg, nil, 0o600)
	hup("is empty (a save in progress?)")
	os.Remove(cfg)
	hup("failed/config-invalid")
	if !testutil.Healthy(web) {
		t.Fatal("web stopped answering after reloads of an empty and a missing file")
	}
	// Alive, not ProcessState: that is set only once Wait returns.
	if !proc.Alive(int32(agent.Process.Pid)) {
		t.Fatal("SIGHUP stopped the agent")
	}
}

// TestReloadStopsRemoved: a service deleted from the file is stopped by
// `svc-ctl reload` (identity-checked, recorded ok/stopped with its pid),
// where before the reload said "services removed: sync" and its process ran
// on, unsupervised, beyond the reach of `stop` and `status`. A removed job's
// run in flight finishes and is recorded. --keep-removed leaves the process
// running, says which pid and how to stop it, and `svc-ctl stop NAME` does,
// even after the agent was killed and started again. --stop-removed is
// still accepted.
func TestReloadStopsRemoved(t *testing.T) {
	web, syncAddr, api := testutil.FreeAddr(t), testutil.FreeAddr(t), testutil.FreeAddr(t)
	cfg, state := writeConfig(t, "", webService("web", web, "1h"))
	head, err := os.ReadFile(cfg)
	if err != nil {
		t.Fatal(err)
	}
	write := func(body string) {
		t.Helper()
		if err := os.WriteFile(cfg, append(append([]byte{}, head...), body...), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	slow := jobBlock("slow", "", "--exit-now", "0", "--sleep", "3s")
	write(webService("sync", syncAddr, "1h") + slow)
	agent, _ := startAgentProcess(t, cfg)
	testutil.WaitFor(t, 20*time.Second, "web and sync", func() bool { return testutil.Healthy(web) && testutil.Healthy(syncAddr) })
	syncID := readIdentity(t, state, "sync")
	run := startCLI(t, "run", "slow", "--config", cfg)
	testutil.WaitFor(t, 10*time.Second, "slow's run", func() bool {
		rs := runsOf(t, state, "job:slow")
		return len(rs) > 0 && rs[0].Outcome == runtrace.OutcomeRunning
	})

	write("")
	r := svcctl(t, "reload", "--config", cfg)
	if r.code != 0 || !strings.Contains(r.stdout, "services removed: sync") || !strings.Contains(r.stdout, "jobs removed: slow") ||
		!strings.Contains(r.stdout, "\n  sync: stopped (") {
		t.Fatalf("reload that removes sync and slow: %+v", r)
	}
	if alive, _ := proc.Match(syncID); alive || testutil.Healthy(syncAddr) {
		t.Fatalf("sync (pid %d) still runs after the reload removed it", syncID.PID)
	}
	rows := runsOf(t, state, "watchdog:sync")
	if len(rows) == 0 || rows[0].Verdict() != "ok/stopped" || !strings.Contains(string(rows[0].Detail), fmt.Sprintf(`"pid":%d`, syncID.PID)) {
		t.Fatalf("sync last row: %s %s", rows[0].Verdict(), rows[0].Detail)
	}
	if err := run.Wait(); err != nil {
		t.Fatalf("the removed job's run in flight: %v\n%s", err, run.stderr)
	}
	if rs := runsOf(t, state, "job:slow"); rs[0].Verdict() != "ok/completed" {
		t.Fatalf("the removed job's run: %s", rs[0].Verdict())
	}
	// Its history is reachable by its name, and says it is history (before:
	// only as job:slow, and "no service or job named slow").
	if r := svcctl(t, "why", "slow", "--config", cfg); r.code != 0 || !strings.Contains(r.stdout, "job:slow (no longer in the config: its history)") ||
		!strings.Contains(r.stdout, "ok/completed") {
		t.Errorf("why of a removed job: %+v", r)
	}
	if r := svcctl(t, "runs", "--job", "slow", "--config", cfg); r.code != 0 || !strings.Contains(r.stdout, "job:slow") ||
		!strings.Contains(r.stderr, "slow is no longer in the config") {
		t.Errorf("runs --job of a removed job: %+v", r)
	}

	write(webService("api", api, "1h"))
	if r := svcctl(t, "reload", "--stop-removed", "--config", cfg); r.code != 0 || !strings.Contains(r.stdout, "services added: api") {
		t.Fatalf("reload --stop-removed (still accepted): %+v", r)
	}
	testutil.WaitFor(t, 20*time.Second, "api", func() bool { return testutil.Healthy(api) })
	apiID := readIdentity(t, state, "api")
	write("")
	r = svcctl(t, "reload", "--keep-removed", "--config", cfg)
	want := fmt.Sprintf("  api: left running, no longer supervised: pid %d ('svc-ctl stop api' stops it)", apiID.PID)
	if r.code != 0 || !strings.Contains(r.stdout, want) {
		t.Fatalf("reload --keep-removed: %+v\nwant %q", r, want)
	}
	if !testutil.Healthy(api) {
		t.Fatal("--keep-removed stopped api")
	}
	if r := svcctl(t, "status", "--config", cfg); !strings.Contains(r.stdout, "api: removed from the config by a reload at ") ||
		!strings.Contains(r.stdout, fmt.Sprintf("still running unsupervised (pid %d, 1 process): 'svc-ctl stop api'", apiID.PID)) {
		t.Errorf("status does not show the service left running:\n%s", r.stdout)
	}
	if r := svcctl(t, "verify", "--config", cfg); !strings.Contains(r.stdout, "no unsupervised leftovers") || !strings.Contains(r.stdout, "still runs, unsupervised") {
		t.Errorf("verify does not warn of the service left running:\n%s", r.stdout)
	}
	// The agent is killed and started again: the record outlives it.
	agent.Process.Signal(syscall.SIGKILL)
	agent.Wait()
	startAgentProcess(t, cfg)
	r = svcctl(t, "stop", "api", "--config", cfg)
	if r.code != 0 || !strings.Contains(r.stdout, "api: removed from the config; stopped (") {
		t.Fatalf("stop of a removed service left running: %+v", r)
	}
	if alive, _ := proc.Match(apiID); alive || testutil.Healthy(api) {
		t.Fatal("api still runs after stop")
	}
	if r := svcctl(t, "stop", "api", "--config", cfg); r.code != 2 || !strings.Contains(r.stderr, "no service named api") {
		t.Fatalf("a second stop, once the instance is gone: %+v", r)
	}
}
