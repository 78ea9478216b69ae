package runtrace

import (
	"bytes"
	"crypto/rand"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func schemaOf(t *testing.T, s *Store) schemaState {
	t.Helper()
	st, err := readSchemaState(ctxb, s.r)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

func TestOpenCreatesCurrentSchema(t *testing.T) {
	path := dbPath(t)
	s := openT(t, path)
	st := schemaOf(t, s)
	if st.version != schemaVersion || st.appID != applicationID {
		t.Fatalf("version %d app %#x, want %d %#x", st.version, st.appID, schemaVersion, applicationID)
	}
	want := []string{"deliveries", "export_cursors", "finish_counter", "heartbeats", "job_coverage", "job_registrations", "notify_channels", "notify_marks",
		"notify_sent", "outbox", "run_trace"}
	if fmt.Sprint(st.tables) != fmt.Sprint(want) {
		t.Fatalf("tables %v, want %v", st.tables, want)
	}
	var mode string
	if err := s.r.QueryRow("PRAGMA journal_mode").Scan(&mode); err != nil || mode != "wal" {
		t.Fatalf("journal_mode %q, %v; want wal", mode, err)
	}
	if s.Path() != path {
		t.Fatalf("Path() = %q, want %q", s.Path(), path)
	}
}

func TestOpenPragmas(t *testing.T) {
	s := newStore(t)
	for _, c := range []struct {
		pragma string
		want   int64
	}{{"busy_timeout", DefaultBusyTimeout.Milliseconds()}, {"foreign_keys", 1}, {"synchronous", 2}} {
		var got int64
		if err := s.w.QueryRow("PRAGMA " + c.pragma).Scan(&got); err != nil || got != c.want {
			t.Errorf("writer PRAGMA %s = %d, %v; want %d", c.pragma, got, err, c.want)
		}
	}
	if got := s.w.Stats().MaxOpenConnections; got != 1 {
		t.Errorf("writer MaxOpenConnections = %d, want 1", got)
	}
}

func TestReopenKeepsRows(t *testing.T) {
	path := dbPath(t)
	s := openT(t, path)
	id := mustRecord(t, s, Run{JobID: "job:a", StartedAt: t0, Outcome: OutcomeOK, Reason: ReasonCompleted})
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s2 := openT(t, path)
	if r := getRun(t, s2, id); r.JobID != "job:a" || r.Outcome != OutcomeOK {
		t.Fatalf("after reopen: %+v", r)
	}
	if st := schemaOf(t, s2); st.version != schemaVersion {
		t.Fatalf("version %d after reopen", st.version)
	}
}

func TestMigrateFromEmptyFile(t *testing.T) {
	path := dbPath(t)
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	s := openT(t, path)
	if st := schemaOf(t, s); st.version != schemaVersion {
		t.Fatalf("version %d, want %d", st.version, schemaVersion)
	}
}

// The previous schema of v1 is "none": a valid SQLite file that was never
// migrated (user_version 0, no tables), as a crash before the first
// migration committed would leave it.
func TestMigrateFromPreviousVersion(t *testing.T) {
	path := dbPath(t)
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	raw := rawDB(t, path)
	mustExec(t, raw, "CREATE TABLE t (x)", "DROP TABLE t")
	raw.Close()
	if st, err := os.Stat(path); err != nil || st.Size() == 0 {
		t.Fatalf("fixture not written: %v", err)
	}
	s := openT(t, path)
	if st := schemaOf(t, s); st.version != schemaVersion || len(st.tables) != len(wantColumns) {
		t.Fatalf("after migration: %+v", st)
	}
	mustRecord(t, s, Run{JobID: "job:a", StartedAt: t0, Outcome: OutcomeOK, Reason: ReasonCompleted})
}

func TestNewerSchemaRefusedUntouched(t *testing.T) {
	path := dbPath(t)
	s := openT(t, path)
	mustRecord(t, s, Run{JobID: "job:a", StartedAt: t0, Outcome: OutcomeOK, Reason: ReasonCompleted})
	s.Close()
	raw := rawDB(t, path)
	mustExec(t, raw, fmt.Sprintf("PRAGMA user_version = %d", schemaVersion+1))
	raw.Close()
	before := readFile(t, path)

	for _, ro := range []bool{false, true} {
		_, err := Open(path, Options{ReadOnly: ro, Logger: quietLogger()})
		if !errors.Is(err, ErrNewerSchema) {
			t.Fatalf("ReadOnly=%v: Open = %v, want ErrNewerSchema", ro, err)
		}
		if !strings.Contains(err.Error(), path) {
			t.Errorf("error does not name the file: %v", err)
		}
	}
	if !bytes.Equal(readFile(t, path), before) {
		t.Fatal("Open changed a database with a newer schema")
	}
}

func TestDamagedFiles(t *testing.T) {
	cases := []struct {
		name, says string
		build      func(t *testing.T, path string)
	}{
		{"random bytes", "not a SQLite database", func(t *testing.T, path string) {
			b := make([]byte, 8192)
			rand.Read(b)
			writeFixture(t, path, b)
		}},
		{"short garbage", "shorter than a database header", func(t *testing.T, path string) { writeFixture(t, path, []byte("not a db")) }},
		{"truncated", "truncated", func(t *testing.T, path string) {
			seedRuns(t, path, 3000)
			b := readFile(t, path)
			writeFixture(t, path, b[:len(b)/2])
		}},
		{"header only", "truncated", func(t *testing.T, path string) {
			seedRuns(t, path, 10)
			writeFixture(t, path, readFile(t, path)[:100])
		}},
		{"foreign run_trace, unversioned", "no svc-ctl schema version but tables run_trace", func(t *testing.T, path string) {
			raw := rawDB(t, path)
			mustExec(t, raw, "CREATE TABLE run_trace (id INTEGER PRIMARY KEY, name TEXT)")
			raw.Close()
		}},
		{"foreign run_trace, current version", "table run_trace has columns (id, name)", func(t *testing.T, path string) {
			raw := rawDB(t, path)
			mustExec(t, raw, "CREATE TABLE run_trace (id INTEGER PRIMARY KEY, name TEXT)")
			for _, step := range migrations { // the other tables as they should be
				for _, stmt := range step {
					if !strings.Contains(stmt, " run_trace ") {
						mustExec(t, raw, stmt)
					}
				}
			}
			mustExec(t, raw, fmt.Sprintf("PRAGMA application_id = %d", applicationID),
				fmt.Sprintf("PRAGMA user_version = %d", schemaVersion))
			raw.Close()
		}},
		{"another program's database", "not an svc-ctl database", func(t *testing.T, path string) {
			raw := rawDB(t, path)
			mustExec(t, raw, "CREATE TABLE notes (body TEXT)", "PRAGMA application_id = 1234")
			raw.Close()
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "svc-ctl.db")
			c.build(t, path)
			before := readFile(t, path)
			for _, ro := range []bool{false, true} {
				_, err := Open(path, Options{ReadOnly: ro, Logger: quietLogger()})
				if !errors.Is(err, ErrDamaged) {
					t.Fatalf("ReadOnly=%v: Open = %v, want ErrDamaged", ro, err)
				}
				msg := err.Error()
				if !strings.Contains(msg, path) || !strings.Contains(msg, "move the file aside") ||
					!strings.Contains(msg, c.says) {
					t.Errorf("message should name the file, say %q and what to do: %s", c.says, msg)
				}
			}
			if !bytes.Equal(readFile(t, path), before) {
				t.Fatal("Open changed a damaged file")
			}
		})
	}
}

// Damage SQLite only finds when it reads a page is reported the same way.
func TestDamagedPagesFoundByQuery(t *testing.T) {
	path := filepath.Join(t.TempDir(), "svc-ctl.db")
	seedRuns(t, path, 3000)
	b := readFile(t, path)
	pageSize := int(b[16])<<8 | int(b[17])
	junk := make([]byte, len(b)-pageSize)
	rand.Read(junk)
	copy(b[pageSize:], junk) // keep page 1 (header and schema), garble the rest
	writeFixture(t, path, b)

	s, err := Open(path, Options{Logger: quietLogger()})
	if err != nil {
		if errors.Is(err, ErrDamaged) {
			t.Logf("found at open: %v", err)
			return // as good
		}
		t.Fatalf("Open = %v, want nil or ErrDamaged", err)
	}
	defer s.Close()
	_, err1 := s.Runs(ctxb, Filter{})
	err2 := s.IntegrityCheck(ctxb)
	for _, err := range []error{err1, err2} {
		if !errors.Is(err, ErrDamaged) || !strings.Contains(err.Error(), path) {
			t.Errorf("got %v, want ErrDamaged naming %s", err, path)
		}
	}
}

func TestReadOnly(t *testing.T) {
	path := dbPath(t)
	if _, err := Open(path, Options{ReadOnly: true}); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("read-only open of a missing file = %v, want not-exist", err)
	}
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Fatal("read-only open created the file")
	}
	s := openT(t, path)
	mustRecord(t, s, Run{JobID: "job:a", StartedAt: t0, Outcome: OutcomeOK, Reason: ReasonCompleted})

	ro, err := Open(path, Options{ReadOnly: true, Logger: quietLogger()})
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	if n, err := ro.Count(ctxb, Filter{}); err != nil || n != 1 {
		t.Fatalf("read-only Count = %d, %v; want 1", n, err)
	}
	if _, err := ro.Begin(ctxb, "job:a", TriggerManual, time.Time{}, t0); !errors.Is(err, ErrReadOnly) {
		t.Fatalf("read-only Begin = %v, want ErrReadOnly", err)
	}
}

