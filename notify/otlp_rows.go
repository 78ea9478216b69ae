package notify

import (
	"context"
	"errors"
	"time"

	logspb "go.opentelemetry.io/proto/otlp/logs/v1"

	"svcctl/config"
	"svcctl/runtrace"
)

// rows sends the finished rows after the cursor that rows = ... selects,
// and moves the cursor past everything it read once the collector took
// them (a read with nothing to send moves it too).
func (x *otlpExporter) rows(ctx context.Context) (bool, error) {
	if x.conf.OTLP.Rows == config.OTLPRowsNone {
		return false, nil
	}
	bg := context.WithoutCancel(ctx)
	now := x.s.opts.Now()
	if x.cursor < 0 {
		c, err := x.s.store.ExportCursor(ctx, x.conf.Name, now)
		if err != nil {
			return false, err
		}
		x.cursor, x.stored = c, c
	}
	rows, head, err := x.s.store.FinishedAfter(ctx, x.cursor, otlpBatch)
	if err != nil {
		return false, err
	}
	from, to := x.cursor, x.cursor
	lost := 0
	if head-from > otlpMaxRowBacklog { // catch up on the newest, and say what was skipped
		to = head - otlpMaxRowBacklog
		lost += int(to - from)
		if rows, head, err = x.s.store.FinishedAfter(ctx, to, otlpBatch); err != nil {
			return false, err
		}
	}
	var recs []*logspb.LogRecord
	for _, r := range rows {
		lost += int(r.Seq - to - 1) // a gap: rows deleted (pruned) before they were sent
		to = r.Seq
		if x.wantRow(&r.Run) {
			recs = append(recs, x.runRecord(&r.Run, now))
		}
	}
	if len(rows) == 0 && head > to {
		lost += int(head - to)
		to = head
	}
	if len(recs) > 0 {
		start := time.Now()
		p, err := x.send(ctx, recs)
		lat := time.Since(start)
		x.observe(lat, err)
		if err != nil && !IsPermanent(err) {
			if cerr := x.s.store.ChannelResult(bg, x.conf.Name, x.s.opts.Now(), 0, err.Error()); cerr != nil {
				x.log.Warn("notify.record_failed", "err", cerr)
			}
			return false, err
		}
		if err != nil {
			x.log.Error("otlp.refused", "what", "rows", "count", len(recs), "err", err)
			x.undelivered("rows", len(recs), "the collector refused them: "+err.Error())
		} else {
			x.exported["run"] += int64(len(recs))
			if cerr := x.s.store.ChannelResult(bg, x.conf.Name, x.s.opts.Now(), lat, ""); cerr != nil {
				x.log.Warn("notify.record_failed", "err", cerr)
			}
			x.partial(p, "rows") // after the success: its words stay the channel's last error
			x.log.Info("otlp.exported", "what", "rows", "count", len(recs), "latency_ms", lat.Milliseconds())
		}
	}
	if to == from {
		return false, nil
	}
	if len(recs) == 0 && lost == 0 && to-x.stored < otlpCursorLead {
		x.cursor = to // nothing sent: no write (see cursor)
		return len(rows) == otlpBatch, nil
	}
	if err := x.s.store.AdvanceExportCursor(bg, x.conf.Name, x.stored, to, x.s.opts.Now()); err != nil {
		x.cursor = -1 // read it again
		if errors.Is(err, runtrace.ErrCursorMoved) {
			x.log.Error("otlp.cursor_moved", "err", err, "hint", "two agents export through one state dir")
		}
		return false, err
	}
	x.cursor, x.stored = to, to
	if lost > 0 {
		x.undelivered("rows", lost, "they were pruned from the ledger (retention) or skipped (more than 100000 waited) before the collector took them")
	}
	return len(rows) == otlpBatch, nil
}

// wantRow: rows = "all" sends every row, "notable" all but the routine
// healthy cycles, which the metrics count instead.
func (x *otlpExporter) wantRow(r *runtrace.Run) bool {
	if x.conf.OTLP.Rows == config.OTLPRowsAll {
		return true
	}
	return !runtrace.Routine(*r)
}
