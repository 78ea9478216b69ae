package notify

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"svcctl/config"
	"svcctl/internal/redact"
	"svcctl/runtrace"
)

// Retention is how long an undelivered event is kept: past it, it is
// dropped and the drop is reported (Options.OnDropped).
const Retention = 7 * 24 * time.Hour

// Options tune a Sender. The zero value is what the agent uses.
type Options struct {
	// Owner names this sender in claims (the agent's instance id).
	Owner string
	Log   *slog.Logger
	Now   func() time.Time
	// Poll bounds every wait: work queued by another process (a CLI cycle)
	// and time lost to host sleep are noticed within it. Default 10s.
	Poll time.Duration
	// Batch is how many deliveries one claim takes. Default 32.
	Batch int
	// OnDropped is told of events dropped undelivered after Retention (the
	// agent records it); may be nil.
	OnDropped func(runtrace.Dropped)
	// OnDelivery is told of every attempt (metrics); may be nil.
	OnDelivery func(channel string, latency time.Duration, err error)
	// OnUndelivered is told when an otlp channel gives up on events or rows
	// (its backlog bound, rows pruned before they were sent, a refusal);
	// the agent records it. May be nil.
	OnUndelivered func(Undelivered)
	// Metrics returns the agent's counters for otlp channels; Started is
	// when they started counting (the agent's start). Nil: only the
	// channels' own.
	Metrics func() []MetricPoint
	Started time.Time
}

// Sender delivers what the outbox holds: one loop per channel, so a channel
// whose receiver hangs delays only itself.
type Sender struct {
	store  *runtrace.Store
	outbox outbox // the delivery state machine's steps (deliveries.go)
	opts   Options
	chans  []*channelLoop
}

type channelLoop struct {
	s    *Sender
	conf config.Notify
	ch   Channel
	err  error // the channel could not be opened: each delivery fails with it
	wake chan struct{}
	// exp is the loop of an otlp channel, which sends in batches (otlp_export.go).
	exp *otlpExporter
}

// NewSender prepares delivery through cfg's channels. A channel that cannot
// be opened (desktop where there is none) is not an error here: each of its
// deliveries fails permanently with the reason, where people look.
func NewSender(cfg *config.Config, store *runtrace.Store, o Options) *Sender {
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Poll <= 0 {
		o.Poll = 10 * time.Second
	}
	if o.Batch <= 0 {
		o.Batch = 32
	}
	if o.Owner == "" {
		o.Owner = newID()
	}
	if o.Started.IsZero() {
		o.Started = o.Now()
	}
	s := &Sender{store: store, outbox: outbox{store: store, owner: o.Owner}, opts: o}
	red := redact.New(cfg.SecretValues()...)
	for _, n := range cfg.Notify {
		c := &channelLoop{s: s, conf: n, wake: make(chan struct{}, 1)}
		if n.Kind == config.NotifyOTLP {
			// Opened by its loop, which tries again when it fails: a CA file
			// missing at boot must not lose the events.
			c.exp = newOTLPExporter(s, n, c.wake, red)
			// Its cursor exists from now on: rows finished after this point
			// (the agent's own startup row among them) are exported.
			if n.OTLP.Rows != config.OTLPRowsNone {
				if _, err := store.ExportCursor(context.Background(), n.Name, o.Now()); err != nil {
					o.Log.Warn("otlp.cursor_failed", "channel", n.Name, "err", err)
				}
			}
		} else {
			c.ch, c.err = Open(&n)
		}
		s.chans = append(s.chans, c)
	}
	return s
}

// Wake tells every channel that something was queued (the agent calls it
// after a commit that queued events), so delivery does not wait for Poll.
func (s *Sender) Wake() {
	for _, c := range s.chans {
		select {
		case c.wake <- struct{}{}:
		default:
		}
	}
}

// Run delivers until ctx ends: Loops, each in a goroutine of its own.
func (s *Sender) Run(ctx context.Context) {
	var wg sync.WaitGroup
	for _, l := range s.Loops(ctx) {
		wg.Go(func() { l.Run(ctx) })
	}
	wg.Wait()
}

// Loop is one of the sender's loops, for a caller that runs each under its
// own safety net (the agent's L2): one per channel and the hourly expiry.
type Loop struct {
	Name string
	Run  func(ctx context.Context)
}

// Loops releases the claims left by a sender that died (the caller holds
// the agent lock: no other sender of this state dir runs) and returns the
// loops to run until ctx ends.
func (s *Sender) Loops(ctx context.Context) []Loop {
	if n, err := s.store.ReleaseClaims(context.WithoutCancel(ctx), s.opts.Owner); err != nil {
		s.opts.Log.Warn("notify.release_failed", "err", err)
	} else if n > 0 {
		s.opts.Log.Info("notify.claims_released", "count", n)
	}
	out := []Loop{{Name: "notify:expire", Run: s.expireLoop}}
	for _, c := range s.chans {
		run := c.run
		if c.exp != nil {
			run = c.exp.run
		}
		out = append(out, Loop{Name: "notify:" + c.conf.Name, Run: run})
	}
	return out
}

func (s *Sender) expireLoop(ctx context.Context) {
	for {
		s.Expire(ctx)
		t := time.NewTimer(time.Hour)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
	}
}

// Expire drops events older than Retention and reports the undelivered.
func (s *Sender) Expire(ctx context.Context) {
	d, err := s.store.DropExpired(ctx, s.opts.Now().Add(-Retention))
	if err != nil {
		s.opts.Log.Warn("notify.expire_failed", "err", err)
		return
	}
	if len(d.Undelivered) == 0 {
		return
	}
	s.opts.Log.Warn("notify.dropped", "events", d.Events, "undelivered", d.Undelivered)
	if s.opts.OnDropped != nil {
		s.opts.OnDropped(d)
	}
}

// Drain delivers everything due now through every channel and returns
// when each channel has nothing due (benchmarks and `notify` tests use it;
// the agent runs Run).
func (s *Sender) Drain(ctx context.Context) {
	var wg sync.WaitGroup
	for _, c := range s.chans {
		if c.exp != nil {
			wg.Go(func() { c.exp.drain(ctx) })
			continue
		}
		wg.Go(func() { c.drain(ctx) })
	}
	wg.Wait()
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
