package agent

import (
	"os"
	"testing"
	"time"

	"svcctl/internal/testutil"
	"svcctl/runtrace"
	"svcctl/state"
)

// TestExpiredJobPauseRemoved: a job paused --for a while runs
// again once the pause has ended, and its sentinel is removed (as a
// service's is), so status and verify no longer show a pause.
func TestExpiredJobPauseRemoved(t *testing.T) {
	e := jobEnv(t, quickJob("tick", "@every 1s"))
	p := state.PathsOf(e.Cfg)
	if err := os.MkdirAll(p.JobDir("tick"), 0o700); err != nil {
		t.Fatal(err)
	}
	until := time.Now().Add(1500 * time.Millisecond)
	if err := state.WritePause(p.JobPaused("tick"), state.Pause{At: time.Now(), Until: &until, Reason: "test"}); err != nil {
		t.Fatal(err)
	}
	startAgent(t, e, Options{})
	testutil.WaitFor(t, 15*time.Second, "a run after the pause", func() bool {
		for _, r := range jobRuns(e, "tick") {
			if r.Outcome == runtrace.OutcomeOK {
				return true
			}
		}
		return false
	})
	if _, err := os.Stat(p.JobPaused("tick")); !os.IsNotExist(err) {
		t.Fatalf("the expired pause sentinel is still there: %v", err)
	}
}
