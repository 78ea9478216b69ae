package notify

import (
	"context"
	"log/slog"
	"time"

	"svcctl/config"
	"svcctl/runtrace"
)

// A channel's loop: one per channel that sends one message per event
// (every kind but otlp, whose loop is otlp_export.go), so a receiver that
// hangs delays only its own channel. It claims what is due, lets hold.go
// decide what one message carries, makes the attempt, and records its
// outcome through the delivery state machine (deliveries.go).

type channelLoop struct {
	s    *Sender
	conf config.Notify
	ch   Channel
	err  error // the channel could not be opened: each delivery fails with it
	wake chan struct{}
	// exp is the loop of an otlp channel, which sends in batches (otlp_export.go).
	exp *otlpExporter
}

// run delivers until ctx ends. An idle loop only reads (NextDue), every
// Poll or when woken: a claim is a write transaction, taken only when
// something is due, so a channel with nothing to send costs no commits.
func (c *channelLoop) run(ctx context.Context) {
	for ctx.Err() == nil {
		wait := c.s.opts.Poll
		if next, ok, err := c.s.store.NextDue(ctx, c.conf.Name); err == nil && ok {
			switch {
			case next.After(c.s.opts.Now()):
				wait = min(wait, next.Sub(c.s.opts.Now()))
			case c.drain(ctx) > 0:
				continue
			default:
				wait = min(wait, time.Second) // due but not claimable (a failing claim): no busy loop
			}
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
		case <-c.wake:
		case <-t.C:
		}
		t.Stop()
	}
}

// lease covers a whole claimed batch at this channel's timeout.
func (c *channelLoop) lease() time.Duration {
	return time.Duration(c.s.opts.Batch)*c.conf.Timeout + time.Minute
}

// drain claims and delivers until nothing of this channel is due; it
// returns how many deliveries it claimed.
func (c *channelLoop) drain(ctx context.Context) int {
	claimed := 0
	for ctx.Err() == nil {
		now := c.s.opts.Now()
		ds, err := c.s.store.Claim(ctx, c.conf.Name, c.s.opts.Owner, now, c.lease(), c.s.opts.Batch)
		if err != nil {
			c.s.opts.Log.Warn("notify.claim_failed", "channel", c.conf.Name, "err", err)
			return claimed
		}
		if len(ds) == 0 {
			return claimed
		}
		claimed += len(ds)
		for _, group := range bySubject(ds) {
			c.deliverGroup(ctx, group)
		}
	}
	return claimed
}

// send makes one attempt and records it.
func (c *channelLoop) send(ctx context.Context, d runtrace.Delivery) {
	bg := context.WithoutCancel(ctx)
	log := c.s.opts.Log.With("channel", c.conf.Name, "event", d.EventID, "kind", d.Kind, "subject", d.Subject)
	e, err := decodeEvent(d.Payload)
	if err == nil {
		err = c.err
	}
	if err != nil {
		err = Permanent(err)
	} else {
		e.HeldBack = d.HeldBack
		err = c.attempt(ctx, &e, d, log)
		if err == nil {
			return
		}
	}
	now := c.s.opts.Now()
	permanent := IsPermanent(err)
	next := now.Add(retryIn(d.Attempts+1, err))
	if ferr := c.s.outbox.failed(bg, []runtrace.Delivery{d}, now, err.Error(), permanent, next); ferr != nil {
		log.Warn("notify.record_failed", "err", ferr)
	}
	if permanent {
		log.Error("notify.refused", "attempts", d.Attempts+1, "err", err)
	} else {
		log.Warn("notify.retry", "attempts", d.Attempts+1, "next", next.UTC().Format(time.RFC3339), "err", err)
	}
}

// attempt sends e with the channel's timeout; nil when delivered (and
// recorded).
func (c *channelLoop) attempt(ctx context.Context, e *Event, d runtrace.Delivery, log *slog.Logger) error {
	sctx, cancel := context.WithTimeout(ctx, c.conf.Timeout)
	start := time.Now()
	err := c.ch.Send(sctx, e)
	lat := time.Since(start)
	cancel()
	if c.s.opts.OnDelivery != nil {
		c.s.opts.OnDelivery(c.conf.Name, lat, err)
	}
	if err != nil {
		return err
	}
	if rerr := c.s.outbox.delivered(context.WithoutCancel(ctx), []runtrace.Delivery{d}, c.s.opts.Now(), lat, true); rerr != nil {
		log.Warn("notify.record_failed", "err", rerr)
	}
	log.Info("notify.delivered", "latency_ms", lat.Milliseconds(), "held_back", d.HeldBack)
	return nil
}
