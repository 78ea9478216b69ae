//go:build unix

package main

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"svcctl/internal/testutil"
	"svcctl/runtrace"

	_ "modernc.org/sqlite"
)

// TestAgentDiedIsRecorded: a start that finds the previous agent's
// heartbeat (it never stopped cleanly: kill -9) records failed/agent-died
// with its pid and last heartbeat, which raises an agent event. Before, the
// next agent recorded nothing of it. A heartbeat from an earlier boot is
// the host that went down: no row, no event.
func TestAgentDiedIsRecorded(t *testing.T) {
	addr := testutil.FreeAddr(t)
	cfg, state := writeConfig(t, "", webService("web", addr, "1h")+`
[[notify]]
name = "hook"
kind = "webhook"
url = "http://`+testutil.FreeAddr(t)+`/hook"
`)
	first, _ := startAgentProcess(t, cfg)
	st := openStore(t, state)
	testutil.WaitFor(t, 20*time.Second, "the first agent's heartbeat", func() bool {
		hbs, _ := st.Heartbeats(context.Background())
		return len(hbs) == 1
	})
	waitRecorded(t, state, "web")
	first.Process.Signal(syscall.SIGKILL)
	first.Wait()
	startAgentProcess(t, cfg)
	var died runtrace.Run
	testutil.WaitFor(t, 20*time.Second, "the agent-died row", func() bool {
		rs, _ := st.Runs(context.Background(), runtrace.Filter{JobID: "agent", Reason: runtrace.ReasonAgentDied})
		if len(rs) > 0 {
			died = rs[0]
		}
		return died.ID != 0
	})
	if !strings.Contains(string(died.Detail), fmt.Sprintf(`"pid":%d`, first.Process.Pid)) || !strings.Contains(string(died.Detail), `"last_heartbeat"`) {
		t.Errorf("agent-died: %s", died.Detail)
	}
	testutil.WaitFor(t, 10*time.Second, "its agent event", func() bool {
		ds, _ := st.Deliveries(context.Background(), 50)
		for _, d := range ds {
			if d.RunID == died.ID && d.Kind == "agent" {
				return true
			}
		}
		return false
	})
}

// TestHostDownIsNoAgentCrash: the previous agent's heartbeat was beaten in
// another boot: the host went down under it (a laptop's power-off), which
// is no agent crash: nothing recorded, nothing paged.
func TestHostDownIsNoAgentCrash(t *testing.T) {
	addr := testutil.FreeAddr(t)
	cfg, state := writeConfig(t, "", webService("web", addr, "1h"))
	first, _ := startAgentProcess(t, cfg)
	st := openStore(t, state)
	testutil.WaitFor(t, 20*time.Second, "the first agent's heartbeat", func() bool {
		hbs, _ := st.Heartbeats(context.Background())
		return len(hbs) == 1
	})
	waitRecorded(t, state, "web")
	first.Process.Signal(syscall.SIGKILL)
	first.Wait()
	// The previous agent ran in another boot: its agent.status names
	// another boot id, and its heartbeat a boot a day earlier (where the OS
	// names no boot id, that is what tells).
	b, err := os.ReadFile(filepath.Join(state, "agent.status"))
	if err != nil {
		t.Fatal(err)
	}
	var report map[string]any
	if err := json.Unmarshal(bytes.TrimSpace(b), &report); err != nil {
		t.Fatal(err)
	}
	report["boot_id"] = "a-boot-before-this-one"
	b, _ = json.Marshal(report)
	if err := os.WriteFile(filepath.Join(state, "agent.status"), append(b, '\n'), 0o600); err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite", filepath.Join(state, "svc-ctl.db"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`UPDATE heartbeats SET boot_time = boot_time - 86400000`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	startAgentProcess(t, cfg)
	testutil.WaitFor(t, 20*time.Second, "the second agent's start", func() bool {
		rs, _ := st.Runs(context.Background(), runtrace.Filter{JobID: "agent", Reason: runtrace.ReasonStarted})
		return len(rs) == 2
	})
	if n, _ := st.Count(context.Background(), runtrace.Filter{JobID: "agent", Reason: runtrace.ReasonAgentDied}); n != 0 {
		t.Fatalf("a power-off recorded as %d agent-died rows", n)
	}
}

