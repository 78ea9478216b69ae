package runtrace

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"time"
)

// What counts as a restart has one definition, written where the watchdog
// decides it (watchdog/cause.go): a cycle whose new instance came up and
// replaced one that had been healthy; its detail's `restart_by` says whose
// restart it was (watchdog, person, reload). A first start, a start after
// a person's stop, or the retry of a failed start has none. Everything that
// counts restarts — status, /metrics, the status page, the runbook's SQL —
// counts rows by that key, and nothing else.

// restartRow is the SQL condition of a restart row: only an ok/started or
// ok/restarted row can be one, and its detail names who.
const restartRow = `outcome = 'ok' AND reason IN ('started', 'restarted') AND json_extract(detail, '$.restart_by') IS NOT NULL`

// RestartCounts counts jobID's restarts that started at or after since, by
// who they were by ("watchdog", "person", "reload").
func (s *Store) RestartCounts(ctx context.Context, jobID string, since time.Time) (map[string]int, error) {
	var out map[string]int
	err := s.read(ctx, "count restarts", func(db *sql.DB) (err error) {
		out, err = countsByKey(ctx, db, `SELECT json_extract(detail, '$.restart_by'), count(*) FROM run_trace
WHERE job_id = ? AND started_at >= ? AND `+restartRow+` GROUP BY 1`, jobID, since.UnixMilli())
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("count restarts of %s: %w", jobID, err)
	}
	return out, nil
}

// LastRestart is jobID's newest restart, or nil, nil when it has none.
func (s *Store) LastRestart(ctx context.Context, jobID string) (*Run, error) {
	var rs []Run
	err := s.read(ctx, "find the last restart", func(db *sql.DB) (err error) {
		rs, err = scanRows(ctx, db, scanRun, `SELECT `+runColumns+` FROM run_trace
WHERE job_id = ? AND `+restartRow+` ORDER BY started_at DESC, id DESC LIMIT 1`, jobID)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("last restart of %s: %w", jobID, err)
	}
	return first(rs), nil
}

// RestartBy is a row's `restart_by`: who its restart was by, or "" when the
// row is no restart.
func RestartBy(r Run) string {
	if r.Outcome != OutcomeOK || (r.Reason != ReasonStarted && r.Reason != ReasonRestarted) {
		return ""
	}
	var d struct {
		RestartBy string `json:"restart_by"`
	}
	json.Unmarshal(r.Detail, &d) // a detail that is not an object names nobody
	return d.RestartBy
}
