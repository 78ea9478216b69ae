package runtrace

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// Register records that jobID exists with spec (its schedule and zone, as
// the caller spells them) and returns since when: at for a new job or a
// changed spec, the old time for an unchanged one. Slots before that time
// are not missing runs: the job (in this form) did not exist yet.
func (s *Store) Register(ctx context.Context, jobID, spec string, at time.Time) (time.Time, error) {
	if jobID == "" || at.IsZero() {
		return time.Time{}, errors.New("register job: job id and time are required")
	}
	var since int64
	err := s.tx(ctx, "register job", func(tx *sql.Tx) error {
		var old string
		err := tx.QueryRowContext(ctx, `SELECT spec, registered_at FROM job_registrations WHERE job_id = ?`, jobID).
			Scan(&old, &since)
		switch {
		case err == nil && old == spec:
			return nil
		case err != nil && !errors.Is(err, sql.ErrNoRows):
			return err
		}
		since = at.UnixMilli()
		_, err = tx.ExecContext(ctx, `INSERT INTO job_registrations (job_id, spec, registered_at) VALUES (?, ?, ?)
ON CONFLICT (job_id) DO UPDATE SET spec = excluded.spec, registered_at = excluded.registered_at`,
			jobID, spec, since)
		if err != nil {
			return err
		}
		// A new spec expects other slots: what was known covered under the
		// old one says nothing about them.
		_, err = tx.ExecContext(ctx, `DELETE FROM job_coverage WHERE job_id = ?`, jobID)
		return err
	})
	if err != nil {
		return time.Time{}, fmt.Errorf("register job %s: %w", jobID, err)
	}
	return time.UnixMilli(since).UTC(), nil
}

// Registered returns since when jobID has had its current spec, and false
// when it was never registered.
func (s *Store) Registered(ctx context.Context, jobID string) (time.Time, bool, error) {
	var since int64
	found := false
	err := s.read(ctx, "read job registration", func(db *sql.DB) error {
		err := db.QueryRowContext(ctx, `SELECT registered_at FROM job_registrations WHERE job_id = ?`, jobID).Scan(&since)
		if errors.Is(err, sql.ErrNoRows) {
			found = false
			return nil
		}
		found = err == nil
		return err
	})
	if err != nil {
		return time.Time{}, false, fmt.Errorf("read registration of %s: %w", jobID, err)
	}
	if !found {
		return time.Time{}, false, nil
	}
	return time.UnixMilli(since).UTC(), true, nil
}

// Registrations returns every job's registered spec (job id -> spec): what a
// reader that cannot load the config knows of the jobs.
func (s *Store) Registrations(ctx context.Context) (map[string]string, error) {
	type reg struct{ id, spec string }
	var regs []reg
	err := s.read(ctx, "read job registrations", func(db *sql.DB) (err error) {
		regs, err = scanRows(ctx, db, func(sc scanner) (reg, error) {
			var r reg
			return r, sc.Scan(&r.id, &r.spec)
		}, `SELECT job_id, spec FROM job_registrations`)
		return err
	})
	out := make(map[string]string, len(regs))
	for _, r := range regs {
		out[r.id] = r.spec
	}
	return out, err
}

// JobIDs returns every job id that has a row.
func (s *Store) JobIDs(ctx context.Context) ([]string, error) {
	var out []string
	err := s.read(ctx, "read job ids", func(db *sql.DB) (err error) {
		out, err = scanRows(ctx, db, scanValue[string], `SELECT DISTINCT job_id FROM run_trace`)
		return err
	})
	return out, err
}