// TestSetsidAgentIsForeground: an agent started with setsid (or nohup) is
// a person's, whatever its session: recorded foreground. Before, its
// parent (init) and session made it a "service", and its verify at start
// paged "agent installed FAIL" each time. `--managed`, what install
// renders, makes it the OS service's.
func TestSetsidAgentIsForeground(t *testing.T) {
	setsid, err := exec.LookPath("setsid")
	if err != nil {
		t.Skip("no setsid here")
	}
	for _, c := range []struct {
		args []string
		want string
	}{{nil, "foreground"}, {[]string{"--managed"}, "service"}} {
		cfg, state := writeConfig(t, "", "")
		cmd := exec.Command(setsid, append([]string{"-f", svcctlBin, "agent", "--config", cfg}, c.args...)...)
		cmd.Stdin, cmd.Stdout, cmd.Stderr = nil, nil, nil
		if err := cmd.Run(); err != nil {
			t.Fatal(err)
		}
		var mode string
		testutil.WaitFor(t, 20*time.Second, "the agent's start", func() bool {
			b, err := os.ReadFile(filepath.Join(state, "agent.pid"))
			if err != nil {
				return false
			}
			r := svcctl(t, "runs", "--job", "agent", "--json", "--config", cfg)
			var rows []runtrace.Run
			if json.Unmarshal([]byte(r.stdout), &rows) != nil || len(rows) == 0 {
				return false
			}
			// The startup row, once finished: begun, it has no detail yet.
			start := rows[len(rows)-1]
			if start.Outcome == runtrace.OutcomeRunning {
				return false
			}
			var d struct{ Mode string }
			json.Unmarshal(start.Detail, &d)
			mode = d.Mode
			var pid int
			fmt.Sscan(string(b), &pid)
			// stopped, and waited for, before the state dir is removed (an
			// agent still draining writes into it: "directory not empty")
			t.Cleanup(func() {
				syscall.Kill(pid, syscall.SIGTERM)
				testutil.WaitFor(t, 30*time.Second, "the setsid agent to end", func() bool { return processGone(pid) })
			})
			return true
		})
		if mode != c.want {
			t.Errorf("setsid svc-ctl agent %v: mode %q, want %q", c.args, mode, c.want)
		}
	}
}

// TestDrainingAgentSaysSo: from its SIGTERM to the end of its drain, status
// says the agent is draining (before: running, then stale); at the end its
// heartbeat is gone and status says stopped.
func TestDrainingAgentSaysSo(t *testing.T) {
	cfg, state := writeConfig(t, `drain_timeout = "20s"`, jobBlock("slow", "", "--exit-now", "0", "--sleep", "3s"))
	agent, _ := startAgentProcess(t, cfg)
	testutil.WaitFor(t, 10*time.Second, "the agent", func() bool { _, err := os.Stat(filepath.Join(state, "agent.pid")); return err == nil })
	run := startCLI(t, "run", "slow", "--config", cfg)
	testutil.WaitFor(t, 10*time.Second, "slow's run", func() bool {
		rs := runsOf(t, state, "job:slow")
		return len(rs) > 0 && rs[0].Outcome == runtrace.OutcomeRunning
	})
	agent.Process.Signal(syscall.SIGTERM)
	testutil.WaitFor(t, 5*time.Second, "status says draining", func() bool {
		return strings.Contains(svcctl(t, "status", "--config", cfg).stdout, "agent:  draining")
	})
	run.Wait()
	agent.Wait()
	if r := svcctl(t, "status", "--config", cfg); !strings.Contains(r.stdout, "agent:  stopped") {
		t.Errorf("after the drain: %s", r.stdout)
	}
}

// processGone: pid has ended (no such process, or a zombie nobody reaped:
// the setsid agent's parent is init, which in a container may not reap).
func processGone(pid int) bool {
	if syscall.Kill(pid, 0) == syscall.ESRCH {
		return true
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return os.IsNotExist(err)
	}
	i := strings.LastIndexByte(string(b), ')')
	return i > 0 && i+2 < len(b) && b[i+2] == 'Z'
}
