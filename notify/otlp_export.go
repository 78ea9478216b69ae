package notify

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	logspb "go.opentelemetry.io/proto/otlp/logs/v1"

	"svcctl/config"
	"svcctl/internal/redact"
)

// Bounds of an otlp channel's delivery.
const (
	// otlpBatch is how many records one request carries at most.
	otlpBatch = 512
	// otlpMaxPending bounds the events waiting for one otlp channel: a
	// collector down for days costs at most this many outbox rows; past it
	// the oldest are dropped, and a failed/undelivered row says how many.
	otlpMaxPending = 20_000
	// otlpMaxRowBacklog bounds the rows an exporter catches up on after an
	// outage: past it the oldest are skipped, with the same row. (The rows
	// themselves are in the ledger anyway; this bounds the catch-up.)
	otlpMaxRowBacklog = 100_000
	// otlpCursorLead is how far the cursor may run ahead of the ledger's
	// copy over rows that were not sent before it is written anyway.
	otlpCursorLead = 1000
)

// Undelivered says that an exporting channel gave up on records: how many,
// of what (events or rows), and why. The agent records it as a
// failed/undelivered agent row.
type Undelivered struct {
	Channel string
	What    string // "events" | "rows"
	Count   int
	Why     string
}

// otlpExporter is the loop of one otlp channel: the outbox's events in
// order (ClaimHead), then the finished rows after its cursor, then, every
// metrics_every, the counters. One goroutine, so one backoff: a collector
// that is down is asked again at a widening interval, whatever waits.
type otlpExporter struct {
	s    *Sender
	conf config.Notify
	ch   *otlpChannel
	wake chan struct{}
	red  *redact.Redactor
	log  *slog.Logger
	// fails counts failed attempts in a row; until is when to try again.
	fails int
	until time.Time
	// cursor is the rows' cursor (-1: not read yet); stored is where the
	// ledger has it. They differ while only rows that are not sent (routine
	// cycles) were passed: that lead is kept in memory, so an idle channel
	// writes nothing, and a restart only reads those rows again.
	cursor, stored int64
	// exported counts the records this process sent, by kind.
	exported map[string]int64
}

func newOTLPExporter(s *Sender, conf config.Notify, wake chan struct{}, red *redact.Redactor) *otlpExporter {
	return &otlpExporter{s: s, conf: conf, wake: wake, red: red, cursor: -1, exported: map[string]int64{},
		log: s.opts.Log.With("channel", conf.Name, "kind", config.NotifyOTLP)}
}

// run exports until ctx ends.
func (x *otlpExporter) run(ctx context.Context) {
	nextMetrics := x.s.opts.Now().Add(x.conf.OTLP.MetricsEvery)
	for ctx.Err() == nil {
		now := x.s.opts.Now()
		wait := x.s.opts.Poll
		if !now.Before(x.until) {
			more, due := x.pass(ctx)
			if more {
				continue
			}
			if !due.IsZero() {
				wait = min(wait, max(due.Sub(now), 10*time.Millisecond))
			}
		} else {
			wait = min(wait, x.until.Sub(now))
		}
		if x.conf.OTLP.MetricsEvery > 0 {
			if !now.Before(nextMetrics) {
				x.sendMetrics(ctx)
				nextMetrics = now.Add(x.conf.OTLP.MetricsEvery)
			}
			wait = min(wait, max(nextMetrics.Sub(now), 10*time.Millisecond))
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
		case <-x.wake:
		case <-t.C:
		}
		t.Stop()
	}
}

// drain exports everything due now (Sender.Drain: tests, benchmarks).
func (x *otlpExporter) drain(ctx context.Context) {
	for ctx.Err() == nil {
		if more, _ := x.pass(ctx); !more || x.fails > 0 {
			return
		}
	}
}

// pass makes one round: events, then rows. more: a full batch went out, go
// on at once; due: when the head event may be tried (zero: none waits).
func (x *otlpExporter) pass(ctx context.Context) (more bool, due time.Time) {
	if x.ch == nil {
		ch, err := newOTLPChannel(&x.conf)
		if err != nil {
			x.failed(fmt.Errorf("open: %w", err), "open")
			return false, time.Time{}
		}
		x.ch = ch
	}
	pending, head, err := x.s.store.PendingHead(ctx, x.conf.Name)
	if err != nil {
		x.failed(err, "events")
		return false, time.Time{}
	}
	if pending > otlpMaxPending {
		x.trim(ctx)
	}
	var moreEvents bool
	if pending > 0 && !head.After(x.s.opts.Now()) { // an idle channel only reads
		moreEvents, due, err = x.events(ctx)
	} else {
		due = head
	}
	if err != nil {
		x.failed(err, "events")
		return false, due
	}
	moreRows, err := x.rows(ctx)
	if err != nil {
		x.failed(err, "rows")
		return false, due
	}
	x.fails, x.until = 0, time.Time{}
	return moreEvents || moreRows, due
}

