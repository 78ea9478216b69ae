package report

import (
	"context"
	"runtime"
	"testing"
	"time"

	"svcctl/internal/testutil"
	"svcctl/runtrace"
)

// TestDrillTwiceMatchesItsOwnRow: two drills back to back each
// report the agent's restore that followed their own kill (a distinct row
// begun after it, never the first drill's), a duration that is not
// negative, and the snapshot that says how the instance ended: killed by
// SIGKILL.
func TestDrillTwiceMatchesItsOwnRow(t *testing.T) {
	e := newEnv(t, "1h")
	startAgent(t, e)
	// Started: the agent's start cycle has ended (its row says started), not
	// only spawned (a kill before the start's verdict is a failed start).
	testutil.WaitFor(t, 20*time.Second, "web started by the agent (its start row written, and it answers)", func() bool {
		rs, _ := e.store.Runs(context.Background(), runtrace.Filter{JobID: runtrace.WatchdogID("web"), Reason: runtrace.ReasonStarted, Limit: 1})
		return len(rs) == 1 && testutil.Healthy(e.addr)
	})
	var seen []int64
	for i := range 2 {
		rep, err := Drill(context.Background(), e.cfg, "web", 20*time.Second)
		if err != nil || !rep.Restored || rep.Row == nil {
			t.Fatalf("drill %d: %+v, %v", i+1, rep, err)
		}
		if rep.TookMS < 0 || rep.Row.StartedAt.Before(rep.KilledAt.Truncate(time.Millisecond)) {
			t.Fatalf("drill %d: took %d ms, row #%d started %s, killed at %s", i+1, rep.TookMS, rep.Row.ID, rep.Row.StartedAt, rep.KilledAt)
		}
		for _, id := range seen {
			if rep.Row.ID == id {
				t.Fatalf("drill %d reported row #%d, an earlier drill's", i+1, id)
			}
		}
		seen = append(seen, rep.Row.ID)
		want := "exited: killed by SIGKILL"
		if runtime.GOOS == "windows" {
			want = "exited: with code 1" // TerminateProcess's exit code: Windows has no signal to name
		}
		if rep.Snapshot == nil || rep.Snapshot.Reason != want {
			t.Fatalf("drill %d: snapshot %+v, want reason %q", i+1, rep.Snapshot, want)
		}
	}
}
