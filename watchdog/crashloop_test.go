package watchdog

import (
	"context"
	"strings"
	"testing"
	"time"

	"svcctl/internal/testutil"
	"svcctl/runtrace"
	"svcctl/state"
)

// A service that answers its health check after each start and crashes
// 300 ms later: every restart "succeeds", so before
// loop_restarts the watchdog restarted it at full speed forever and called
// it healthy. Now the watchdog's own starts within loop_window are counted:
// past loop_restarts, finding it down again is a failed start (evidence
// kept, nothing spawned, backoff), the start after the backoff does not
// forget the failures, and give_up_after ends the loop as given-up. A
// person's start begins the count anew.
func TestCrashLoopBacksOffAndGivesUp(t *testing.T) {
	addr := testutil.FreeAddr(t)
	e := newEnv(t, testutil.Service{Name: "flap", Addr: addr, Args: []string{"--crash-after", "300ms"},
		GiveUpAfter: 2, Backoff: "1s", LoopRestarts: "3", LoopWindow: "1m"})
	sched := Request{Trigger: runtrace.TriggerSchedule}
	down := func() {
		t.Helper()
		testutil.WaitFor(t, 10*time.Second, "the instance to crash", func() bool { return !testutil.Healthy(addr) })
	}
	loadState := func() state.Service {
		t.Helper()
		st, err := state.LoadService(e.sup.Paths.StateFile("flap"))
		if err != nil {
			t.Fatal(err)
		}
		return st
	}

	for i := 1; i <= 3; i++ {
		wantResult(t, e.ensure("flap", sched), runtrace.OutcomeOK, runtrace.ReasonStarted)
		down()
	}
	// The fourth time it is found down: a crash loop.
	pidBefore := e.Pid("flap")
	r := e.ensure("flap", sched)
	wantResult(t, r, runtrace.OutcomeFailed, runtrace.ReasonStartFailed)
	if !strings.Contains(r.Message, "crash loop") || r.Detail.CrashLoop == nil || r.Detail.CrashLoop.Starts != 3 {
		t.Fatalf("the crash-loop verdict does not say so: %q, detail %+v", r.Message, r.Detail.CrashLoop)
	}
	if r.Detail.Snapshot != "written" {
		t.Errorf("no evidence kept for the crash: snapshot %q", r.Detail.Snapshot)
	}
	if e.Pid("flap") != pidBefore || testutil.Healthy(addr) {
		t.Fatal("a new instance was spawned in a crash loop")
	}
	if st := loadState(); st.State != state.Backoff || st.Failures != 1 {
		t.Fatalf("state %s with %d failures, want backoff with 1", st.State, st.Failures)
	}
	wantResult(t, e.ensure("flap", sched), runtrace.OutcomeSkipped, runtrace.ReasonBackoff)

	// The backoff over, the next cycle tries a start (that is what the
	// wait was for); the start does not forget the failure.
	testutil.WaitFor(t, 10*time.Second, "the backoff to end", func() bool { return time.Now().After(loadState().BackoffUntil) })
	wantResult(t, e.ensure("flap", sched), runtrace.OutcomeOK, runtrace.ReasonStarted)
	if st := loadState(); st.Failures != 1 {
		t.Fatalf("a start within the crash loop reset the failures to %d", st.Failures)
	}
	down()
	r = e.ensure("flap", sched)
	wantResult(t, r, runtrace.OutcomeFailed, runtrace.ReasonStartFailed)
	if st := loadState(); st.State != state.GivenUp || st.Failures != 2 || !strings.Contains(r.Message, "given up after 2") {
		t.Fatalf("after give_up_after crashes: state %s, %d failures, message %q; want given-up", st.State, st.Failures, r.Message)
	}

	// While given up, each cycle says why it was given up (the crash loop),
	// not only what the probe of a service nobody runs says.
	if r := e.ensure("flap", sched); r.Reason != runtrace.ReasonGivenUp || !strings.Contains(r.Message, "crash loop") {
		t.Fatalf("a given-up cycle: %s/%s %q; want it to name the crash loop", r.Outcome, r.Reason, r.Message)
	}

	// A person's start: a fresh try, a fresh count.
	wantResult(t, e.ensure("flap", Request{Trigger: runtrace.TriggerManual, Manual: true}), runtrace.OutcomeOK, runtrace.ReasonStarted)
	if st := loadState(); st.Failures != 0 || len(st.RecentStarts) != 0 {
		t.Fatalf("a person's start kept %d failures and %d counted starts", st.Failures, len(st.RecentStarts))
	}
	down()
	wantResult(t, e.ensure("flap", sched), runtrace.OutcomeOK, runtrace.ReasonStarted)
}

