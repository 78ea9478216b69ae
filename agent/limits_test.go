package agent

import (
	"context"
	"encoding/json"
	"regexp"
	"strings"
	"testing"
	"time"

	"svcctl/internal/testutil"
	"svcctl/proc"
	"svcctl/runtrace"
	"svcctl/state"
	"svcctl/watchdog"
)

// TestLimitRestartsGrowingTree: a service whose worker child
// grows past [service.limits] memory is restarted by the agent with cause
// resource-limit ("memory N MiB > 50 MiB for 1s"), though its health check
// passes and its interval is an hour: the agent samples the whole tree
// between cycles. The old tree, child included, is gone; the restart is
// counted for the resource-limit backoff.
func TestLimitRestartsGrowingTree(t *testing.T) {
	addr := testutil.FreeAddr(t)
	e := newEnv(t, testutil.Service{Name: "leaky", Addr: addr, Interval: "1h", Args: []string{"--grow-child", "120"},
		Backoff: "1h", ExtraTOML: "[service.limits]\nmemory = \"50MiB\"\nfor = \"1s\"\n"})
	startAgent(t, e, Options{})
	var first *runtrace.Run
	testutil.WaitFor(t, 20*time.Second, "the first start", func() bool {
		first = latestStarted(e, "leaky", time.Time{})
		return first != nil
	})
	old, err := proc.ReadInstance(state.PathsOf(e.Cfg).Pid("leaky"))
	if err != nil {
		t.Fatal(err)
	}
	before, _ := proc.Members(old)
	var r *runtrace.Run
	testutil.WaitFor(t, 30*time.Second, "a resource-limit restart", func() bool {
		r = latestStarted(e, "leaky", first.FinishedAt.Add(time.Millisecond))
		return r != nil
	})
	var d struct {
		Cause string `json:"cause"`
		Limit struct {
			RSS uint64 `json:"rss_bytes"`
		} `json:"limit"`
	}
	json.Unmarshal(r.Detail, &d)
	if !regexp.MustCompile(`^resource-limit: memory \d+ MiB > 50 MiB for 1s$`).MatchString(d.Cause) || d.Limit.RSS <= 50<<20 {
		t.Fatalf("cause %q, rss %d: want resource-limit: memory N MiB > 50 MiB for 1s", d.Cause, d.Limit.RSS)
	}
	if r.Trigger != runtrace.TriggerEvent {
		t.Errorf("trigger %s: want event (the agent's sampler, not the hourly cycle)", r.Trigger)
	}
	if before.Len() < 2 {
		t.Fatalf("the tree had %d processes: the test needs the growing child in it", before.Len())
	}
	for _, m := range before.Members {
		if ok, _ := proc.Match(m.Identity); ok {
			t.Errorf("pid %d of the old tree still runs", m.PID)
		}
	}
	st, _ := state.LoadService(state.PathsOf(e.Cfg).StateFile("leaky"))
	if st.LimitRestarts != 1 {
		t.Fatalf("limit restarts %d, want 1 (counted for backoff)", st.LimitRestarts)
	}
	// The new instance grows past the limit again; with backoff_initial 1h
	// its restart is held: the next cycle says so and leaves it running.
	testutil.WaitFor(t, 20*time.Second, "a held breach", func() bool {
		res := e.ensure("leaky", watchdog.Request{Trigger: runtrace.TriggerSchedule})
		return strings.Contains(res.Detail.LimitHeld, "waits for its backoff")
	})
	if n := countStarted(e, "leaky"); n != 2 {
		t.Fatalf("%d starts, want 2: a held breach must not restart", n)
	}
}

func countStarted(e *testEnv, name string) int {
	n, _ := e.Store.Count(context.Background(), runtrace.Filter{JobID: runtrace.WatchdogID(name), Reason: runtrace.ReasonStarted})
	return n
}
