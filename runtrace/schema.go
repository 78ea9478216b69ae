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

// migrations[i] brings the schema from version i to i+1. Forward only: a
// released step is never edited, a change is a new step. schemaVersion is
// what this binary writes and reads.
var migrations = [][]string{
	// v1
	{
		`CREATE TABLE run_trace (
  id           INTEGER PRIMARY KEY,
  job_id       TEXT    NOT NULL,
  trigger      TEXT    NOT NULL,
  scheduled_at INTEGER,
  started_at   INTEGER NOT NULL,
  finished_at  INTEGER,
  outcome      TEXT    NOT NULL CHECK (outcome IN ('running','ok','skipped','failed')),
  reason       TEXT,
  duration_ms  INTEGER,
  detail       TEXT,
  CHECK (outcome IN ('running','ok') OR reason IS NOT NULL AND reason <> '')
)`,
		// runs --job J --since D, Latest, LatestBefore: newest first per job.
		`CREATE INDEX run_trace_job_started ON run_trace (job_id, started_at)`,
		// runs without --job, and Prune's started_at < cutoff. job_id rides
		// along so a prefix filter walking this index needs no table reads.
		`CREATE INDEX run_trace_started ON run_trace (started_at, job_id)`,
		// missing-run detection; watchdog rows have no slot, so keep them out.
		`CREATE INDEX run_trace_job_slot ON run_trace (job_id, scheduled_at) WHERE scheduled_at IS NOT NULL`,
		// the reaper and "runs that never finished" read only running rows.
		`CREATE INDEX run_trace_running ON run_trace (started_at) WHERE outcome = 'running'`,
		`CREATE TABLE heartbeats (
  instance_id TEXT    PRIMARY KEY,
  pid         INTEGER NOT NULL,
  version     TEXT    NOT NULL,
  started_at  INTEGER NOT NULL,
  boot_time   INTEGER,
  beat_at     INTEGER NOT NULL,
  mode        TEXT    NOT NULL,
  hostname    TEXT    NOT NULL
)`,
		`CREATE TABLE job_registrations (
  job_id        TEXT    PRIMARY KEY,
  spec          TEXT    NOT NULL,
  registered_at INTEGER NOT NULL
)`,
	},
	// v2: the outbox (notifications). An event is written in the same
	// transaction as the run row that raised it; one delivery row per
	// channel that wants it.
	{
		`CREATE TABLE outbox (
  id         TEXT    PRIMARY KEY,
  run_id     INTEGER,
  kind       TEXT    NOT NULL,
  subject    TEXT    NOT NULL,
  created_at INTEGER NOT NULL,
  event      TEXT    NOT NULL
)`,
		`CREATE INDEX outbox_created ON outbox (created_at)`,
		`CREATE TABLE deliveries (
  event_id      TEXT    NOT NULL REFERENCES outbox (id) ON DELETE CASCADE,
  channel       TEXT    NOT NULL,
  state         TEXT    NOT NULL CHECK (state IN ('pending','delivered','failed','held')),
  attempts      INTEGER NOT NULL DEFAULT 0,
  next_at       INTEGER NOT NULL,
  claimed_by    TEXT,
  claimed_until INTEGER,
  held_back     INTEGER NOT NULL DEFAULT 0,
  last_error    TEXT,
  done_at       INTEGER,
  PRIMARY KEY (event_id, channel)
)`,
		// the sender's one question: what is due now.
		`CREATE INDEX deliveries_due ON deliveries (channel, next_at) WHERE state = 'pending'`,
		`CREATE TABLE notify_channels (
  channel         TEXT    PRIMARY KEY,
  last_ok_at      INTEGER,
  last_latency_ms INTEGER,
  last_error      TEXT,
  last_error_at   INTEGER,
  failing_since   INTEGER
)`,
		// min_interval: when each channel last sent something about a subject.
		`CREATE TABLE notify_sent (
  channel TEXT    NOT NULL,
  subject TEXT    NOT NULL,
  sent_at INTEGER NOT NULL,
  PRIMARY KEY (channel, subject)
)`,
		// what the agent last told people about each subject (down, given-up,
		// ok), and other small marks (the job.missing watermark).
		`CREATE TABLE notify_marks (
  key   TEXT    PRIMARY KEY,
  value TEXT    NOT NULL,
  at    INTEGER NOT NULL
)`,
	},
	// v3: slot coverage (coverage.go): per job, a span of slots known to
	// have rows, so that missing-run checks count only the slots outside it.
	// The triggers are what make it safe: whatever deletes a slotted row or
	// moves it (Prune, a hand edit), the span shrinks in the same
	// transaction to start after that slot, so no coverage can hide it.
	{
		`CREATE TABLE job_coverage (
  job_id          TEXT    PRIMARY KEY,
  registered_at   INTEGER NOT NULL,
  covered_from    INTEGER NOT NULL,
  covered_through INTEGER NOT NULL
)`,
		`CREATE TRIGGER run_trace_slot_deleted AFTER DELETE ON run_trace
WHEN OLD.scheduled_at IS NOT NULL
BEGIN
  UPDATE job_coverage SET covered_from = OLD.scheduled_at + 1
  WHERE job_id = OLD.job_id AND OLD.scheduled_at BETWEEN covered_from AND covered_through;
END`,
		`CREATE TRIGGER run_trace_slot_moved AFTER UPDATE OF job_id, scheduled_at ON run_trace
WHEN OLD.scheduled_at IS NOT NULL
BEGIN
  UPDATE job_coverage SET covered_from = OLD.scheduled_at + 1
  WHERE job_id = OLD.job_id AND OLD.scheduled_at BETWEEN covered_from AND covered_through;
END`,
	},
	// v4: each run names the agent instance that wrote it (its heartbeat's
	// instance_id; NULL for a CLI process, which has none), so the reaper
	// can finish the runs of an agent that is provably gone at once instead
	// of waiting out their timeout.
	{
		`ALTER TABLE run_trace ADD COLUMN instance_id TEXT`,
	},
	// v5: the runs that say something (every run but a healthy cycle that
	// found the service healthy), per job in time order: the status page's
	// timeline marks (Notable). Without it a week of a 1 s cycle read
	// 600 000 rows to find the hundred or so worth a mark; routine rows,
	// the vast majority, never enter it, so it costs writes almost nothing.
	// The WHERE is the `routine` condition of timeline.go, word for word:
	// SQLite uses a partial index only for a query that states its WHERE.
	{
		`CREATE INDEX run_trace_notable ON run_trace (job_id, started_at) WHERE NOT (` + routine + `)`,
	},
	// v6: each run names the boot it was written in (Options.Boot: Linux's
	// kernel boot id; NULL where the OS names none, and in rows written
	// before v6), so a row is told to its boot by what it says, not by
	// comparing its time with a boot time: a row written a second before a
	// reboot and the next boot's first row are seconds apart, and a clock
	// window cannot tell them apart.
	{
		`ALTER TABLE run_trace ADD COLUMN boot_id TEXT`,
	},
	// v7: the finish feed (export.go). Each row gets, when it is finished
	// (inserted finished, or updated from running), the next number of a
	// counter that only grows: seq orders rows by when they were finished,
	// across every writer (agent, CLI, reaper, a row written late), so an
	// exporter's cursor over seq never skips a row that finished after a
	// later-started one. Triggers, so no write path can forget it. A gap in
	// seq below a cursor is a row deleted before it was exported (pruned).
	{
		`CREATE TABLE finish_counter (id INTEGER PRIMARY KEY CHECK (id = 1), n INTEGER NOT NULL)`,
		`INSERT INTO finish_counter (id, n) VALUES (1, 0)`,
		`ALTER TABLE run_trace ADD COLUMN seq INTEGER`,
		`CREATE INDEX run_trace_seq ON run_trace (seq) WHERE seq IS NOT NULL`,
		`CREATE TRIGGER run_trace_finished_insert AFTER INSERT ON run_trace
WHEN NEW.outcome <> 'running'
BEGIN
  UPDATE finish_counter SET n = n + 1 WHERE id = 1;
  UPDATE run_trace SET seq = (SELECT n FROM finish_counter WHERE id = 1) WHERE id = NEW.id;
END`,
		`CREATE TRIGGER run_trace_finished_update AFTER UPDATE OF outcome ON run_trace
WHEN OLD.outcome = 'running' AND NEW.outcome <> 'running'
BEGIN
  UPDATE finish_counter SET n = n + 1 WHERE id = 1;
  UPDATE run_trace SET seq = (SELECT n FROM finish_counter WHERE id = 1) WHERE id = NEW.id;
END`,
		// Per exporting channel: the seq of the last row it delivered.
		`CREATE TABLE export_cursors (
  channel    TEXT    PRIMARY KEY,
  seq        INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
)`,
	},
}

var schemaVersion = len(migrations)

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
