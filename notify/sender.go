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
