package proc

import (
	"context"
	"strings"
	"testing"
	"time"

	"svcctl/internal/testkit"
)

// stop_signal = "SIGBREAK": the service, spawned with a console of its own
// in a group of its own, gets CTRL_BREAK through the helper and ends
// cleanly (exit 0, not the terminated code 1), before any termination.
func TestCtrlBreakEndsConsoleService(t *testing.T) {
	s := helperSpec(t, "interrupt")
	s.Console, s.Name = true, "web"
	c := spawnT(t, s)
	if !c.Console {
		t.Fatal("the instance does not record its console")
	}
	waitLog(t, s.LogPath, "waiting for an interrupt")
	res, err := StopWith(context.Background(), c.Instance, StopOptions{Timeout: 10 * time.Second, Signal: "SIGBREAK"})
	if err != nil || len(res.Members) == 0 || res.Members[0].Ended != "SIGBREAK" {
		// The helper's own words say why (the console calls it makes).
		t.Fatalf("StopWith(SIGBREAK) = %s %+v, %v; the helper again: %v", res, res.Members, err, ctrlBreakHelper(c.PID))
	}
	<-c.Done
	if c.ExitCode() != 0 || !strings.Contains(waitLog(t, s.LogPath, "got an interrupt"), "shutting down cleanly") {
		t.Fatalf("the service %s; want a clean exit on CTRL_BREAK", c.Exit())
	}
}

// The sequence, at the seam where the console calls are the OS's: CTRL_BREAK
// once to the leader's group, then the job terminated at the timeout for a
// service that does not end on it; an instance without a console of its
// own gets no CTRL_BREAK (it would reach nobody) and is terminated.
func TestCtrlBreakThenJobAtTimeout(t *testing.T) {
	var sent []int32
	testkit.Replace(t, &ctrlBreakVia, func(group int32) error { sent = append(sent, group); return nil })
	s := helperSpec(t, "group", "ignore-term")
	s.Console, s.Name = true, "web"
	c := spawnT(t, s)
	child := childPID(t, waitLog(t, s.LogPath, "child="))
	settledWin(t, c.Instance, child)
	start := time.Now()
	res, err := StopWith(context.Background(), c.Instance, StopOptions{Timeout: 300 * time.Millisecond, Signal: "SIGBREAK"})
	if err != nil || len(sent) != 1 || sent[0] != c.PID {
		t.Fatalf("StopWith = %s, %v; CTRL_BREAK sent to %v, want once to group %d", res, err, sent, c.PID)
	}
	if time.Since(start) < 300*time.Millisecond || Alive(child) || Alive(c.PID) {
		t.Fatalf("the tree was not ended at the timeout: %s", res)
	}

	sent = nil
	s2 := helperSpec(t, "ignore-term")
	c2 := spawnT(t, s2) // no console of its own
	waitLog(t, s2.LogPath, "ignoring SIGTERM")
	res, err = StopWith(context.Background(), c2.Instance, StopOptions{Timeout: 300 * time.Millisecond, Signal: "SIGBREAK"})
	if err != nil || len(sent) != 0 || Alive(c2.PID) {
		t.Fatalf("StopWith(no console) = %s, %v, sent %v: want terminated, no CTRL_BREAK", res, err, sent)
	}
}

func settledWin(t *testing.T, inst Instance, child int32) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		if tr, err := Members(inst); err == nil && tr.Has(child) {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("child %d never joined the tree", child)
}
