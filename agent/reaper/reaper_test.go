package reaper

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"testing"
	"time"

	"svcctl/internal/testsvc"
	"svcctl/internal/testutil"
	"svcctl/proc"
)

var testsvcBin string

func TestMain(m *testing.M) { os.Exit(testsvc.RunTests(m, &testsvcBin)) }

// A job run whose agent is gone, and whose process its row names is still
// that instance, has its tree stopped by the reaper, and the row's why says
// so (the agent's TestNextAgentKillsOrphanedJobRun proves it end to end).
func TestOrphanedJobRunIsStopped(t *testing.T) {
	child, err := proc.Spawn(proc.SpawnSpec{Argv: []string{testsvcBin, "--exit-now", "0", "--sleep", "30s"}, Name: "orphan"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { proc.StopTree(t.Context(), child.Instance, time.Second) })
	detail, _ := json.Marshal(map[string]any{"process": child.Instance})
	r := &Reaper{Log: slog.New(slog.DiscardHandler)}
	why := map[string]any{"why": "its agent is gone"}
	r.stopOrphan("job:slow", detail, why)
	testutil.WaitFor(t, 10*time.Second, "the orphan gone", func() bool {
		select {
		case <-child.Done:
			return true
		default:
			return false
		}
	})
	want := fmt.Sprintf("killed the orphaned run (pid %d; ", child.PID)
	if w := fmt.Sprint(why["why"]); !strings.Contains(w, want) || why["orphan_stop"] == nil {
		t.Fatalf("why = %v; want it to say %q", why, want)
	}
}

// A service's row is not a job run: nothing is signalled.
func TestOrphanOfAServiceIsLeftAlone(t *testing.T) {
	why := map[string]any{}
	(&Reaper{Log: slog.New(slog.DiscardHandler)}).stopOrphan("watchdog:web", json.RawMessage(`{"process":{"pid":1}}`), why)
	if len(why) != 0 {
		t.Fatalf("why = %v; want nothing done for a service's row", why)
	}
}
