//go:build unix

package main

import (
	"bufio"
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
)

// TestRunCtrlCInterrupts: Ctrl-C on `svc-ctl run` ends the run, its whole
// process tree, and records it failed/interrupted saying so; the command
// exits 130. With the agent (which runs it) and without one.
func TestRunCtrlCInterrupts(t *testing.T) {
	cfg, state := writeConfig(t, "", jobBlock("slow", "", "--say", "begun", "--exit-now", "0", "--sleep", "30s"))
	interrupt := func(how string) {
		t.Helper()
		cli := startCLI(t, "run", "slow", "--config", cfg)
		var row runtrace.Run
		testutil.WaitFor(t, 10*time.Second, "the run's process", func() bool {
			rs := runsOf(t, state, "job:slow")
			if len(rs) > 0 && rs[0].Outcome == runtrace.OutcomeRunning && strings.Contains(string(rs[0].Detail), `"process"`) {
				row = rs[0]
			}
			return row.ID != 0
		})
		var d struct {
			Process struct{ PID int } `json:"process"`
		}
		json.Unmarshal(row.Detail, &d)
		if err := cli.Process.Signal(syscall.SIGINT); err != nil {
			t.Fatal(err)
		}
		err := cli.Wait()
		if cli.ProcessState.ExitCode() != 130 {
			t.Errorf("%s: svc-ctl run after Ctrl-C: %v (exit %d); want 130\n%s", how, err, cli.ProcessState.ExitCode(), cli.stderr)
		}
		rs := runsOf(t, state, "job:slow")
		if len(rs) == 0 || rs[0].ID != row.ID || rs[0].Outcome != runtrace.OutcomeFailed || rs[0].Reason != runtrace.ReasonInterrupted ||
			!strings.Contains(string(rs[0].Detail), "Ctrl-C on 'svc-ctl run'") {
			t.Fatalf("%s: the interrupted run: %s %s", how, rs[0].Verdict(), rs[0].Detail)
		}
		if d.Process.PID == 0 || syscall.Kill(d.Process.PID, 0) == nil {
			t.Errorf("%s: the job's process %d outlived the interrupt", how, d.Process.PID)
		}
	}
	interrupt("no agent")
	startAgentProcess(t, cfg)
	testutil.WaitFor(t, 10*time.Second, "the agent", func() bool { _, err := os.Stat(filepath.Join(state, "agent.pid")); return err == nil })
	interrupt("through the agent")
}

// TestRunOutputReaderGone: `svc-ctl run JOB | head -1`: when whoever reads
// the output stops, the run goes on to its end, its output kept in
// last.log; the copy to the terminal stops, not the job (whose pipe would
// fill, and block it until its timeout).
func TestRunOutputReaderGone(t *testing.T) {
	seq, err := exec.LookPath("seq")
	if err != nil {
		t.Skip("no seq here")
	}
	cfg, state := writeConfig(t, "", fmt.Sprintf("\n[[job]]\nname = \"big\"\nschedule = \"@every 1h\"\ntimezone = \"UTC\"\ncommand = [%q, \"1\", \"300000\"]\ntimeout = \"30s\"\n", seq))
	headOne := func(how string) {
		t.Helper()
		cmd := exec.Command(svcctlBin, "run", "big", "--config", cfg)
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		line, _ := bufio.NewReader(out).ReadString('\n')
		out.Close() // `head -1` is done
		cmd.Wait()
		if strings.TrimSpace(line) != "1" {
			t.Fatalf("%s: first line %q", how, line)
		}
		rs := runsOf(t, state, "job:big")
		if len(rs) == 0 || rs[0].Verdict() != "ok/completed" || rs[0].Duration > 10*time.Second {
			t.Fatalf("%s: the run whose reader left: %s %s", how, rs[0].Verdict(), rs[0].Detail)
		}
	}
	headOne("no agent")
	startAgentProcess(t, cfg)
	testutil.WaitFor(t, 10*time.Second, "the agent", func() bool { _, err := os.Stat(filepath.Join(state, "agent.pid")); return err == nil })
	headOne("through the agent")
}
