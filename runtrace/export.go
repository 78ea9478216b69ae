package runtrace

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// The export feed: what an exporting channel (otlp) reads besides the
// outbox. Finished rows are numbered in the order they were finished (seq,
// schema v7); a channel keeps a cursor, the seq of the last row the
// receiver accepted, and moves it only after that. So a crash between a
// send and the cursor's move sends that batch again (at least once), and
// nothing else; rows finished while the receiver was down wait in the
// ledger itself, which costs no extra disk.

// FinishedRun is a finished row with its place in the finish feed.
type FinishedRun struct {
	Seq int64
	Run
}

// ExportCursor is channel's cursor; a channel that has none starts at the
// feed's head (it exports the rows finished from now on) and it is written.
func (s *Store) ExportCursor(ctx context.Context, channel string, now time.Time) (int64, error) {
	var seq int64
	err := s.tx(ctx, "read export cursor", func(tx *sql.Tx) error {
		err := tx.QueryRowContext(ctx, `SELECT seq FROM export_cursors WHERE channel = ?`, channel).Scan(&seq)
		if !errors.Is(err, sql.ErrNoRows) {
			return err
		}
		if err := tx.QueryRowContext(ctx, `SELECT n FROM finish_counter WHERE id = 1`).Scan(&seq); err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO export_cursors (channel, seq, updated_at) VALUES (?, ?, ?)`,
			channel, seq, now.UnixMilli())
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("export cursor of %s: %w", channel, err)
	}
	return seq, nil
}

// FinishedAfter returns up to limit rows finished after seq, in the order
// they were finished, and the feed's head (the seq of the newest finished
// row ever, deleted or not).
func (s *Store) FinishedAfter(ctx context.Context, seq int64, limit int) ([]FinishedRun, int64, error) {
	var out []FinishedRun
	var head int64
	err := s.read(ctx, "read finished rows", func(db *sql.DB) error {
		if err := db.QueryRowContext(ctx, `SELECT n FROM finish_counter WHERE id = 1`).Scan(&head); err != nil {
			return err
		}
		var err error
		out, err = scanRows(ctx, db, func(sc scanner) (FinishedRun, error) {
			var f FinishedRun
			var err error
			f.Run, err = scanRun(seqScanner{sc, &f.Seq})
			return f, err
		}, `SELECT seq, `+runColumns+` FROM run_trace WHERE seq > ? ORDER BY seq LIMIT ?`, seq, limit)
		return err
	})
	if err != nil {
		return nil, 0, fmt.Errorf("read finished rows after %d: %w", seq, err)
	}
	return out, head, nil
}

// seqScanner reads the leading seq column, then hands the rest to scanRun.
type seqScanner struct {
	rows scanner
	seq  *int64
}

func (s seqScanner) Scan(dest ...any) error {
	return s.rows.Scan(append([]any{s.seq}, dest...)...)
}

// ErrCursorMoved: another writer moved the cursor since it was read.
var ErrCursorMoved = errors.New("export cursor moved by someone else")

// AdvanceExportCursor moves channel's cursor from from to to, only if it
// is still at from (one exporter per channel; a second one is a bug that
// must not move it backwards).
func (s *Store) AdvanceExportCursor(ctx context.Context, channel string, from, to int64, now time.Time) error {
	err := s.tx(ctx, "advance export cursor", func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE export_cursors SET seq = ?, updated_at = ? WHERE channel = ? AND seq = ?`,
			to, now.UnixMilli(), channel, from)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil || n == 0 {
			return errors.Join(err, ErrCursorMoved)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("advance export cursor of %s to %d: %w", channel, to, err)
	}
	return nil
}

// ClaimHead claims the oldest pending deliveries of channel, at most limit,
// in order, but only when the oldest of them is due and unclaimed: a
// channel that must keep order never sends a newer event before an older
// one that waits for its retry. due is when the head may be tried (zero
// when nothing is pending).
func (s *Store) ClaimHead(ctx context.Context, channel, owner string, now time.Time, lease time.Duration, limit int) (ds []Delivery, due time.Time, err error) {
	err = s.tx(ctx, "claim deliveries", func(tx *sql.Tx) error {
		ds, due = ds[:0], time.Time{}
		head, err := scanRows(ctx, tx, scanClaimed, `SELECT `+deliveryColumns+`, COALESCE(d.claimed_until, 0) `+deliveryFrom+`
WHERE d.state = 'pending' AND d.channel = ? ORDER BY o.created_at, d.event_id LIMIT ?`, channel, limit)
		if err != nil {
			return err
		}
		for i, c := range head {
			if i == 0 {
				due = c.NextAt
				if u := time.UnixMilli(c.until).UTC(); u.After(due) {
					due = u
				}
			} else if c.until > now.UnixMilli() {
				break // a claimed one (ClaimSubject elsewhere): the batch ends before it
			}
			ds = append(ds, c.Delivery)
		}
		if len(ds) == 0 || due.After(now) {
			ds = ds[:0]
			return nil
		}
		until := now.Add(lease).UnixMilli()
		for _, d := range ds {
			if _, err := tx.ExecContext(ctx, `UPDATE deliveries SET claimed_by = ?, claimed_until = ?
WHERE event_id = ? AND channel = ?`, owner, until, d.EventID, d.Channel); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, time.Time{}, fmt.Errorf("claim deliveries: %w", err)
	}
	return ds, due, nil
}

// claimed is a delivery with its claim's end (claimed_until, 0: none).
type claimed struct {
	Delivery
	until int64
}

// scanClaimed reads a delivery followed by its claimed_until column.
func scanClaimed(sc scanner) (claimed, error) {
	var c claimed
	var err error
	c.Delivery, err = scanDelivery(claimRow{sc, &c.until})
	return c, err
}

// claimRow is a row whose last column (claimed_until) goes to until.
type claimRow struct {
	rows  scanner
	until *int64
}

func (c claimRow) Scan(dest ...any) error { return c.rows.Scan(append(dest, c.until)...) }

// TrimPending bounds what channel keeps waiting: past keep pending
// deliveries, the oldest end as failed ("dropped"), so a receiver that is
// down for long costs bounded disk. It returns how many it dropped.
func (s *Store) TrimPending(ctx context.Context, channel string, keep int, at time.Time) (int, error) {
	var n int64
	err := s.tx(ctx, "trim deliveries", func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE deliveries SET state = 'failed', done_at = ?, claimed_by = NULL,
  claimed_until = NULL, last_error = ?
WHERE channel = ? AND state = 'pending' AND event_id IN (
  SELECT d.event_id FROM deliveries d JOIN outbox o ON o.id = d.event_id
  WHERE d.channel = ? AND d.state = 'pending'
  ORDER BY o.created_at DESC, d.event_id DESC LIMIT -1 OFFSET ?)`,
			at.UnixMilli(), fmt.Sprintf("dropped undelivered: more than %d events waited for this channel", keep), channel, channel, keep)
		if err != nil {
			return err
		}
		n, err = res.RowsAffected()
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("trim deliveries of %s: %w", channel, err)
	}
	return int(n), nil
}

// PendingHead says, reading only, how many deliveries of channel are
// pending and when the oldest may be tried (zero when none): an idle
// exporter looks before it takes a write transaction.
func (s *Store) PendingHead(ctx context.Context, channel string) (n int, due time.Time, err error) {
	err = s.read(ctx, "pending deliveries", func(db *sql.DB) error {
		var head *int64
		err := db.QueryRowContext(ctx, `SELECT COUNT(*), (SELECT MAX(d.next_at, COALESCE(d.claimed_until, 0))
  FROM deliveries d JOIN outbox o ON o.id = d.event_id WHERE d.state = 'pending' AND d.channel = ?1
  ORDER BY o.created_at, d.event_id LIMIT 1)
FROM deliveries WHERE state = 'pending' AND channel = ?1`, channel).Scan(&n, &head)
		due = fromMS(head)
		return err
	})
	if err != nil {
		return 0, time.Time{}, fmt.Errorf("pending deliveries of %s: %w", channel, err)
	}
	return n, due, nil
}
