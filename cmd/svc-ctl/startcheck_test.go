package main

import (
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"svcctl/internal/testutil"
	"svcctl/notify"
	"svcctl/runtrace"
)

// The agent runs `svc-ctl verify` once after it started and tells people of
// every check that FAILs with one agent event (nobody runs verify until
// something is already lost): here a notification channel that has been
// failing for two days (its failure planted in the ledger). The running
// agent's own freshness checks, and the checks whose news has events of its
// own (a service given up at its first start here), are not in it.
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
	cfg, state := writeConfig(t, "", fmt.Sprintf(`
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
on = ["agent"]

[[notify]]
name = "pager"
kind = "webhook"
url = "http://127.0.0.1:9/hook"
on = ["job.failed"]
`, testsvcBin, addr, hook.URL))
	// The pager channel has been failing for two days.
	dbPath := filepath.Join(state, "svc-ctl.db")
	st, err := runtrace.Open(dbPath, runtrace.Options{Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	st.Close()
	db, err := sql.Open("sqlite", dbPath)
	if err != nil {
		t.Fatal(err)
	}
	since := time.Now().Add(-48 * time.Hour).UnixMilli()
	if _, err := db.Exec(`INSERT INTO notify_channels (channel, last_error, last_error_at, failing_since) VALUES ('pager', 'connection refused', ?, ?)`,
		since, since); err != nil {
		t.Fatal(err)
	}
	db.Close()

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
	if !strings.Contains(ev.Message, "channel pager") || !strings.Contains(ev.Detail, "failing since") {
		t.Errorf("the event does not name the failing channel:\nmessage %s\ndetail %s", ev.Message, ev.Detail)
	}
	for _, left := range []string{"heartbeat fresh", "watchdog.last.json fresh", "cycled", "no given-up service", "agent installed"} {
		if strings.Contains(ev.Message, left) {
			t.Errorf("the event names %q, which is left out at start: %s", left, ev.Message)
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
