package main

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"svcctl/internal/testutil"
)

// lineCollector gathers a process's output lines as they come.
type lineCollector struct {
	mu    sync.Mutex
	lines []string
}

func (c *lineCollector) read(r interface{ Read([]byte) (int, error) }) {
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		c.mu.Lock()
		c.lines = append(c.lines, sc.Text())
		c.mu.Unlock()
	}
}

func (c *lineCollector) has(sub string) bool { return c.count(sub) > 0 }

func (c *lineCollector) count(sub string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	for _, l := range c.lines {
		if strings.Contains(l, sub) {
			n++
		}
	}
	return n
}

func (c *lineCollector) String() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return strings.Join(c.lines, "\n")
}

// TestLogsFollowsARestart: `logs NAME -f` keeps printing across a restart:
// a note on stderr that the log moved to runtime.prev.log, then the new
// instance's output. Afterwards --prev is
// the old instance's log.
func TestLogsFollowsARestart(t *testing.T) {
	addr := testutil.FreeAddr(t)
	cfg, _ := writeConfig(t, "", webService("web", addr, "10m"))
	if r := svcctl(t, "start", "web", "--config", cfg); r.code != 0 {
		t.Fatalf("start: %+v", r)
	}
	cmd := exec.Command(svcctlBin, "logs", "web", "-f", "-n", "5", "--config", cfg)
	stdout, _ := cmd.StdoutPipe()
	stderr, _ := cmd.StderrPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	var out, notes lineCollector
	go out.read(stdout)
	go notes.read(stderr)
	testutil.WaitForSaying(t, 10*time.Second, "the running instance's lines", func() bool { return out.has("listening on " + addr) }, out.String)
	if r := svcctl(t, "restart", "web", "--config", cfg); r.code != 0 {
		t.Fatalf("restart: %+v", r)
	}
	testutil.WaitForSaying(t, 10*time.Second, "the new instance's lines", func() bool {
		return out.count("listening on "+addr) == 2 && notes.has("moved to runtime.prev.log")
	}, func() string { return out.String() + "\nstderr:\n" + notes.String() })
	r := svcctl(t, "logs", "web", "--prev", "--config", cfg)
	if r.code != 0 || strings.Count(r.stdout, "listening on "+addr) != 1 {
		t.Fatalf("logs --prev: %+v", r)
	}
}

// TestLogsNamesAndAgent: an unknown name is a usage error naming the known
// ones (agent among them); a log not written yet says why; agent.log piped
// is its JSON lines as they are; a job's log is its last run's output, and
// status NAME shows where each log is.
func TestLogsNamesAndAgent(t *testing.T) {
	addr := testutil.FreeAddr(t)
	job := fmt.Sprintf(`
[[job]]
name = "hello"
schedule = "@every 1s"
timezone = "UTC"
command = [%q, "--say", "hello from the job", "--exit-now", "0"]
`, testsvcBin)
	cfg, _ := writeConfig(t, "", webService("web", addr, "1h")+job)
	r := svcctl(t, "logs", "nosuch", "--config", cfg)
	if r.code != 2 || !strings.Contains(r.stderr, "no service or job named nosuch; known: web, hello, agent") {
		t.Fatalf("logs nosuch: %+v", r)
	}
	r = svcctl(t, "logs", "agent", "--config", cfg)
	if r.code != 1 || !strings.Contains(r.stderr, "the agent has not run with this state dir") {
		t.Fatalf("logs agent before any agent: %+v", r)
	}
	if r := svcctl(t, "logs", "web", "-f", "--prev", "--config", cfg); r.code != 2 {
		t.Fatalf("-f --prev: %+v", r)
	}
	startAgentProcess(t, cfg)
	testutil.WaitFor(t, 20*time.Second, "a run of the job", func() bool {
		return strings.HasPrefix(svcctl(t, "logs", "hello", "--config", cfg).stdout, "hello from the job\n")
	})
	r = svcctl(t, "logs", "agent", "-n", "3", "--config", cfg)
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	if r.code != 0 || len(lines) != 3 || !strings.HasPrefix(lines[0], `{"time":`) {
		t.Fatalf("logs agent piped: %+v", r)
	}
	r = svcctl(t, "status", "web", "--config", cfg)
	if !strings.Contains(r.stdout, "log:      ") || !strings.Contains(r.stdout, "runtime.log ('svc-ctl logs web [-f]')") {
		t.Fatalf("status web does not show the log: %s", r.stdout)
	}
	r = svcctl(t, "status", "hello", "--config", cfg)
	if !strings.Contains(r.stdout, "last.log (the last run's output: 'svc-ctl logs hello')") {
		t.Fatalf("status hello does not show the log: %s", r.stdout)
	}
}

