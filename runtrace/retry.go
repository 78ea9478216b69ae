package runtrace

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"fmt"
	"math/rand/v2"
	"time"
)

const (
	retryFirst = 5 * time.Millisecond
	retryMax   = 250 * time.Millisecond
)

// retry runs fn until it succeeds, fails with something other than
// SQLITE_BUSY/SQLITE_LOCKED, or BusyTimeout has passed since the first try.
// busy_timeout already makes SQLite wait for most locks; this covers the
// cases where SQLite returns BUSY without calling its busy handler (WAL
// recovery, journal mode switch, snapshot upgrades). Damage is classified here
// so every caller reports it the same way.
func (s *Store) retry(ctx context.Context, op string, fn func() error) error {
	start := time.Now()
	backoff := retryFirst
	for attempt := 1; ; attempt++ {
		err := fn()
		switch {
		case err == nil:
			return nil
		case isCorrupt(err):
			return damaged(s.path, op, err)
		case !isBusy(err):
			return err
		}
		waited := time.Since(start)
		if waited >= s.busy {
			return &busyError{path: s.path, waited: waited, cause: err}
		}
		sleep := min(backoff/2+rand.N(backoff/2+1), s.busy-waited)
		s.log.Debug("runtrace.busy_retry", "op", op, "attempt", attempt, "sleep_ms", sleep.Milliseconds())
		if err := sleepCtx(ctx, sleep); err != nil {
			return fmt.Errorf("%s: %w", op, err)
		}
		backoff = min(backoff*2, retryMax)
	}
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// tx runs fn in one write transaction (BEGIN IMMEDIATE via the DSN), retried
// as a whole on busy errors: fn must not keep state across attempts.
func (s *Store) tx(ctx context.Context, op string, fn func(*sql.Tx) error) error {
	w, err := s.writer()
	if err != nil {
		return err
	}
	return s.retry(ctx, op, func() error {
		tx, err := w.BeginTx(ctx, nil)
		if err != nil {
			return err
		}
		if err := fn(tx); err != nil {
			_ = tx.Rollback()
			return err
		}
		return tx.Commit()
	})
}

// lazyTx is tx with synchronous=NORMAL for this one commit: in WAL mode the
// commit is appended to the WAL without an fsync. The writer connection is
// pinned for the whole sequence, so no other commit of this process can run
// between the two pragmas and lose its durability; a connection whose
// synchronous could not be set back to FULL is thrown away, never reused.
// A later durable commit's fsync of the WAL makes every earlier lazy commit
// durable too: lazy commits can be lost only as a tail.
func (s *Store) lazyTx(ctx context.Context, op string, fn func(*sql.Tx) error) error {
	w, err := s.writer()
	if err != nil {
		return err
	}
	return s.retry(ctx, op, func() error {
		conn, err := w.Conn(ctx)
		if err != nil {
			return err
		}
		defer conn.Close()
		if _, err := conn.ExecContext(ctx, "PRAGMA synchronous = NORMAL"); err != nil {
			return err
		}
		defer func() {
			if _, err := conn.ExecContext(context.WithoutCancel(ctx), "PRAGMA synchronous = FULL"); err != nil {
				s.log.Warn("runtrace.sync_restore_failed", "path", s.path, "err", err)
				_ = conn.Raw(func(any) error { return driver.ErrBadConn })
			}
		}()
		tx, err := conn.BeginTx(ctx, nil)
		if err != nil {
			return err
		}
		if err := fn(tx); err != nil {
			_ = tx.Rollback()
			return err
		}
		return tx.Commit()
	})
}

// read runs fn against the reader pool with the same busy/damage handling.
func (s *Store) read(ctx context.Context, op string, fn func(*sql.DB) error) error {
	return s.retry(ctx, op, func() error { return fn(s.r) })
}
