package watchdog

import (
	"testing"
	"time"

	"svcctl/runtrace"
	"svcctl/state"
)

// The pure rules of the cycle, each as a table: what the backoff is after n
// failed starts, which deaths are kills from outside (not a crash loop),
// and which cycles must reach the disk before they are reported. A change
// of any rule fails a row here, named.

func TestBackoffFor(t *testing.T) {
	const s, m = time.Second, time.Minute
	for _, c := range []struct {
		failures     int
		initial, max time.Duration
		want         time.Duration
	}{
		{0, 10 * s, 10 * m, 0},                         // no failure, no backoff
		{-1, 10 * s, 10 * m, 0},                        //
		{1, 10 * s, 10 * m, 10 * s},                    // backoff_initial after the first failure
		{2, 10 * s, 10 * m, 20 * s},                    // doubled for each further one
		{3, 10 * s, 10 * m, 40 * s},                    //
		{6, 10 * s, 10 * m, 320 * s},                   //
		{7, 10 * s, 10 * m, 10 * m},                    // 640 s: capped at backoff_max
		{8, 10 * s, 10 * m, 10 * m},                    //
		{200, 10 * s, 10 * m, 10 * m},                  // no overflow past the cap
		{2, 7 * m, 10 * m, 10 * m},                     // 14 m: capped
		{1, 20 * m, 10 * m, 10 * m},                    // an initial above the max is capped too
		{3, 10 * s, 40 * s, 40 * s},                    // exactly the max
		{1, 0, 10 * m, 0},                              // backoff_initial 0: none
		{2, time.Millisecond, s, 2 * time.Millisecond}, //
	} {
		if got := backoffFor(c.failures, c.initial, c.max); got != c.want {
			t.Errorf("backoffFor(%d, %s, %s) = %s, want %s", c.failures, c.initial, c.max, got, c.want)
		}
	}
}

// killedFromOutside: a signal someone sends to stop a process (the OOM
// killer's SIGKILL too) is not the service failing; an exit code or a
// signal of its own making (SIGSEGV, SIGABRT) is. The words after
// "exited: " are proc.DescribeExit's (TestDescribeExitWordsOfKills holds
// them to it) with the cycle's "exited " prefix cut.
func TestKilledFromOutside(t *testing.T) {
	for _, c := range []struct {
		cause string
		want  bool
	}{
		{CauseExited + ": killed by SIGKILL", true},
		{CauseExited + ": killed by SIGTERM", true},
		{CauseExited + ": killed by SIGINT", true},
		{CauseExited + ": killed by SIGHUP", true},
		{CauseExited + ": killed by SIGKILL; then every process of its tree ended", true},
		{CauseExited + ": killed by SIGTERM (core dumped)", true},
		{CauseExited + ": killed by SIGSEGV (core dumped)", false},
		{CauseExited + ": killed by SIGABRT", false},
		{CauseExited + ": killed by SIGQUIT", false},
		{CauseExited + ": killed by SIGBUS", false},
		{CauseExited + ": killed by SIGPIPE", false},
		{CauseExited + ": with code 0", false},
		{CauseExited + ": with code 1", false},
		{CauseExited + ": with code 137", false}, // a shell's report of a kill is the shell's own exit
		{CauseExited + ": with code 143", false},
		{CauseExited + ": every process of its tree exited", false},
		{CauseExited, false},
		{CauseUnhealthy + ": http http://127.0.0.1:1/health: killed by SIGKILL", false}, // words of a probe, not an exit
		{CauseResourceLimit + ": memory 812 MiB > 500 MiB for 5m", false},
		{CauseManual, false},
		{CauseWake + ": tcp 127.0.0.1:1: connection refused", false},
		{"", false},
	} {
		if got := killedFromOutside(c.cause); got != c.want {
			t.Errorf("killedFromOutside(%q) = %v, want %v", c.cause, got, c.want)
		}
	}
}

// mustSync: only a healthy service found healthy again, already-running, may
// skip the fsyncs of state.json and watchdog.last.json (and have its row
// written lazily); every other cycle reaches the disk.
func TestMustSync(t *testing.T) {
	ok, skipped, failed := runtrace.OutcomeOK, runtrace.OutcomeSkipped, runtrace.OutcomeFailed
	for _, c := range []struct {
		outcome    runtrace.Outcome
		reason     runtrace.Reason
		prev, next string
		want       bool
	}{
		{ok, runtrace.ReasonAlreadyRunning, state.Healthy, state.Healthy, false}, // the one lazy case
		{ok, runtrace.ReasonAlreadyRunning, state.Unknown, state.Healthy, true},  // first look of a new agent
		{ok, runtrace.ReasonAlreadyRunning, state.Starting, state.Healthy, true},
		{ok, runtrace.ReasonAlreadyRunning, state.Backoff, state.Healthy, true},
		{ok, runtrace.ReasonAlreadyRunning, state.GivenUp, state.Healthy, true}, // given up, healthy by itself
		{ok, runtrace.ReasonAlreadyRunning, state.Healthy, state.Unhealthy, true},
		{ok, runtrace.ReasonStarted, state.Healthy, state.Healthy, true},
		{ok, runtrace.ReasonStarted, state.Unhealthy, state.Healthy, true},
		{ok, runtrace.ReasonRestarted, state.Healthy, state.Healthy, true},
		{skipped, runtrace.ReasonPaused, state.Healthy, state.Healthy, true},
		{skipped, runtrace.ReasonBackoff, state.Backoff, state.Backoff, true},
		{skipped, runtrace.ReasonLockHeld, state.Healthy, state.Healthy, true},
		{skipped, runtrace.ReasonGivenUp, state.GivenUp, state.GivenUp, true},
		{failed, runtrace.ReasonStartFailed, state.Healthy, state.Backoff, true},
		{failed, runtrace.ReasonDependencyFailed, state.Healthy, state.Healthy, true},
	} {
		cy := &cycle{prevState: c.prev, st: state.Service{State: c.next}}
		cy.set(c.outcome, c.reason, "")
		if got := cy.mustSync(); got != c.want {
			t.Errorf("mustSync(%s/%s, %s -> %s) = %v, want %v", c.outcome, c.reason, c.prev, c.next, got, c.want)
		}
	}
}
