package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"svcctl/internal/testutil"
	"svcctl/notify"
)

// The agent runs `svc-ctl verify` once after it started and tells people of
// every check that FAILs with one agent event (issue 13, "verify FAIL at
// start"): here a service that exits at once is given up at its first
// start, and the event names the check that fails for it. The freshness
// checks of the running agent itself never appear.
func TestAgentTellsOfVerifyFailuresAtStart(t *testing.T) {
	var mu sync.Mutex
	var agentEvents []notify.Event
	hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		var e notify.Event
		if json.Unmarshal(b, &e) == nil && e.Kind == notify.KindAgent {
			mu.Lock()
			agentEvents = append(agentEvents, e)
			mu.Unlock()
		}
	}))
	defer hook.Close()
	addr := testutil.FreeAddr(t)
	cfg, _ := writeConfig(t, "", fmt.Sprintf(`
[[service]]
name = "broken"
command = [%q, "--exit-now", "3"]
interval = "1h"
start_timeout = "2s"
  [service.health]
  http = "http://%s/health"
  timeout = "1s"
  confirm = "0s"
  [service.restart]
  give_up_after = 1

[[notify]]
name = "hook"
kind = "webhook"
url = %q
`, testsvcBin, addr, hook.URL))
	cmd := exec.Command(svcctlBin, "agent", "--config", cfg, "--max-stagger", "100ms", "--verify-after", "2s")
	var errb strings.Builder
	cmd.Stderr = &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			cmd.Process.Kill()
			cmd.Wait()
		}
	})
	var ev notify.Event
	testutil.WaitFor(t, 30*time.Second, "the agent event of verify at start", func() bool {
		mu.Lock()
		defer mu.Unlock()
		for _, e := range agentEvents {
			if strings.Contains(e.Message, "verify at the agent's start") {
				ev = e
				return true
			}
		}
		return false
	})
	if !strings.Contains(ev.Message, "no given-up service") || !strings.Contains(ev.Detail, "broken gave up after 1 failed start") {
		t.Errorf("the event does not name the given-up service:\nmessage %s\ndetail %s", ev.Message, ev.Detail)
	}
	for _, own := range []string{"heartbeat fresh", "watchdog.last.json fresh", "cycled"} {
		if strings.Contains(ev.Message, own) {
			t.Errorf("the event names the running agent's own freshness check %q: %s", own, ev.Message)
		}
	}
}

func TestAgentVerifyAfterNegativeIsAUsageError(t *testing.T) {
	cfg, _ := writeConfig(t, "", "")
	r := svcctl(t, "agent", "--config", cfg, "--verify-after", "-1s")
	if r.code != 2 || !strings.Contains(r.stderr, "--verify-after") {
		t.Fatalf("agent --verify-after -1s: %+v", r)
	}
}