// failed widens the wait after a failed attempt: what the collector asked
// for (Retry-After), else exponential with jitter, as every channel.
func (x *otlpExporter) failed(err error, what string) {
	x.fails++
	wait := retryIn(x.fails, err)
	x.until = x.s.opts.Now().Add(wait)
	x.log.Warn("otlp.retry", "what", what, "attempts", x.fails, "next", x.until.UTC().Format(time.RFC3339), "err", err)
}

// trim bounds the events that wait for this channel (otlpMaxPending).
func (x *otlpExporter) trim(ctx context.Context) {
	n, err := x.s.store.TrimPending(context.WithoutCancel(ctx), x.conf.Name, otlpMaxPending, x.s.opts.Now())
	if err != nil {
		x.log.Warn("otlp.trim_failed", "err", err)
		return
	}
	if n > 0 {
		x.undelivered("events", n, fmt.Sprintf("more than %d events waited for the collector; the oldest were dropped", otlpMaxPending))
	}
}

func (x *otlpExporter) undelivered(what string, n int, why string) {
	x.log.Error("otlp.undelivered", "what", what, "count", n, "why", why)
	if x.s.opts.OnUndelivered != nil {
		x.s.opts.OnUndelivered(Undelivered{Channel: x.conf.Name, What: what, Count: n, Why: why})
	}
}

// events sends the oldest waiting events, in order, as one request, and
// records the answer for every one of them.
func (x *otlpExporter) events(ctx context.Context) (bool, time.Time, error) {
	bg := context.WithoutCancel(ctx)
	now := x.s.opts.Now()
	ds, due, err := x.s.store.ClaimHead(ctx, x.conf.Name, x.s.opts.Owner, now, x.lease(), otlpBatch)
	if err != nil || len(ds) == 0 {
		return false, due, err
	}
	recs := make([]*logspb.LogRecord, 0, len(ds))
	for _, d := range ds {
		e, err := decodeEvent(d.Payload)
		if err != nil { // not ours to read: say so on the record rather than hold the queue
			e = Event{ID: d.EventID, Kind: d.Kind, Subject: d.Subject, Time: d.CreatedAt, Message: "unreadable event: " + err.Error()}
		}
		e.HeldBack = d.HeldBack
		recs = append(recs, eventRecord(&e, now))
	}
	start := time.Now()
	p, err := x.send(ctx, recs)
	lat := time.Since(start)
	x.observe(lat, err)
	if err != nil {
		permanent := IsPermanent(err)
		next := now.Add(retryIn(max(x.fails+1, ds[0].Attempts+1), err))
		if ferr := x.s.outbox.failed(bg, ds, now, err.Error(), permanent, next); ferr != nil {
			x.log.Warn("notify.record_failed", "err", ferr)
		}
		if permanent {
			x.log.Error("otlp.refused", "what", "events", "count", len(ds), "err", err)
			return false, next, nil // the collector refused these; the rest may go
		}
		return false, next, err
	}
	if rerr := x.s.outbox.delivered(bg, ds, x.s.opts.Now(), lat, false); rerr != nil {
		x.log.Warn("notify.record_failed", "err", rerr)
	}
	x.exported["event"] += int64(len(ds))
	x.partial(p, "events")
	x.log.Info("otlp.exported", "what", "events", "count", len(ds), "latency_ms", lat.Milliseconds())
	return len(ds) == otlpBatch, time.Time{}, nil
}

// lease covers one request of a batch.
func (x *otlpExporter) lease() time.Duration { return x.conf.Timeout + time.Minute }

// send posts records with the channel's timeout.
func (x *otlpExporter) send(ctx context.Context, recs []*logspb.LogRecord) (partial, error) {
	sctx, cancel := context.WithTimeout(ctx, x.conf.Timeout)
	defer cancel()
	return x.ch.exportLogs(sctx, recs)
}

func (x *otlpExporter) observe(lat time.Duration, err error) {
	if x.s.opts.OnDelivery != nil {
		x.s.opts.OnDelivery(x.conf.Name, lat, err)
	}
}

// partial logs what a collector took but refused: the spec says not to
// send it again, and the channel's state says so for status and verify.
func (x *otlpExporter) partial(p partial, what string) {
	if p.Rejected == 0 && p.Message == "" {
		return
	}
	x.log.Warn("otlp.partial_success", "what", what, "rejected", p.Rejected, "message", p.Message)
	if p.Rejected > 0 {
		msg := fmt.Sprintf("partial success: the collector rejected %d %s: %s", p.Rejected, what, oneLine(p.Message))
		if err := x.s.store.ChannelResult(context.Background(), x.conf.Name, x.s.opts.Now(), 0, msg); err != nil {
			x.log.Warn("notify.record_failed", "err", err)
		}
	}
}
