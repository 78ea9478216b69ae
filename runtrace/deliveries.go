package runtrace

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"
)

// Delivery is one event on its way through one channel.
type Delivery struct {
	EventID   string
	Channel   string
	RunID     int64
	Kind      string
	Subject   string
	CreatedAt time.Time
	Payload   []byte
	State     string
	Attempts  int       // attempts made so far (a claim is not an attempt)
	NextAt    time.Time // not tried before this
	HeldBack  int       // earlier events of the subject this one stands for (min_interval)
	LastError string
	DoneAt    time.Time
	// LastSent is when this channel last delivered something about this
	// subject (zero: never), for min_interval.
	LastSent time.Time
}

// Deferred reports whether the delivery waits only for its channel's
// min_interval: pending, never tried, not due before NextAt (the sender's
// Defer). A retry has attempts; a new event is due at once.
func (d Delivery) Deferred(now time.Time) bool {
	return d.State == DeliveryPending && d.Attempts == 0 && d.LastError == "" && d.NextAt.After(now)
}

const deliveryColumns = `d.event_id, d.channel, COALESCE(o.run_id, 0), o.kind, o.subject, o.created_at, o.event,
  d.state, d.attempts, d.next_at, d.held_back, COALESCE(d.last_error, ''), d.done_at, s.sent_at`

const deliveryFrom = `FROM deliveries d JOIN outbox o ON o.id = d.event_id
LEFT JOIN notify_sent s ON s.channel = d.channel AND s.subject = o.subject`

func scanDelivery(rows scanner) (Delivery, error) {
	var d Delivery
	var created, next int64
	var done, sent *int64
	var payload string
	err := rows.Scan(&d.EventID, &d.Channel, &d.RunID, &d.Kind, &d.Subject, &created, &payload,
		&d.State, &d.Attempts, &next, &d.HeldBack, &d.LastError, &done, &sent)
	d.CreatedAt, d.NextAt = time.UnixMilli(created).UTC(), time.UnixMilli(next).UTC()
	d.DoneAt, d.LastSent = fromMS(done), fromMS(sent)
	d.Payload = []byte(payload)
	return d, err
}

// Claim takes up to limit due deliveries of channel (pending, next_at <=
// now, not claimed by a live lease) for owner until now+lease, oldest event
// first.
// Until the lease runs out nobody else gets them: one delivery never has two
// attempts in flight. A sender that dies leaves claims that simply expire.
func (s *Store) Claim(ctx context.Context, channel, owner string, now time.Time, lease time.Duration, limit int) ([]Delivery, error) {
	return s.claim(ctx, owner, now, lease, `
WHERE d.state = 'pending' AND d.channel = ? AND d.next_at <= ? AND (d.claimed_until IS NULL OR d.claimed_until <= ?)
ORDER BY o.created_at, d.event_id LIMIT ?`, channel, now.UnixMilli(), now.UnixMilli(), limit)
}

// ClaimSubject claims every pending delivery of one subject on a channel,
// due or not (the ones min_interval deferred included), unless another
// sender holds it: an escalation sent at once takes them along as held back,
// so none of them goes out after it as old news.
func (s *Store) ClaimSubject(ctx context.Context, channel, subject, owner string, now time.Time, lease time.Duration) ([]Delivery, error) {
	return s.claim(ctx, owner, now, lease, `
WHERE d.state = 'pending' AND d.channel = ? AND o.subject = ?
  AND (d.claimed_until IS NULL OR d.claimed_until <= ? OR d.claimed_by = ?)
ORDER BY o.created_at, d.event_id`, channel, subject, now.UnixMilli(), owner)
}

