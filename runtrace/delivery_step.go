package runtrace

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// DeliveryStep is one transition of one pending delivery row. Package
// notify's delivery state machine decides each (delivered, retried, failed
// for good, deferred, held, carrying the held); runtrace writes it and
// decides nothing. Every step starts from pending: a row in another state
// (or whose claim is gone, with Owner) matches nothing.
type DeliveryStep struct {
	EventID string
	Channel string
	Subject string // with Sent: the subject whose last message this is
	// To is the state the row moves to.
	To string
	// Attempt: the step ends an attempt. attempts grows by one and
	// last_error becomes Error (none when "").
	Attempt bool
	Error   string
	// NextAt: not tried before then (zero: unchanged).
	NextAt time.Time
	// DoneAt: when the delivery ended (zero: it has not).
	DoneAt time.Time
	// HeldBack: more earlier events of its subject that it stands for.
	HeldBack int
	// KeepClaim: the claim goes on (a carrier about to be sent); otherwise
	// the step releases it.
	KeepClaim bool
	// Owner, when set, applies the step only while Owner holds the claim.
	Owner string
	// MustHold: a step Owner no longer holds fails the whole Step with
	// ErrClaimLost and writes nothing (someone else's attempt counts).
	MustHold bool
	// Sent: the subject's last message on the channel is DoneAt
	// (min_interval counts from it).
	Sent bool
}

// ChannelAttempt is an attempt's result for its channel's state (status,
// verify): Err "" is a success.
type ChannelAttempt struct {
	Channel string
	At      time.Time
	Latency time.Duration
	Err     string
}

// ErrClaimLost: a delivery's claim expired and was taken by someone else
// (or it is no longer pending) before its attempt was reported.
var ErrClaimLost = errors.New("delivery claim lost")

// StepDeliveries writes steps, and attempt when not nil, in one
// transaction: a crash keeps all of it or none.
func (s *Store) StepDeliveries(ctx context.Context, steps []DeliveryStep, attempt *ChannelAttempt) error {
	if len(steps) == 0 && attempt == nil {
		return nil
	}
	err := s.tx(ctx, "record deliveries", func(tx *sql.Tx) error {
		for _, st := range steps {
			if err := step(ctx, tx, st); err != nil {
				return err
			}
		}
		if attempt == nil {
			return nil
		}
		if attempt.Err == "" {
			return channelOK(ctx, tx, attempt.Channel, attempt.At, attempt.Latency)
		}
		return channelFailed(ctx, tx, attempt.Channel, attempt.At, capText(attempt.Err, 1000))
	})
	if err != nil {
		what := "nothing"
		if len(steps) > 0 {
			what = fmt.Sprintf("%d deliveries to %s", len(steps), steps[0].Channel)
		}
		return fmt.Errorf("record %s: %w", what, err)
	}
	return nil
}

func step(ctx context.Context, tx *sql.Tx, st DeliveryStep) error {
	attempts, keep := 0, 0
	if st.Attempt {
		attempts = 1
	}
	if st.KeepClaim {
		keep = 1
	}
	res, err := tx.ExecContext(ctx, `UPDATE deliveries SET state = ?, attempts = attempts + ?,
  last_error = CASE WHEN ? THEN ? ELSE last_error END, next_at = COALESCE(?, next_at), done_at = ?,
  held_back = held_back + ?, claimed_by = CASE WHEN ? THEN claimed_by END,
  claimed_until = CASE WHEN ? THEN claimed_until END
WHERE event_id = ? AND channel = ? AND state = 'pending' AND (? = '' OR claimed_by = ?)`,
		st.To, attempts, attempts, nullString(capText(st.Error, 1000)), toMS(st.NextAt), toMS(st.DoneAt),
		st.HeldBack, keep, keep, st.EventID, st.Channel, st.Owner, st.Owner)
	if err != nil {
		return err
	}
	if st.MustHold {
		if n, err := res.RowsAffected(); err != nil || n == 0 {
			return errors.Join(err, ErrClaimLost)
		}
	}
	if !st.Sent {
		return nil
	}
	_, err = tx.ExecContext(ctx, `INSERT INTO notify_sent (channel, subject, sent_at) VALUES (?, ?, ?)
ON CONFLICT (channel, subject) DO UPDATE SET sent_at = MAX(sent_at, excluded.sent_at)`,
		st.Channel, st.Subject, st.DoneAt.UnixMilli())
	return err
}
