package runtrace

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// Agent run modes recorded in a heartbeat.
const (
	ModeService     = "service"
	ModeUserService = "user-service"
	ModeForeground  = "foreground"
)

// Heartbeat is one agent process's liveness row. A clean stop deletes it,
// so "stopped" (no row) and "stale" (old BeatAt) are different answers.
type Heartbeat struct {
	InstanceID string    `json:"instance_id"`
	PID        int       `json:"pid"`
	Version    string    `json:"version"`
	StartedAt  time.Time `json:"started_at"`
	BootTime   time.Time `json:"boot_time,omitzero"`
	BeatAt     time.Time `json:"beat_at"`
	Mode       string    `json:"mode"`
	Hostname   string    `json:"hostname"`
}

// Beat inserts or renews h by instance id. A zero h.BeatAt means now.
func (s *Store) Beat(ctx context.Context, h Heartbeat) error {
	if h.InstanceID == "" || h.StartedAt.IsZero() {
		return errors.New("heartbeat: instance id and start time are required")
	}
	if h.BeatAt.IsZero() {
		h.BeatAt = time.Now()
	}
	err := s.tx(ctx, "heartbeat", func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO heartbeats
(instance_id, pid, version, started_at, boot_time, beat_at, mode, hostname) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
ON CONFLICT (instance_id) DO UPDATE SET pid = excluded.pid, version = excluded.version,
  started_at = excluded.started_at, boot_time = excluded.boot_time, beat_at = excluded.beat_at,
  mode = excluded.mode, hostname = excluded.hostname`,
			h.InstanceID, h.PID, h.Version, h.StartedAt.UnixMilli(), toMS(h.BootTime), h.BeatAt.UnixMilli(),
			h.Mode, h.Hostname)
		return err
	})
	if err != nil {
		return fmt.Errorf("heartbeat of %s: %w", h.InstanceID, err)
	}
	return nil
}

// DeleteHeartbeat removes an agent's row on a clean stop. Deleting a row
// that is not there is not an error.
func (s *Store) DeleteHeartbeat(ctx context.Context, instanceID string) error {
	err := s.tx(ctx, "delete heartbeat", func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `DELETE FROM heartbeats WHERE instance_id = ?`, instanceID)
		return err
	})
	if err != nil {
		return fmt.Errorf("delete heartbeat of %s: %w", instanceID, err)
	}
	return nil
}

// Heartbeats returns every agent's row, the newest beat first.
func (s *Store) Heartbeats(ctx context.Context) ([]Heartbeat, error) {
	var out []Heartbeat
	err := s.read(ctx, "list heartbeats", func(db *sql.DB) (err error) {
		out, err = scanRows(ctx, db, scanHeartbeat, `SELECT instance_id, pid, version, started_at, boot_time, beat_at, mode, hostname
FROM heartbeats ORDER BY beat_at DESC, instance_id`)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("list heartbeats: %w", err)
	}
	return out, nil
}

// PruneHeartbeats deletes the rows of agents that have not beaten since
// before (agents that died without a clean stop) and returns how many.
func (s *Store) PruneHeartbeats(ctx context.Context, before time.Time) (int, error) {
	var n int64
	err := s.tx(ctx, "prune heartbeats", func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `DELETE FROM heartbeats WHERE beat_at < ?`, before.UnixMilli())
		if err != nil {
			return err
		}
		n, err = res.RowsAffected()
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("prune heartbeats: %w", err)
	}
	return int(n), nil
}

func scanHeartbeat(sc scanner) (Heartbeat, error) {
	var h Heartbeat
	var started, boot, beat *int64
	err := sc.Scan(&h.InstanceID, &h.PID, &h.Version, &started, &boot, &beat, &h.Mode, &h.Hostname)
	h.StartedAt, h.BootTime, h.BeatAt = fromMS(started), fromMS(boot), fromMS(beat)
	return h, err
}
