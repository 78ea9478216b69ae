package runtrace

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