// A reader of a newer svc-ctl reads the ledger of an agent not yet restarted
// on it, from readableFrom on, and changes nothing in it; an older file
// asks for the agent to upgrade it.
func TestReadOnlyReadsOlderLedger(t *testing.T) {
	for v := readableFrom - 1; v < schemaVersion; v++ {
		path := dbPath(t)
		s := openT(t, path)
		mustRecord(t, s, Run{JobID: "job:a", StartedAt: t0, Outcome: OutcomeOK, Reason: ReasonCompleted})
		s.Close()
		downgrade(t, rawDB(t, path), v)
		ro, err := Open(path, Options{ReadOnly: true, Logger: quietLogger()})
		if v < readableFrom {
			if err == nil || !strings.Contains(err.Error(), "start the agent once") {
				t.Errorf("schema %d: read-only Open = %v, want advice to start the agent", v, err)
			}
			if err == nil {
				ro.Close()
			}
			continue
		}
		if err != nil {
			t.Fatalf("schema %d: read-only Open: %v", v, err)
		}
		if rs, err := ro.Runs(ctxb, Filter{}); err != nil || len(rs) != 1 {
			t.Errorf("schema %d: Runs = %d rows, %v; want 1", v, len(rs), err)
		}
		if st := schemaOf(t, ro); st.version != v {
			t.Errorf("schema %d: a read-only open changed the file to version %d", v, st.version)
		}
		ro.Close()
	}
}

