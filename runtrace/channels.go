package runtrace

import (
	"context"
	"database/sql"
	"fmt"
	"time"
)

// ChannelState is what `status` and `verify` say about a channel.
type ChannelState struct {
	Channel      string        `json:"channel"`
	LastOK       time.Time     `json:"last_ok,omitzero"`
	LastLatency  time.Duration `json:"-"`
	LastError    string        `json:"last_error,omitempty"`
	LastErrorAt  time.Time     `json:"last_error_at,omitzero"`
	FailingSince time.Time     `json:"failing_since,omitzero"` // zero: the last attempt worked
}

// ChannelStates returns every channel that has ever been tried, by name.
func (s *Store) ChannelStates(ctx context.Context) ([]ChannelState, error) {
	var out []ChannelState
	err := s.read(ctx, "channel states", func(db *sql.DB) (err error) {
		out, err = scanRows(ctx, db, scanChannelState, `SELECT channel, last_ok_at, COALESCE(last_latency_ms, 0),
  COALESCE(last_error, ''), last_error_at, failing_since FROM notify_channels ORDER BY channel`)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("read channel states: %w", err)
	}
	return out, nil
}

func scanChannelState(sc scanner) (ChannelState, error) {
	var c ChannelState
	var ok, errAt, since *int64
	var lat int64
	err := sc.Scan(&c.Channel, &ok, &lat, &c.LastError, &errAt, &since)
	c.LastOK, c.LastErrorAt, c.FailingSince = fromMS(ok), fromMS(errAt), fromMS(since)
	c.LastLatency = time.Duration(lat) * time.Millisecond
	return c, err
}

// ChannelResult records an attempt that moved no delivery (`svc-ctl notify
// test`, a ping, an export of rows): errText "" is a success.
func (s *Store) ChannelResult(ctx context.Context, channel string, at time.Time, latency time.Duration, errText string) error {
	err := s.StepDeliveries(ctx, nil, &ChannelAttempt{Channel: channel, At: at, Latency: latency, Err: errText})
	if err != nil {
		return fmt.Errorf("record result of channel %s: %w", channel, err)
	}
	return nil
}

func channelOK(ctx context.Context, tx *sql.Tx, channel string, at time.Time, latency time.Duration) error {
	_, err := tx.ExecContext(ctx, `INSERT INTO notify_channels (channel, last_ok_at, last_latency_ms) VALUES (?, ?, ?)
ON CONFLICT (channel) DO UPDATE SET last_ok_at = excluded.last_ok_at,
  last_latency_ms = excluded.last_latency_ms, failing_since = NULL`,
		channel, at.UnixMilli(), latency.Milliseconds())
	return err
}

func channelFailed(ctx context.Context, tx *sql.Tx, channel string, at time.Time, errText string) error {
	_, err := tx.ExecContext(ctx, `INSERT INTO notify_channels (channel, last_error, last_error_at, failing_since)
VALUES (?, ?, ?, ?)
ON CONFLICT (channel) DO UPDATE SET last_error = excluded.last_error, last_error_at = excluded.last_error_at,
  failing_since = COALESCE(notify_channels.failing_since, excluded.failing_since)`,
		channel, errText, at.UnixMilli(), at.UnixMilli())
	return err
}

// capText cuts s to at most n bytes, on a character boundary.
func capText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return string(trimPartialRune([]byte(s[:n])))
}
