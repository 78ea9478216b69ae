package runtrace

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// Coverage is what the ledger already knows about a job's slots, so that a
// missing-run check need not count them again: every slot that the job's
// schedule, as registered at Registered, expects in [From, Through] has at
// least one run_trace row. 40 days of a job that runs every minute are
// 57,600 slots; with coverage, a check counts only the slots since the last
// one.
//
// What keeps it true:
//   - It only grows by spans that ExtendCoverage has counted complete inside
//     the write transaction that records them, so no delete can slip in
//     between the count and the record.
//   - Rows are only ever added behind it (a late `exec`, a catch-up): an
//     added row cannot make a covered slot uncovered.
//   - A row that is deleted (Prune, a hand edit) or whose job or slot is
//     changed shrinks it, by the triggers of schema v3, in the deleting
//     transaction: From moves just past that slot, which is counted again.
//   - A new registration (a changed schedule) drops it: Register deletes it,
//     and a coverage whose Registered is not the job's is never returned.
type Coverage struct {
	Registered    time.Time
	From, Through time.Time
}

// SlotSpan is N expected slots of a job, the first at First and the last at
// Last (schedule.Span gives them). N = 0 is an empty span.
type SlotSpan struct {
	N           int
	First, Last time.Time
}

// Coverage returns jobID's recorded coverage for its current registration;
// ok is false when there is none (never recorded, recorded for an older
// registration, or shrunk to nothing).
func (s *Store) Coverage(ctx context.Context, jobID string) (c Coverage, ok bool, err error) {
	err = s.read(ctx, "read slot coverage", func(db *sql.DB) error {
		c, ok, err = readCoverage(ctx, db, jobID)
		return err
	})
	if err != nil {
		return Coverage{}, false, fmt.Errorf("read slot coverage of %s: %w", jobID, err)
	}
	return c, ok, nil
}

func readCoverage(ctx context.Context, q rowQuerier, jobID string) (Coverage, bool, error) {
	var reg, from, through int64
	err := q.QueryRowContext(ctx, `SELECT c.registered_at, c.covered_from, c.covered_through
FROM job_coverage c JOIN job_registrations r ON r.job_id = c.job_id AND r.registered_at = c.registered_at
WHERE c.job_id = ?`, jobID).Scan(&reg, &from, &through)
	if errors.Is(err, sql.ErrNoRows) || err == nil && from > through {
		return Coverage{}, false, nil
	}
	if err != nil {
		return Coverage{}, false, err
	}
	return Coverage{Registered: ms(reg), From: ms(from), Through: ms(through)}, true, nil
}

// ExtendCoverage counts, inside one write transaction, whether every slot of
// span has a row, and returns complete. When it does and base is still the
// job's recorded coverage (the zero Coverage: none recorded), it records
// base grown by span, and recorded is true.
//
// The caller promises that span adjoins base: it holds every expected slot
// between base and itself (slots just after base.Through, or just before
// base.From), so the union has no gap. With the zero base, span starts the
// coverage and registered must be the job's current registration.
//
// A base that moved since the caller read it (a row was deleted, the job
// was registered again, another process extended it) is not extended:
// complete is still counted, and the next check starts from what is
// recorded then.
//
// On a read-only store it counts and records nothing.
func (s *Store) ExtendCoverage(ctx context.Context, jobID string, registered time.Time, base Coverage, span SlotSpan) (complete, recorded bool, err error) {
	return s.extendCoverage(ctx, jobID, registered, base, span, true)
}

// StartCoverage is ExtendCoverage for a span that does not adjoin base: when
// every slot of span has a row and base is still the recorded coverage, the
// coverage becomes span alone. It is how coverage restarts after a slot that
// will never get a row (a missed run stays missed).
func (s *Store) StartCoverage(ctx context.Context, jobID string, registered time.Time, base Coverage, span SlotSpan) (complete, recorded bool, err error) {
	return s.extendCoverage(ctx, jobID, registered, base, span, false)
}

