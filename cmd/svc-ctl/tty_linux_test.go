//go:build linux

package main

import (
	"bytes"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"svcctl/internal/testutil"
)

// ptyOutput collects what a process writes to a terminal.
type ptyOutput struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (p *ptyOutput) read(master *os.File) {
	buf := make([]byte, 4096)
	for {
		n, err := master.Read(buf)
		p.mu.Lock()
		p.b.Write(buf[:n])
		p.mu.Unlock()
		if err != nil {
			return
		}
	}
}

func (p *ptyOutput) String() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.b.String()
}

// onTTY runs svc-ctl with stdout and stderr on a terminal, env added.
func onTTY(t *testing.T, env []string, args ...string) string {
	t.Helper()
	master, slave := openPTY(t)
	out := &ptyOutput{}
	go out.read(master)
	cmd := exec.Command(svcctlBin, args...)
	cmd.Stdout, cmd.Stderr = slave, slave
	cmd.Env = append(os.Environ(), env...)
	cmd.Run()
	var got string
	testutil.WaitFor(t, 5*time.Second, "the output on the terminal", func() bool {
		got = out.String()
		return strings.Contains(got, "SERVICE") || strings.Contains(got, "ID ")
	})
	return got
}

// TestColourOnATerminal: on a terminal status and runs are coloured (the
// state, the verdicts), with the columns still aligned; NO_COLOR turns it
// off, and nothing is coloured when the output is not a terminal.
func TestColourOnATerminal(t *testing.T) {
	addr := testutil.FreeAddr(t)
	cfg, _ := writeConfig(t, "", webService("web", addr, "1h"))
	if r := svcctl(t, "start", "web", "--config", cfg); r.code != 0 {
		t.Fatalf("start: %+v", r)
	}
	got := onTTY(t, []string{"TERM=xterm"}, "status", "--config", cfg)
	if !strings.Contains(got, "\x1b[32mhealthy\x1b[0m") {
		t.Errorf("status on a terminal is not coloured:\n%q", got)
	}
	if got := onTTY(t, []string{"TERM=xterm"}, "runs", "--config", cfg); !strings.Contains(got, "\x1b[32mok/started\x1b[0m") {
		t.Errorf("runs on a terminal is not coloured:\n%q", got)
	}
	if got := onTTY(t, []string{"TERM=xterm", "NO_COLOR=1"}, "status", "--config", cfg); strings.Contains(got, "\x1b[") {
		t.Errorf("status with NO_COLOR is coloured:\n%q", got)
	}
	if r := svcctl(t, "status", "--config", cfg); strings.Contains(r.stdout, "\x1b[") {
		t.Errorf("status to a pipe is coloured:\n%q", r.stdout)
	}
}

// TestForegroundAgentTellsItsStory: a person's agent on a terminal prints
// the human lines of `logs agent` (before: raw JSON), and when it stops, which
// services keep running and how to stop them (before: only clean:true).
// Not on a terminal, it prints JSON lines.
func TestForegroundAgentTellsItsStory(t *testing.T) {
	addr := testutil.FreeAddr(t)
	cfg, state := writeConfig(t, "", webService("web", addr, "1h"))
	master, slave := openPTY(t)
	out := &ptyOutput{}
	go out.read(master)
	agent := exec.Command(svcctlBin, "agent", "--config", cfg, "--max-stagger", "100ms")
	agent.Stdout, agent.Stderr = slave, slave
	if err := agent.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if agent.ProcessState == nil {
			agent.Process.Kill()
			agent.Wait()
		}
	})
	testutil.WaitFor(t, 20*time.Second, "web started", func() bool { return testutil.Healthy(addr) })
	testutil.WaitFor(t, 5*time.Second, "the agent's lines", func() bool { return strings.Contains(out.String(), "service.spawned") })
	pid := readPIDOf(t, state, "web")
	agent.Process.Signal(syscall.SIGINT)
	agent.Wait()
	var got string
	testutil.WaitFor(t, 5*time.Second, "the last word", func() bool {
		got = out.String()
		return strings.Contains(got, "Stop them with: svc-ctl stop web")
	})
	if strings.Contains(got, `{"time"`) || !strings.Contains(got, "INFO  agent.running") {
		t.Errorf("a foreground agent on a terminal prints JSON, not the human lines:\n%s", got)
	}
	if !strings.Contains(got, "These keep running, unsupervised until an agent runs again:") || !strings.Contains(got, "web") ||
		!strings.Contains(got, "pid "+strconv.Itoa(pid)) {
		t.Errorf("the agent's last word does not say what keeps running:\n%s", got)
	}

	// Not a terminal: JSON lines.
	a2 := exec.Command(svcctlBin, "agent", "--config", cfg, "--max-stagger", "100ms")
	var errb lockedBuf
	a2.Stderr = &errb
	if err := a2.Start(); err != nil {
		t.Fatal(err)
	}
	testutil.WaitFor(t, 20*time.Second, "a JSON line", func() bool { return strings.Contains(errb.String(), `"msg":"agent.running"`) })
	a2.Process.Signal(syscall.SIGINT)
	a2.Wait()
}

// TestDemoWaitsForEnter: at a terminal the story waits for Enter between
// its steps, so a person can try what a step shows (before: it moved on
// every 3 s).
func TestDemoWaitsForEnter(t *testing.T) {
	master, slave := openPTY(t)
	out := &ptyOutput{}
	go out.read(master)
	demo := exec.Command(svcctlBin, "demo")
	demo.Stdin, demo.Stdout, demo.Stderr = slave, slave, slave
	if err := demo.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		demo.Process.Signal(syscall.SIGTERM)
		demo.Wait()
	})
	testutil.WaitForSaying(t, 60*time.Second, "the first step's end", func() bool {
		return strings.Contains(out.String(), "[Enter: the next step]")
	}, out.String)
	time.Sleep(4 * time.Second) // longer than the 3 s the story used to wait on its own
	if strings.Contains(out.String(), "2/5") {
		t.Fatal("the story went on without Enter")
	}
	master.Write([]byte("\n"))
	testutil.WaitForSaying(t, 10*time.Second, "the second step", func() bool { return strings.Contains(out.String(), "2/5") }, out.String)
}