// TestPrettyAgentLine: on a terminal agent.log reads as one line per event.
func TestPrettyAgentLine(t *testing.T) {
	got := prettyAgentLine(`{"time":"2026-11-29T01:30:00.5Z","level":"INFO","msg":"service.exited","pid":7,"service":"web","how":"killed by SIGKILL","n":3}`, true)
	want := `2026-11-29 01:30:00Z INFO  service.exited service=web how="killed by SIGKILL" n=3`
	if got != want {
		t.Fatalf("got  %q\nwant %q", got, want)
	}
	if got := prettyAgentLine("not json", false); got != "not json" {
		t.Fatalf("a line that is not JSON: %q", got)
	}
}

// A service whose last instance was stopped and not started again (a crash
// loop's stop, a given-up service) has no runtime.log but a
// runtime.prev.log: logs says where its output is, not that svc-ctl never
// started it.
func TestLogsPointsAtThePrevLogAfterAStop(t *testing.T) {
	cfg, state := writeConfig(t, "", webService("web", testutil.FreeAddr(t), "1h"))
	dir := filepath.Join(state, "services", "web")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "runtime.prev.log"), []byte("the last words\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	r := svcctl(t, "logs", "web", "--config", cfg)
	if r.code == 0 || !strings.Contains(r.stderr, "--prev") || strings.Contains(r.stderr, "has not started") {
		t.Fatalf("logs web with only a prev log: %+v", r)
	}
	if r := svcctl(t, "logs", "web", "--prev", "--config", cfg); r.code != 0 || !strings.Contains(r.stdout, "the last words") {
		t.Fatalf("logs web --prev: %+v", r)
	}
}

// TestLogsRedacts: `logs` prints a service's output with the page's rule
// set (its env values hidden), as the status page shows the same lines;
// --raw, for root or the agent's own user, prints them as written and says
// so. Failed before: logs printed the secret the page hid.
func TestLogsRedacts(t *testing.T) {
	addr := testutil.FreeAddr(t)
	const secret = "hunter2-secret-value"
	svc := strings.Replace(webService("web", addr, "10m", "--say", "connecting with token "+secret),
		"interval =", fmt.Sprintf("env = { API_TOKEN = %q }\ninterval =", secret), 1)
	cfg, _ := writeConfig(t, "", svc)
	if r := svcctl(t, "start", "web", "--config", cfg); r.code != 0 {
		t.Fatalf("start: %+v", r)
	}
	r := svcctl(t, "logs", "web", "--config", cfg)
	if r.code != 0 || strings.Contains(r.stdout, secret) || !strings.Contains(r.stdout, "connecting with token [redacted]") {
		t.Fatalf("logs: want the line redacted: %+v", r)
	}
	raw := svcctl(t, "logs", "web", "--raw", "--config", cfg)
	if raw.code != 0 || !strings.Contains(raw.stdout, "connecting with token "+secret) || !strings.Contains(raw.stderr, "--raw:") {
		t.Fatalf("logs --raw: want the line as written and a note: %+v", raw)
	}
}