// extendCoverage is ExtendCoverage; with adjoins false the coverage becomes
// span alone (any complete span is a true coverage by itself; only a union
// needs the two to adjoin).
func (s *Store) extendCoverage(ctx context.Context, jobID string, registered time.Time, base Coverage, span SlotSpan, adjoins bool) (complete, recorded bool, err error) {
	if span.N <= 0 {
		return true, false, nil
	}
	if span.Last.Before(span.First) {
		return false, false, fmt.Errorf("extend slot coverage of %s: span ends (%s) before it starts (%s)",
			jobID, span.Last.UTC().Format(time.RFC3339), span.First.UTC().Format(time.RFC3339))
	}
	if s.w == nil {
		have, err := s.CountSlots(ctx, jobID, span.First, span.Last)
		return err == nil && have >= span.N, false, err
	}
	// Lazy: coverage is a cache. A commit lost to a power loss leaves an
	// older, smaller coverage (lazy commits are lost only as a tail), which
	// is still true; a check then counts a little more.
	err = s.lazyTx(ctx, "extend slot coverage", func(tx *sql.Tx) error {
		complete, recorded = false, false
		var have int
		if err := tx.QueryRowContext(ctx, `SELECT COUNT(DISTINCT scheduled_at) FROM run_trace
WHERE job_id = ? AND scheduled_at >= ? AND scheduled_at <= ?`, jobID, span.First.UnixMilli(), span.Last.UnixMilli()).Scan(&have); err != nil {
			return err
		}
		if complete = have >= span.N; !complete {
			return nil
		}
		var reg int64
		err := tx.QueryRowContext(ctx, `SELECT registered_at FROM job_registrations WHERE job_id = ?`, jobID).Scan(&reg)
		if errors.Is(err, sql.ErrNoRows) || err == nil && reg != registered.UnixMilli() {
			return nil // not (or no longer) this registration
		}
		if err != nil {
			return err
		}
		now, has, err := readCoverage(ctx, tx, jobID)
		if err != nil {
			return err
		}
		zero := base == Coverage{}
		if has != !zero || has && !sameCoverage(now, base) {
			return nil // moved since the caller read it
		}
		grown := Coverage{Registered: registered, From: span.First, Through: span.Last}
		if has && adjoins {
			grown = Coverage{Registered: registered, From: minTime(base.From, span.First), Through: maxTime(base.Through, span.Last)}
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO job_coverage (job_id, registered_at, covered_from, covered_through)
VALUES (?, ?, ?, ?) ON CONFLICT (job_id) DO UPDATE SET registered_at = excluded.registered_at,
covered_from = excluded.covered_from, covered_through = excluded.covered_through`,
			jobID, reg, grown.From.UnixMilli(), grown.Through.UnixMilli())
		recorded = err == nil
		return err
	})
	if err != nil {
		return false, false, fmt.Errorf("extend slot coverage of %s: %w", jobID, err)
	}
	return complete, recorded, nil
}

// SpanFunc gives a job's expected slots in (after, through]: schedule.Span
// of the job's schedule as registered.
type SpanFunc func(after, through time.Time) SlotSpan

// Covered is what CoverThrough did: the coverage recorded afterwards (Ok
// false: none), the slots it counted, and whether each of them has a row.
type Covered struct {
	Coverage Coverage
	Ok       bool
	Counted  SlotSpan
	Complete bool
}

// CoverThrough brings jobID's coverage up to through, counting only the
// slots after its end: the refresh that keeps a later check of 40 days down
// to the last few slots. A job without coverage is counted from `from`
// (exclusive: a window's start or the registration); so is one whose
// coverage ends before from, which is then replaced rather than grown, so
// no uncounted slots fall between. On a read-only store it counts and
// records nothing.
func (s *Store) CoverThrough(ctx context.Context, jobID string, registered, from, through time.Time, span SpanFunc) (Covered, error) {
	base, has, err := s.Coverage(ctx, jobID)
	if err != nil {
		return Covered{}, err
	}
	res := Covered{Coverage: base, Ok: has, Complete: true}
	after, adjoins := from, has
	switch {
	case has && !base.Through.Before(through):
		return res, nil
	case has && !base.Through.Before(from):
		after = base.Through
	case has:
		adjoins = false // ends before the window: restart the coverage in it
	}
	if res.Counted = span(after, through); res.Counted.N == 0 {
		return res, nil
	}
	if !has {
		base = Coverage{}
	}
	if res.Complete, _, err = s.extendCoverage(ctx, jobID, registered, base, res.Counted, adjoins); err != nil {
		return Covered{}, err
	}
	res.Coverage, res.Ok, err = s.Coverage(ctx, jobID)
	return res, err
}

func sameCoverage(a, b Coverage) bool {
	return a.Registered.UnixMilli() == b.Registered.UnixMilli() &&
		a.From.UnixMilli() == b.From.UnixMilli() && a.Through.UnixMilli() == b.Through.UnixMilli()
}

func ms(v int64) time.Time { return time.UnixMilli(v).UTC() }

func minTime(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}

func maxTime(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}
