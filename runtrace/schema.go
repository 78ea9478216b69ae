package runtrace

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
)

// applicationID marks the file as svc-ctl's ("Svct" in the header), so a
// database of some other program is refused rather than written into.
const applicationID = 0x53766374

// readableFrom is the oldest schema a read-only open accepts: every column
// and table a reader reads is there from this version on (v6 added only
// run_trace.boot_id, which no reader of this package reads). So `svc-ctl
// status` from a new binary still reads the ledger of an agent not yet
// restarted on it. A writer always migrates first.
const readableFrom = 5

// wantColumns is the shape verifySchema insists on after migrating.
var wantColumns = map[string][]string{
	"run_trace": {"id", "job_id", "trigger", "scheduled_at", "started_at", "finished_at",
		"outcome", "reason", "duration_ms", "detail", "instance_id", "boot_id", "seq"},
	"heartbeats":        {"instance_id", "pid", "version", "started_at", "boot_time", "beat_at", "mode", "hostname"},
	"job_registrations": {"job_id", "spec", "registered_at"},
	"outbox":            {"id", "run_id", "kind", "subject", "created_at", "event"},
	"deliveries": {"event_id", "channel", "state", "attempts", "next_at", "claimed_by", "claimed_until",
		"held_back", "last_error", "done_at"},
	"notify_channels": {"channel", "last_ok_at", "last_latency_ms", "last_error", "last_error_at", "failing_since"},
	"notify_sent":     {"channel", "subject", "sent_at"},
	"notify_marks":    {"key", "value", "at"},
	"job_coverage":    {"job_id", "registered_at", "covered_from", "covered_through"},
	"finish_counter":  {"id", "n"},
	"export_cursors":  {"channel", "seq", "updated_at"},
}

// wantTriggers must exist after migrating: without the slot ones a deleted
// row could hide behind a job's coverage (coverage.go); the finish ones
// number finished rows for the exporters (v7, export.go).
var wantTriggers = []string{"run_trace_slot_deleted", "run_trace_slot_moved", "run_trace_finished_insert", "run_trace_finished_update"}

// addedSince are the tables and triggers a migration after readableFrom
// created, by the version that has them: a read-only open of an older file
// expects them absent (no reader of this package reads them: the finish
// feed is the exporter's, in the agent, which migrates first).
var addedSince = map[string]int{
	"finish_counter": 7, "export_cursors": 7, "run_trace_finished_insert": 7, "run_trace_finished_update": 7,
}

type schemaState struct {
	version int
	appID   int64
	tables  []string
}

type querier interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// inspect reads the version stamps and table list and refuses files that are
// newer or not ours. It never writes.
func (s *Store) inspect(ctx context.Context, db *sql.DB) (schemaState, error) {
	var st schemaState
	err := s.retry(ctx, "read schema version", func() error {
		var err error
		st, err = readSchemaState(ctx, db)
		return err
	})
	if errors.Is(err, ErrDamaged) || errors.Is(err, ErrBusy) {
		return st, err // these already name the file and what to do
	}
	if err != nil {
		return st, fmt.Errorf("open run_trace database %s: %w", s.path, err)
	}
	return st, s.judge(st)
}

// readSchemaState reads everything in one statement, so one snapshot: read
// separately, another process's migration could commit in between and the
// file would look versionless with tables.
func readSchemaState(ctx context.Context, q querier) (schemaState, error) {
	var st schemaState
	var tables sql.NullString
	err := q.QueryRowContext(ctx, `SELECT
  (SELECT user_version FROM pragma_user_version),
  (SELECT application_id FROM pragma_application_id),
  (SELECT group_concat(name, ',') FROM (SELECT name FROM sqlite_schema
     WHERE type = 'table' AND name NOT LIKE 'sqlite\_%' ESCAPE '\' ORDER BY name))`).
		Scan(&st.version, &st.appID, &tables)
	if err != nil {
		return st, err
	}
	if tables.String != "" {
		st.tables = strings.Split(tables.String, ",")
	}
	return st, nil
}

func (s *Store) judge(st schemaState) error {
	switch {
	case st.appID != 0 && st.appID != applicationID:
		return damaged(s.path, fmt.Sprintf("not an svc-ctl database (application_id %#x)", st.appID), nil)
	case st.version > schemaVersion:
		return fmt.Errorf("run_trace database %s has schema version %d, this svc-ctl knows up to %d: "+
			"a newer svc-ctl wrote it; use that version or upgrade (the file was not changed): %w",
			s.path, st.version, schemaVersion, ErrNewerSchema)
	case st.version == 0 && len(st.tables) > 0:
		return damaged(s.path, fmt.Sprintf("no svc-ctl schema version but tables %s", strings.Join(st.tables, ", ")), nil)
	}
	return nil
}