// claim selects deliveries (where: the WHERE and ORDER clauses) and claims
// them for owner until now+lease, in one transaction.
func (s *Store) claim(ctx context.Context, owner string, now time.Time, lease time.Duration, where string, args ...any) ([]Delivery, error) {
	var out []Delivery
	err := s.tx(ctx, "claim deliveries", func(tx *sql.Tx) error {
		var err error
		if out, err = scanRows(ctx, tx, scanDelivery, `SELECT `+deliveryColumns+` `+deliveryFrom+where, args...); err != nil {
			return err
		}
		until := now.Add(lease).UnixMilli()
		for _, d := range out {
			if _, err := tx.ExecContext(ctx, `UPDATE deliveries SET claimed_by = ?, claimed_until = ?
WHERE event_id = ? AND channel = ?`, owner, until, d.EventID, d.Channel); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("claim deliveries: %w", err)
	}
	return out, nil
}

// ReleaseClaims drops every claim not held by owner: the agent calls it at
// start, when its lock proves that no other sender of this state dir runs.
func (s *Store) ReleaseClaims(ctx context.Context, owner string) (int, error) {
	var n int64
	err := s.tx(ctx, "release claims", func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE deliveries SET claimed_by = NULL, claimed_until = NULL
WHERE state = 'pending' AND claimed_by IS NOT NULL AND claimed_by <> ?`, owner)
		if err != nil {
			return err
		}
		n, err = res.RowsAffected()
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("release delivery claims: %w", err)
	}
	return int(n), nil
}

// NextDue is when the earliest pending delivery of channel may be tried
// (claimed ones when their lease ends); ok is false when nothing is pending.
func (s *Store) NextDue(ctx context.Context, channel string) (time.Time, bool, error) {
	var next *int64
	err := s.read(ctx, "next due delivery", func(db *sql.DB) error {
		return db.QueryRowContext(ctx, `SELECT MIN(MAX(next_at, COALESCE(claimed_until, 0)))
FROM deliveries WHERE state = 'pending' AND channel = ?`, channel).Scan(&next)
	})
	if err != nil {
		return time.Time{}, false, fmt.Errorf("next due delivery: %w", err)
	}
	if next == nil {
		return time.Time{}, false, nil
	}
	return time.UnixMilli(*next).UTC(), true, nil
}

// Dropped says what DropExpired removed.
type Dropped struct {
	Events      int            // events removed, delivered or not
	Undelivered map[string]int // per channel: deliveries removed while pending or failed
}

// DropExpired removes every event created before cutoff with its
// deliveries, and says how many were never delivered, per channel, so the
// caller can record it: nothing disappears unannounced.
func (s *Store) DropExpired(ctx context.Context, cutoff time.Time) (Dropped, error) {
	var out Dropped
	err := s.tx(ctx, "drop expired events", func(tx *sql.Tx) error {
		out = Dropped{}
		var err error
		out.Undelivered, err = countsByKey(ctx, tx, `SELECT d.channel, COUNT(*) FROM deliveries d JOIN outbox o ON o.id = d.event_id
WHERE o.created_at < ? AND d.state IN ('pending', 'failed') GROUP BY d.channel`, cutoff.UnixMilli())
		if err != nil {
			return err
		}
		res, err := tx.ExecContext(ctx, `DELETE FROM outbox WHERE created_at < ?`, cutoff.UnixMilli())
		if err != nil {
			return err
		}
		n, err := res.RowsAffected()
		out.Events = int(n)
		return err
	})
	if err != nil {
		return Dropped{}, fmt.Errorf("drop expired events: %w", err)
	}
	return out, nil
}

// Deliveries lists deliveries in the given states (all when none), oldest
// event first, at most limit.
func (s *Store) Deliveries(ctx context.Context, limit int, states ...string) ([]Delivery, error) {
	where := ""
	args := []any{}
	if len(states) > 0 {
		where = "WHERE d.state IN (?" + strings.Repeat(", ?", len(states)-1) + ")"
		for _, st := range states {
			args = append(args, st)
		}
	}
	args = append(args, limit)
	var out []Delivery
	err := s.read(ctx, "list deliveries", func(db *sql.DB) (err error) {
		out, err = scanRows(ctx, db, scanDelivery, `SELECT `+deliveryColumns+` `+deliveryFrom+` `+where+`
ORDER BY o.created_at, d.event_id, d.channel LIMIT ?`, args...)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("list deliveries: %w", err)
	}
	return out, nil
}

// CountDeliveries counts deliveries by state.
func (s *Store) CountDeliveries(ctx context.Context) (map[string]int, error) {
	var out map[string]int
	err := s.read(ctx, "count deliveries", func(db *sql.DB) (err error) {
		out, err = countsByKey(ctx, db, `SELECT state, COUNT(*) FROM deliveries GROUP BY state`)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("count deliveries: %w", err)
	}
	return out, nil
}
