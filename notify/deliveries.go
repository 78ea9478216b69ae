package notify

import (
	"context"
	"math/rand/v2"
	"time"

	"svcctl/runtrace"
)

// The delivery state machine. Every event in the outbox gets one delivery
// per channel that wants it, pending at first; from pending:
//
//	attempt accepted                     -> delivered (the subject's last message now)
//	attempt failed, may work later       -> pending, attempts+1, not before the backoff (retryIn)
//	attempt refused for good (Permanent) -> failed
//	min_interval not yet passed          -> pending, untried, not before the interval ends
//	a later event of the subject carries -> held (the carrier's HeldBack counts it)
//
// delivered, failed and held are final. runtrace stores the rows and writes
// each step (StepDeliveries) in one transaction with the channel's state;
// which step follows which outcome is decided here. The steps act on
// deliveries this sender claimed (Owner): a report that comes after its
// claim was lost changes nothing, except a success, which is true whoever
// holds the claim.

// Retry schedule of a failed attempt: backoffFirst after the first failure,
// doubling, capped at backoffMax, each wait drawn from [d/2, d] (jitter, so a
// fleet coming back online does not hammer a server in step).
const (
	backoffFirst = 5 * time.Second
	backoffMax   = 10 * time.Minute
	// retryAfterMax caps a receiver's Retry-After.
	retryAfterMax = time.Hour
)

// outbox is the sender's side of the state machine: the store and who it
// claims as.
type outbox struct {
	store *runtrace.Store
	owner string
}

// delivered records an accepted attempt that carried ds (one request):
// each is delivered. sent: the subject's last message is now (min_interval
// counts from it; an otlp export is not a message to a person).
func (o outbox) delivered(ctx context.Context, ds []runtrace.Delivery, at time.Time, latency time.Duration, sent bool) error {
	steps := make([]runtrace.DeliveryStep, 0, len(ds))
	for _, d := range ds {
		steps = append(steps, runtrace.DeliveryStep{EventID: d.EventID, Channel: d.Channel, Subject: d.Subject,
			To: runtrace.DeliveryDelivered, Attempt: true, DoneAt: at, Sent: sent})
	}
	return o.store.StepDeliveries(ctx, steps, attempt(ds, at, latency, ""))
}

// failed records a failed attempt that carried ds: permanent (the receiver
// refused the event itself) ends them as failed; otherwise they are tried
// again at next, all of them (a batch keeps its order). The channel's last
// error is errText either way. For one delivery, a claim lost meanwhile is
// runtrace.ErrClaimLost and changes nothing: someone else's attempt counts.
func (o outbox) failed(ctx context.Context, ds []runtrace.Delivery, at time.Time, errText string, permanent bool, next time.Time) error {
	to, done := runtrace.DeliveryPending, time.Time{}
	if permanent {
		to, done = runtrace.DeliveryFailed, at
	}
	steps := make([]runtrace.DeliveryStep, 0, len(ds))
	for _, d := range ds {
		steps = append(steps, runtrace.DeliveryStep{EventID: d.EventID, Channel: d.Channel, To: to,
			Attempt: true, Error: errText, NextAt: next, DoneAt: done, Owner: o.owner, MustHold: len(ds) == 1})
	}
	return o.store.StepDeliveries(ctx, steps, attempt(ds, at, 0, errText))
}

// deferTo releases claimed deliveries untried until until (min_interval).
func (o outbox) deferTo(ctx context.Context, ds []runtrace.Delivery, until time.Time) error {
	steps := make([]runtrace.DeliveryStep, 0, len(ds))
	for _, d := range ds {
		steps = append(steps, runtrace.DeliveryStep{EventID: d.EventID, Channel: d.Channel,
			To: runtrace.DeliveryPending, NextAt: until, Owner: o.owner})
	}
	return o.store.StepDeliveries(ctx, steps, nil)
}

// hold folds held (earlier events of one subject on one channel) into
// carrier, the one message that will be sent for them: each held delivery
// ends as held, and carrier's HeldBack grows by them and what they already
// stood for. It returns carrier with its new HeldBack, still claimed.
func (o outbox) hold(ctx context.Context, held []runtrace.Delivery, carrier runtrace.Delivery, at time.Time) (runtrace.Delivery, error) {
	add := 0
	steps := make([]runtrace.DeliveryStep, 0, len(held)+1)
	for _, h := range held {
		add += h.HeldBack + 1
		steps = append(steps, runtrace.DeliveryStep{EventID: h.EventID, Channel: h.Channel,
			To: runtrace.DeliveryHeld, DoneAt: at, Owner: o.owner})
	}
	steps = append(steps, runtrace.DeliveryStep{EventID: carrier.EventID, Channel: carrier.Channel,
		To: runtrace.DeliveryPending, HeldBack: add, KeepClaim: true})
	if err := o.store.StepDeliveries(ctx, steps, nil); err != nil {
		return carrier, err
	}
	carrier.HeldBack += add
	return carrier, nil
}

// attempt is the channel's state after an attempt that carried ds.
func attempt(ds []runtrace.Delivery, at time.Time, latency time.Duration, errText string) *runtrace.ChannelAttempt {
	if len(ds) == 0 {
		return nil
	}
	return &runtrace.ChannelAttempt{Channel: ds[0].Channel, At: at, Latency: latency, Err: errText}
}

// retryIn is the wait before attempt n+1 after n failed ones: what the
// receiver asked for (Retry-After), else exponential with jitter.
func retryIn(n int, err error) time.Duration {
	if d, ok := retryAfter(err); ok {
		return min(max(d, time.Second), retryAfterMax)
	}
	d := backoffFirst
	for i := 1; i < n && d < backoffMax; i++ {
		d *= 2
	}
	d = min(d, backoffMax)
	return d/2 + rand.N(d/2+1)
}