func TestReadOnlyRefusesUnmigrated(t *testing.T) {
	path := filepath.Join(t.TempDir(), "svc-ctl.db")
	writeFixture(t, path, nil)
	_, err := Open(path, Options{ReadOnly: true, Logger: quietLogger()})
	if err == nil || !strings.Contains(err.Error(), "start the agent once") {
		t.Fatalf("Open = %v, want advice to start the agent", err)
	}
}

func TestBusyWaitsThenSucceeds(t *testing.T) {
	path := dbPath(t)
	s := openT(t, path)
	holder := lockWriter(t, path)
	released := make(chan struct{})
	time.AfterFunc(200*time.Millisecond, func() { holder.Rollback(); close(released) })
	if _, err := s.Begin(ctxb, "job:a", TriggerManual, time.Time{}, t0); err != nil {
		t.Fatalf("Begin while another connection briefly held the write lock: %v", err)
	}
	<-released
}

func TestBusyTimeoutIsExplained(t *testing.T) {
	path := dbPath(t)
	openT(t, path).Close()
	s, err := Open(path, Options{BusyTimeout: 300 * time.Millisecond, Logger: quietLogger()})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	holder := lockWriter(t, path)
	defer holder.Rollback()
	_, err = s.Begin(ctxb, "job:a", TriggerManual, time.Time{}, t0)
	if !errors.Is(err, ErrBusy) {
		t.Fatalf("Begin under a held lock = %v, want ErrBusy", err)
	}
	if msg := err.Error(); strings.Contains(msg, "database is locked") || !strings.Contains(msg, path) {
		t.Fatalf("message should explain and name the file, not echo SQLite: %s", msg)
	}
}