// With loop_restarts = 0 the watchdog restarts a crashing service every
// time, as before the limit existed, and a healthy start forgets failures.
func TestCrashLoopLimitOff(t *testing.T) {
	addr := testutil.FreeAddr(t)
	e := newEnv(t, testutil.Service{Name: "flap", Addr: addr, Args: []string{"--crash-after", "200ms"}, LoopRestarts: "0"})
	for i := 0; i < 5; i++ {
		wantResult(t, e.ensure("flap", Request{Trigger: runtrace.TriggerSchedule}), runtrace.OutcomeOK, runtrace.ReasonStarted)
		testutil.WaitFor(t, 10*time.Second, "the instance to crash", func() bool { return !testutil.Healthy(addr) })
	}
}

func TestRecentStartsKeepsTheWindow(t *testing.T) {
	now := time.Date(2026, 12, 1, 8, 0, 0, 0, time.UTC)
	starts := []time.Time{now.Add(-3 * time.Minute), now.Add(-2 * time.Minute), now.Add(-time.Minute), now.Add(-time.Second), now.Add(time.Hour)}
	got := recentStarts(starts, now, 2*time.Minute)
	if len(got) != 2 || !got[0].Equal(now.Add(-time.Minute)) || !got[1].Equal(now.Add(-time.Second)) {
		t.Fatalf("recentStarts = %v: want the two within 2m before now (not the one exactly 2m old, nor one in the future)", got)
	}
	if len(starts) != 5 {
		t.Fatal("recentStarts changed its input")
	}
}

// A crash-looping service given up and retried by retry_given_up gets one
// try, not a new burst of loop_restarts starts: the try that dies again soon
// after its start is that try's failure.
func TestCrashLoopRetryIsOneTry(t *testing.T) {
	addr := testutil.FreeAddr(t)
	e := newEnv(t, testutil.Service{Name: "flap", Addr: addr, Args: []string{"--crash-after", "300ms"},
		GiveUpAfter: 1, Backoff: "1s", RetryGivenUp: "1s", LoopRestarts: "2", LoopWindow: "1m"})
	sched := Request{Trigger: runtrace.TriggerSchedule}
	down := func() {
		t.Helper()
		testutil.WaitFor(t, 10*time.Second, "the instance to crash", func() bool { return !testutil.Healthy(addr) })
	}
	for range 2 {
		wantResult(t, e.ensure("flap", sched), runtrace.OutcomeOK, runtrace.ReasonStarted)
		down()
	}
	r := e.ensure("flap", sched)
	if r.Outcome != runtrace.OutcomeFailed || !strings.Contains(r.Message, "given up after 1") {
		t.Fatalf("the crash loop with give_up_after 1: %s/%s %q, want given up", r.Outcome, r.Reason, r.Message)
	}
	time.Sleep(1100 * time.Millisecond) // retry_given_up: the next try is due after 1 s
	wantResult(t, e.ensure("flap", sched), runtrace.OutcomeOK, runtrace.ReasonStarted)
	down()
	r = e.ensure("flap", sched)
	if r.Outcome != runtrace.OutcomeFailed || r.Detail.CrashLoop == nil || !strings.Contains(r.Message, "given up after 2") {
		t.Fatalf("the retry's instance died again: %s/%s %q; want the try's failure, not a new start", r.Outcome, r.Reason, r.Message)
	}
}

// Stopped by a person and resumed, a service whose count of starts is full
// is started, not judged a crash loop: it was down because a person stopped
// it. Its deaths here are its own (/control/crash: exit 3).
func TestCrashLoopNotAfterStopAndResume(t *testing.T) {
	addr := testutil.FreeAddr(t)
	e := newEnv(t, testutil.Service{Name: "web", Addr: addr, LoopRestarts: "3", LoopWindow: "1m"})
	sched := Request{Trigger: runtrace.TriggerSchedule}
	for range 3 {
		wantResult(t, e.ensure("web", sched), runtrace.OutcomeOK, runtrace.ReasonStarted)
		testutil.Get("http://" + addr + "/control/crash")
		testutil.WaitFor(t, 10*time.Second, "the crash", func() bool { return !testutil.Healthy(addr) })
	}
	wantResult(t, e.ensure("web", sched), runtrace.OutcomeFailed, runtrace.ReasonStartFailed) // the fourth: a loop
	if _, err := e.sup.Stop(context.Background(), "web"); err != nil {
		t.Fatal(err)
	}
	if _, err := e.sup.Resume(context.Background(), "web"); err != nil {
		t.Fatal(err)
	}
	wantResult(t, e.ensure("web", sched), runtrace.OutcomeOK, runtrace.ReasonStarted)
	if st, _ := state.LoadService(e.sup.Paths.StateFile("web")); len(st.RecentStarts) != 1 || st.Failures != 0 {
		t.Fatalf("after resume and a start: %d counted starts, %d failures; want 1 and 0", len(st.RecentStarts), st.Failures)
	}
}
