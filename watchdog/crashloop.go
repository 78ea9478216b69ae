package watchdog

import (
	"fmt"
	"strings"
	"time"

	"svcctl/config"
	"svcctl/runtrace"
	"svcctl/state"
)

// A crash loop is a service that answers its health check after each start
// and goes down again soon after: every restart "succeeds", so without a
// count of its own neither backoff nor give_up_after would ever engage, and
// the watchdog would restart it twice a second forever, paging and
// rotating the first crash's output away. The watchdog keeps
// its own starts of the service within [service.restart] loop_window; once
// there are loop_restarts of them, the next time the service is found down
// is a failed start: evidence and the stop as always, nothing spawned,
// backoff, and given-up after give_up_after. A failed start is forgotten
// only once an instance has stayed up a whole loop_window (stable).

// CrashLoop is the detail of a start refused for a crash loop.
type CrashLoop struct {
	Starts       int       `json:"starts"`        // the watchdog's starts within the window, this one not counted
	Window       string    `json:"window"`        // loop_window
	FirstStart   time.Time `json:"first_start"`   // the oldest of them
	LastStart    time.Time `json:"last_start"`    // the start of the instance found down now
	UpFor        string    `json:"up_for"`        // how long that instance was up before this cycle
	LoopRestarts int       `json:"loop_restarts"` // the limit
}

// recentStarts keeps the starts within window before now, oldest first.
func recentStarts(starts []time.Time, now time.Time, window time.Duration) []time.Time {
	out := starts[:0:0]
	for _, t := range starts {
		if now.Sub(t) < window && !t.After(now) {
			out = append(out, t)
		}
	}
	return out
}

// countStart books a start that came up healthy. The watchdog's own starts
// count toward a crash loop; a person's start or restart begins the count
// anew (they asked for this instance, and for a fresh try).
func (c *cycle) countStart(now time.Time) {
	r := c.svc.Restart
	if c.req.Manual || r.LoopRestarts <= 0 {
		c.st.Failures = 0
		c.st.RecentStarts = nil
		return
	}
	c.st.RecentStarts = append(recentStarts(c.st.RecentStarts, now, r.LoopWindow), now)
}

// stable reports whether the service's current instance has stayed up long
// enough to forget its failed starts: a whole loop_window since the last
// start (or no crash-loop limit at all, as before it existed).
func (c *cycle) stable(now time.Time) bool {
	r := c.svc.Restart
	if r.LoopRestarts <= 0 || c.st.LastRestart.IsZero() || now.Sub(c.st.LastRestart) >= r.LoopWindow {
		c.st.RecentStarts = recentStarts(c.st.RecentStarts, now, r.LoopWindow)
		return true
	}
	return false
}

// crashLoop ends the restart as a failed start when the instance found down
// died by itself soon after the watchdog started it, and either the
// watchdog has already started the service loop_restarts times within
// loop_window, or the service has failed starts not yet forgotten (the try
// after a backoff or a given-up wait that dies again is that try's failure,
// not the first of a new burst). It judges only an instance the watchdog saw
// healthy after its start (not a service a person stopped, paused or
// resumed, nor one given up), and only a death of its own: a kill from
// outside (SIGKILL, SIGTERM, SIGINT, SIGHUP: `svc-ctl drill`, a person's
// kill -9) is not the service failing, and its start is not counted.
func (c *cycle) crashLoop(now time.Time) bool {
	r := c.svc.Restart
	if c.req.Manual || r.LoopRestarts <= 0 || c.prevState != state.Healthy {
		return false
	}
	starts := recentStarts(c.st.RecentStarts, now, r.LoopWindow)
	if killedFromOutside(c.res.Detail.Cause) {
		if len(starts) > 0 {
			starts = starts[:len(starts)-1] // the killed instance's start
		}
		c.st.RecentStarts = starts
		return false
	}
	c.st.RecentStarts = starts
	if len(starts) == 0 {
		return false
	}
	if len(starts) < r.LoopRestarts && c.st.Failures == 0 {
		return false
	}
	last := starts[len(starts)-1]
	cl := &CrashLoop{Starts: len(starts), Window: config.FormatDuration(r.LoopWindow), FirstStart: starts[0],
		LastStart: last, UpFor: now.Sub(last).Round(time.Millisecond).String(), LoopRestarts: r.LoopRestarts}
	c.res.Detail.CrashLoop = cl
	c.res.Detail.LogTail = c.tail(5)
	cause := c.res.Detail.Cause
	if cause == "" {
		cause = "down"
	}
	why := fmt.Sprintf("the watchdog started it %d times in %s (loop_restarts %d, loop_window %s)",
		cl.Starts, now.Sub(starts[0]).Round(time.Second), r.LoopRestarts, cl.Window)
	if len(starts) < r.LoopRestarts {
		why = fmt.Sprintf("it has %s not yet forgotten (an instance must stay up loop_window %s)",
			plural(c.st.Failures, "failed start", "failed starts"), cl.Window)
	}
	msg := fmt.Sprintf("start-failed: crash loop: down again %s after its last start (%s); %s: counted as a failed start, nothing spawned",
		cl.UpFor, cause, why)
	c.log.Warn("service.crash_loop", "starts", cl.Starts, "window", cl.Window, "up_for", cl.UpFor)
	c.startFailed(runtrace.ReasonStartFailed, msg)
	return true
}

// killedFromOutside reports whether the cause says the instance was killed
// by a signal someone sends to stop a process, rather than dying of its own
// (an exit code, SIGSEGV, SIGABRT...). The OOM killer's SIGKILL is counted
// as outside too: a service killed for its memory shortly after each start
// is restarted each time (limits and the kernel log say why).
func killedFromOutside(cause string) bool {
	how, ok := strings.CutPrefix(cause, CauseExited+": ")
	if !ok {
		return false
	}
	for _, sig := range []string{"SIGKILL", "SIGTERM", "SIGINT", "SIGHUP"} {
		if strings.HasPrefix(how, "killed by "+sig) {
			return true
		}
	}
	return false
}

// backoffFor is backoff_initial doubled for every further consecutive
// failure, capped at backoff_max.
func backoffFor(failures int, initial, max time.Duration) time.Duration {
	if failures <= 0 || initial <= 0 {
		return 0
	}
	d := initial
	for i := 1; i < failures; i++ {
		d *= 2
		if d >= max || d <= 0 {
			return max
		}
	}
	if d > max {
		return max
	}
	return d
}