func writeFixture(t *testing.T, path string, b []byte) {
	t.Helper()
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, suffix := range []string{"-wal", "-shm"} {
		os.Remove(path + suffix)
	}
}

// seedRuns builds a closed, checkpointed database with n finished runs.
func seedRuns(t *testing.T, path string, n int) {
	t.Helper()
	s, err := Open(path, Options{Logger: quietLogger()})
	if err != nil {
		t.Fatal(err)
	}
	bulkInsert(t, s, "job:seed", t0, n)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
}

// Write transactions take the write lock at BEGIN (BEGIN IMMEDIATE), so they
// wait on busy_timeout up front instead of failing later on a lock upgrade.
func TestWriteTransactionsTakeLockUpFront(t *testing.T) {
	path := dbPath(t)
	openT(t, path).Close()
	s, err := Open(path, Options{BusyTimeout: 100 * time.Millisecond, Logger: quietLogger()})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	holder := lockWriter(t, path)
	defer holder.Rollback()
	tx, err := s.w.BeginTx(ctxb, nil)
	if err == nil {
		tx.Rollback()
		t.Fatal("BEGIN succeeded while another connection held the write lock: not BEGIN IMMEDIATE")
	}
	if !isBusy(err) {
		t.Fatalf("BEGIN under a held lock: %v, want SQLITE_BUSY", err)
	}
}

// TestReadOnlyOfAStoppedLedgerCreatesNothing: a ledger no writer has open
// (checkpointed, no -wal, no -shm) is read without creating either file, so
// a read-only state dir can be read and root leaves nothing behind in a
// per-user agent's; with a writer attached, readers see its newest commits.
func TestReadOnlyOfAStoppedLedgerCreatesNothing(t *testing.T) {
	path := dbPath(t)
	w, err := Open(path, Options{Logger: quietLogger()})
	if err != nil {
		t.Fatal(err)
	}
	mustRecord(t, w, Run{JobID: "job:a", StartedAt: t0, Outcome: OutcomeOK, Reason: ReasonCompleted})
	w.Close()
	names := func() string {
		es, _ := os.ReadDir(filepath.Dir(path))
		var out []string
		for _, e := range es {
			out = append(out, e.Name())
		}
		return strings.Join(out, " ")
	}
	before := names()
	if before != "svc-ctl.db" {
		t.Fatalf("a closed ledger left %q beside it, want only svc-ctl.db", before)
	}
	ro, err := Open(path, Options{ReadOnly: true, Logger: quietLogger()})
	if err != nil {
		t.Fatal(err)
	}
	if n, err := ro.Count(ctxb, Filter{}); err != nil || n != 1 {
		t.Fatalf("read-only Count = %d, %v; want 1", n, err)
	}
	// A writer that starts meanwhile does not break the reader: it reads
	// the last checkpoint's state.
	w2 := openT(t, path)
	mustRecord(t, w2, Run{JobID: "job:a", StartedAt: t0.Add(time.Minute), Outcome: OutcomeOK, Reason: ReasonCompleted})
	if n, err := ro.Count(ctxb, Filter{}); err != nil || n != 1 {
		t.Errorf("quiescent reader with a writer started since: Count = %d, %v; want 1 (the checkpointed state)", n, err)
	}
	ro.Close()
	ro2, err := Open(path, Options{ReadOnly: true, Logger: quietLogger()})
	if err != nil {
		t.Fatal(err)
	}
	defer ro2.Close()
	if n, err := ro2.Count(ctxb, Filter{}); err != nil || n != 2 {
		t.Errorf("reader opened beside a writer: Count = %d, %v; want 2 (the WAL's commits too)", n, err)
	}
	ro2.Close()
	w2.Close()
	if got := names(); got != before {
		t.Errorf("after the readers the dir holds %q, want %q", got, before)
	}
}
