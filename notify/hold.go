package notify

import (
	"context"

	"svcctl/config"
	"svcctl/runtrace"
)

// Which events one message carries: min_interval holds a subject's events
// back until the interval has passed since its last message, then the
// newest carries the rest (HeldBack); an escalation is never held.

// bySubject splits a batch into its subjects, in order of their first event.
func bySubject(ds []runtrace.Delivery) [][]runtrace.Delivery {
	var order []string
	groups := map[string][]runtrace.Delivery{}
	for _, d := range ds {
		if _, ok := groups[d.Subject]; !ok {
			order = append(order, d.Subject)
		}
		groups[d.Subject] = append(groups[d.Subject], d)
	}
	out := make([][]runtrace.Delivery, 0, len(order))
	for _, s := range order {
		out = append(out, groups[s])
	}
	return out
}

// deliverGroup sends one subject's due events. Without min_interval each is
// sent. With it, nothing is sent until min_interval has passed since the
// subject's last message; then the newest event is sent for all of them and
// says how many were held back. An escalation is never held: a service
// given up or a job's missed slot (each raised once per transition) goes
// out at once, for everything held back before it. On a healthchecks
// channel the carrier is the newest event that changes the check's state.
func (c *channelLoop) deliverGroup(ctx context.Context, group []runtrace.Delivery) {
	bg := context.WithoutCancel(ctx) // bookkeeping is written even while stopping
	// The agent's own events are never held: each is a problem of its own
	// (a crash found at start, the ledger, verify at start, a refused
	// reload) that a later one does not stand for, and they are rare
	// (a crash report folded under a later reload's would be lost).
	if c.conf.MinInterval <= 0 || group[0].Subject == runtrace.AgentID {
		for _, d := range group {
			c.send(ctx, d)
		}
		return
	}
	now := c.s.opts.Now()
	ci := len(group) - 1 // the carrier: the newest event
	if last := group[0].LastSent; !last.IsZero() && now.Before(last.Add(c.conf.MinInterval)) {
		ci = lastEscalation(group)
		if ci >= 0 {
			group, ci = c.withDeferred(ctx, group, ci)
		}
		if ci < 0 {
			if err := c.s.outbox.deferTo(bg, group, last.Add(c.conf.MinInterval)); err != nil {
				c.s.opts.Log.Warn("notify.defer_failed", "channel", c.conf.Name, "events", len(group), "err", err)
			}
			return
		}
	}
	if ci == len(group)-1 && c.conf.Kind == config.NotifyHealthchecks {
		// The newest event may be a /log ping (a restart that ended
		// healthy): the check's state is what the last success or fail of
		// the batch said, so that one carries the rest (a held
		// recovery replaced by a /log would leave the check down for good).
		ci = lastStateChange(group, ci)
	}
	carrier := group[ci]
	if len(group) > 1 {
		held := append(append([]runtrace.Delivery(nil), group[:ci]...), group[ci+1:]...)
		var err error
		if carrier, err = c.s.outbox.hold(bg, held, carrier, now); err != nil {
			c.s.opts.Log.Warn("notify.hold_failed", "channel", c.conf.Name, "err", err)
			return
		}
	}
	c.send(ctx, carrier)
}

// withDeferred adds to group the subject's deliveries that min_interval
// deferred earlier (not due yet, so not in the batch): the escalation at
// group[ci] carries them as held back. It returns the group and the
// carrier's index in it.
func (c *channelLoop) withDeferred(ctx context.Context, group []runtrace.Delivery, ci int) ([]runtrace.Delivery, int) {
	carrier := group[ci]
	more, err := c.s.store.ClaimSubject(ctx, c.conf.Name, carrier.Subject, c.s.opts.Owner, c.s.opts.Now(), c.lease())
	if err != nil {
		c.s.opts.Log.Warn("notify.claim_failed", "channel", c.conf.Name, "err", err)
		return group, ci
	}
	in := map[string]bool{}
	for _, d := range group {
		in[d.EventID] = true
	}
	for _, d := range more {
		if !in[d.EventID] {
			group = append(group, d)
		}
	}
	for i, d := range group {
		if d.EventID == carrier.EventID {
			return group, i
		}
	}
	return group, ci
}

// lastEscalation is the index of the group's newest event that min_interval
// must not hold (a service given up, a job's missed slot), or -1.
func lastEscalation(group []runtrace.Delivery) int {
	for i := len(group) - 1; i >= 0; i-- {
		if k := group[i].Kind; k == KindServiceGivenUp || k == KindJobMissing {
			return i
		}
	}
	return -1
}

// lastStateChange is the index of the newest event of the group whose
// healthchecks signal changes the check's state (success or fail), else def.
func lastStateChange(group []runtrace.Delivery, def int) int {
	for i := len(group) - 1; i >= 0; i-- {
		e, err := decodeEvent(group[i].Payload)
		if err == nil && SignalFor(&e) != SignalLog {
			return i
		}
	}
	return def
}
