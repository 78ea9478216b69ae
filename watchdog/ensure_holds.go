package watchdog

import (
	"fmt"
	"svcctl/internal/words"
	"time"

	"svcctl/runtrace"
	"svcctl/state"
)

// currentPause returns the pause sentinel in force, nil when there is none.
// A pause whose --for has passed ends here by itself: its sentinel is
// removed, and the cycle goes on.
func (c *cycle) currentPause() *state.Pause {
	path := c.s.Paths.Paused(c.svc.Name)
	p, err := state.ReadPause(path)
	if err != nil {
		c.log.Warn("pause.unreadable", "err", err)
	}
	if p == nil || p.Active(c.s.now()) {
		return p
	}
	if err := state.RemovePause(path); err != nil {
		c.log.Warn("pause.remove_failed", "err", err)
	}
	c.log.Info("pause.expired", "reason", p.Reason)
	return nil
}

// hold is why the watchdog holds off a cycle.
type hold struct {
	reason runtrace.Reason
	msg    string
	pause  *state.Pause
	until  *time.Time // end of the backoff
}

// holdOff says what holds the watchdog off, given the pause in force: the
// pause, or the backoff after a failed start. Nil: nothing does. It only
// reads; skip acts on the answer.
func (c *cycle) holdOff(p *state.Pause) *hold {
	if p != nil {
		return &hold{reason: runtrace.ReasonPaused, msg: pauseMessage(p), pause: p}
	}
	if until := c.st.BackoffUntil; c.s.now().Before(until) {
		return &hold{reason: runtrace.ReasonBackoff, until: &until,
			msg: fmt.Sprintf("in backoff until %s after %s", until.Format(time.RFC3339), words.Count(c.st.Failures, "failed start", "failed starts"))}
	}
	return nil
}

// skip ends the cycle as skipped for the hold h.
func (c *cycle) skip(h *hold) {
	if h.pause != nil {
		c.res.Detail.Pause = h.pause
		c.st.MoveTo(h.pause.HeldState(), "paused: "+h.pause.Reason, c.s.now())
	}
	c.res.Detail.BackoffUntil = h.until
	c.set(runtrace.OutcomeSkipped, h.reason, h.msg)
}

func pauseMessage(p *state.Pause) string {
	msg := "paused"
	if p.Reason != "" {
		msg += ": " + p.Reason
	}
	if p.By != "" {
		msg += " (by " + p.By + ")"
	}
	if p.Until != nil {
		msg += " until " + p.Until.Format(time.RFC3339)
	}
	return msg
}

// clearHolds is what a manual start means: the person wants the service
// running, so a pause ends and backoff and given-up no longer hold.
func (c *cycle) clearHolds() {
	path := c.s.Paths.Paused(c.svc.Name)
	if p, _ := state.ReadPause(path); p != nil {
		if err := state.RemovePause(path); err != nil {
			c.log.Warn("pause.remove_failed", "err", err)
		} else {
			c.log.Info("pause.cleared", "by", "manual start", "reason", p.Reason)
		}
	}
	c.st.BackoffUntil = time.Time{}
	c.st.LimitRestarts = 0 // a person's start or restart: the resource-limit backoff starts over
	if state.Held(c.st.State) || c.st.State == state.Backoff {
		c.st.MoveTo(state.Unknown, "manual start", c.s.now())
	}
}