// migrate applies the missing steps in one transaction. The version is read
// again inside it: another process may have migrated since inspect.
func (s *Store) migrate(ctx context.Context) error {
	var from int
	err := s.tx(ctx, "migrate schema", func(tx *sql.Tx) error {
		st, err := readSchemaState(ctx, tx)
		if err != nil {
			return err
		}
		if err := s.judge(st); err != nil {
			return err
		}
		from = st.version
		for _, step := range migrations[st.version:] {
			for _, stmt := range step {
				if _, err := tx.ExecContext(ctx, stmt); err != nil {
					return fmt.Errorf("schema step %q: %w", firstLine(stmt), err)
				}
			}
		}
		if from == schemaVersion {
			return nil
		}
		// PRAGMA takes no parameters; both values are our own integers.
		if _, err := tx.ExecContext(ctx, fmt.Sprintf("PRAGMA application_id = %d", applicationID)); err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, fmt.Sprintf("PRAGMA user_version = %d", schemaVersion))
		return err
	})
	if errors.Is(err, ErrDamaged) || errors.Is(err, ErrNewerSchema) || errors.Is(err, ErrBusy) {
		return err // these already name the file and what to do
	}
	if err != nil {
		return fmt.Errorf("migrate run_trace database %s: %w", s.path, err)
	}
	if from != schemaVersion {
		s.log.Info("runtrace.migrated", "path", s.path, "from", from, "to", schemaVersion)
	}
	return nil
}

// addedColumns are the columns a migration added to an existing table, by
// the version that has them: a read-only open of an older file (at least
// readableFrom) expects them absent.
var addedColumns = []struct {
	table, column string
	version       int
}{{"run_trace", "boot_id", 6}, {"run_trace", "seq", 7}}

// columnsAt is wantColumns[table] as a file at schema version v has them.
func columnsAt(table string, v int) []string {
	want := wantColumns[table]
	for _, a := range addedColumns {
		if a.table == table && v < a.version {
			want = slices.DeleteFunc(slices.Clone(want), func(c string) bool { return c == a.column })
		}
	}
	return want
}

// verifySchema catches a file whose version stamp is right but whose tables
// are not (hand-edited, or written by an unrelated program). version is the
// file's schema version (schemaVersion once migrated).
func (s *Store) verifySchema(ctx context.Context, db *sql.DB, version int) error {
	for _, table := range slices.Sorted(maps.Keys(wantColumns)) {
		if v, ok := addedSince[table]; ok && version < v {
			continue
		}
		want := columnsAt(table, version)
		var got []string
		err := s.retry(ctx, "verify schema", func() error {
			var err error
			got, err = columns(ctx, db, table)
			return err
		})
		if err != nil {
			return fmt.Errorf("verify run_trace database schema: %w", err)
		}
		if !slices.Equal(got, want) {
			return damaged(s.path, fmt.Sprintf("table %s has columns (%s), want (%s)",
				table, strings.Join(got, ", "), strings.Join(want, ", ")), nil)
		}
	}
	var triggers []string
	err := s.retry(ctx, "verify schema", func() error {
		var err error
		triggers, err = triggerNames(ctx, db)
		return err
	})
	if err != nil {
		return fmt.Errorf("verify run_trace database schema: %w", err)
	}
	for _, want := range wantTriggers {
		if v, ok := addedSince[want]; ok && version < v {
			continue
		}
		if !slices.Contains(triggers, want) {
			return damaged(s.path, fmt.Sprintf("trigger %s is missing (it keeps slot coverage and the finish feed true)", want), nil)
		}
	}
	return nil
}

func triggerNames(ctx context.Context, db *sql.DB) ([]string, error) {
	return scanRows(ctx, db, scanValue[string], "SELECT name FROM sqlite_schema WHERE type = 'trigger' ORDER BY name")
}

func columns(ctx context.Context, db *sql.DB, table string) ([]string, error) {
	return scanRows(ctx, db, scanValue[string], "SELECT name FROM pragma_table_info(?) ORDER BY cid", table)
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return s
}
