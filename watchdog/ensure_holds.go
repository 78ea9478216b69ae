package watchdog

import (
	"fmt"
	"time"

	"svcctl/runtrace"
	"svcctl/state"
)

// held applies the preconditions that make the watchdog hold off: a pause
// (which may have expired by itself) and the backoff after a failed start.
func (c *cycle) held() bool {
	now := c.s.now()
	path := c.s.Paths.Paused(c.svc.Name)
	p, err := state.ReadPause(path)
	if err != nil {
		c.log.Warn("pause.unreadable", "err", err)
	}
	if p != nil && !p.Active(now) {
		// --for expired: the pause ends by itself, and the cycle goes on.
		if err := state.RemovePause(path); err != nil {
			c.log.Warn("pause.remove_failed", "err", err)
		}
		c.log.Info("pause.expired", "reason", p.Reason)
		p = nil
	}
	if p != nil {
		c.res.Detail.Pause = p
		c.st.MoveTo(state.Paused, "paused: "+p.Reason, now)
		c.set(runtrace.OutcomeSkipped, runtrace.ReasonPaused, pauseMessage(p))
		return true
	}
	if c.st.State == state.Paused {
		c.st.MoveTo(state.Unknown, "pause ended", now)
	}
	if now.Before(c.st.BackoffUntil) {
		until := c.st.BackoffUntil
		c.res.Detail.BackoffUntil = &until
		c.set(runtrace.OutcomeSkipped, runtrace.ReasonBackoff,
			fmt.Sprintf("in backoff until %s after %d failed start(s)", until.Format(time.RFC3339), c.st.Failures))
		return true
	}
	return false
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
	if c.st.State == state.Paused || c.st.State == state.Backoff {
		c.st.MoveTo(state.Unknown, "manual start", c.s.now())
	}
}
