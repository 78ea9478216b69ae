package runtrace

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"time"

	_ "modernc.org/sqlite" // registers the "sqlite" driver
)

// Options tune Open. The zero value is what the agent uses.
type Options struct {
	// BusyTimeout bounds how long a write waits for another process's write
	// lock (SQLite's busy_timeout plus our retries). Default 10s.
	BusyTimeout time.Duration
	// ReadOnly opens an existing, current database without ever writing:
	// no file is created and no migration runs.
	ReadOnly bool
	// Logger receives runtrace.* events. Default slog.Default().
	Logger *slog.Logger
	// Instance is the agent instance writing through this store (its
	// heartbeat's id); every run it begins names it. Empty for a CLI
	// process: its runs are reaped by their timeout only.
	Instance string
	// Boot names the boot this process runs in (Linux: the kernel's boot
	// id; see proc.BootID); every run it writes records it (boot_id), so a
	// row is told to the boot it was written in without comparing clocks.
	// Empty where the OS names no boot: the rows' boot_id is NULL.
	Boot string
}

// DefaultBusyTimeout is Options.BusyTimeout when left zero.
const DefaultBusyTimeout = 10 * time.Second

// readConns bounds the reader pool; reads never block the writer in WAL mode.
const readConns = 4

// readIdle is how long a reader connection of a read-write store (the
// agent's, a verb's) stays open unused. Each connection keeps its own page
// cache and SQLite heap; an agent that reads once a minute holds none
// between. The writer stays open: it is the one that must not fail later.
const readIdle = 10 * time.Second

// cachePages bounds each connection's page cache (PRAGMA cache_size, in
// KiB when negative). SQLite's default, 2,000 KiB a connection, fills as
// the ledger grows (a 1 s cycle adds ~3,600 rows an hour) and is then held
// for the life of the agent; what a commit or the agent's reads touch again
// (the b-trees' upper levels) is a few dozen pages, and a miss is a read
// from the OS's page cache.
const cachePages = -512

// Store is an open run_trace database. It is safe for concurrent use.
type Store struct {
	path string
	w    *sql.DB // exactly one connection: one writer per process; nil when read-only
	r    *sql.DB
	busy time.Duration
	log  *slog.Logger
	inst string
	boot string
	// stmts are the writer's prepared statements (lean_stmts.go).
	stmts prepared
}

// Open opens (creating unless o.ReadOnly) the database at path, checks it
// and brings its schema up to date. See the package comment for what it
// refuses to touch.
func Open(path string, o Options) (*Store, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("run_trace database path %q: %w", path, err)
	}
	s := &Store{path: abs, busy: o.BusyTimeout, log: o.Logger, inst: o.Instance, boot: o.Boot}
	if s.busy <= 0 {
		s.busy = DefaultBusyTimeout
	}
	if s.log == nil {
		s.log = slog.Default()
	}
	if o.ReadOnly {
		err = s.openReadOnly()
	} else {
		err = s.openReadWrite()
	}
	if err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

func (s *Store) openReadWrite() error {
	if err := prepareFile(s.path); err != nil {
		return err
	}
	if err := checkHeader(s.path); err != nil {
		return err
	}
	var err error
	if s.w, err = s.sqlOpen(writeHandle, 1); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), s.busy+30*time.Second)
	defer cancel()
	// Order matters: refuse a newer, foreign or malformed file before
	// anything writes to it (switching to WAL rewrites the header).
	st, err := s.inspect(ctx, s.w)
	if err != nil {
		return err
	}
	current := st.version == schemaVersion
	if current {
		if err := s.verifySchema(ctx, s.w, schemaVersion); err != nil {
			return err
		}
	}
	if err := s.enableWAL(ctx); err != nil {
		return err
	}
	if err := s.migrate(ctx); err != nil {
		return err
	}
	if !current {
		if err := s.verifySchema(ctx, s.w, schemaVersion); err != nil {
			return err
		}
	}
	s.prepareWriter(ctx)
	s.r, err = s.sqlOpen(readHandle, readConns)
	return err
}

func (s *Store) openReadOnly() error {
	if err := checkHeader(s.path); err != nil {
		return err
	}
	h := readOnlyHandle
	if quiescent(s.path) {
		h = readOnlyQuiescent
	}
	var err error
	if s.r, err = s.sqlOpen(h, readConns); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), s.busy+30*time.Second)
	defer cancel()
	st, err := s.inspect(ctx, s.r)
	if err != nil {
		return err
	}
	if st.version < readableFrom {
		return fmt.Errorf("run_trace database %s has schema version %d, this svc-ctl needs %d: "+
			"start the agent once (it upgrades the file), then retry", s.path, st.version, schemaVersion)
	}
	return s.verifySchema(ctx, s.r, st.version)
}

func (s *Store) sqlOpen(h handle, conns int) (*sql.DB, error) {
	db, err := sql.Open("sqlite", dsn(s.path, s.busy.Milliseconds(), h))
	if err != nil {
		return nil, fmt.Errorf("open run_trace database %s: %w", s.path, err)
	}
	db.SetMaxOpenConns(conns)
	db.SetMaxIdleConns(conns)
	db.SetConnMaxIdleTime(0)
	if h == readHandle {
		db.SetConnMaxIdleTime(readIdle)
	}
	return db, nil
}

// enableWAL switches the file to WAL once; the mode is persistent.
func (s *Store) enableWAL(ctx context.Context) error {
	return s.retry(ctx, "enable WAL", func() error {
		var mode string
		if err := s.w.QueryRowContext(ctx, "PRAGMA journal_mode").Scan(&mode); err != nil {
			return err
		}
		if mode == "wal" {
			return nil
		}
		return s.w.QueryRowContext(ctx, "PRAGMA journal_mode=WAL").Scan(&mode)
	})
}

// Path is the absolute path of the database file.
func (s *Store) Path() string { return s.path }

// Close closes both handles. The last connection to close checkpoints the WAL.
func (s *Store) Close() error {
	var errs []error
	if s.r != nil {
		errs = append(errs, s.r.Close())
		s.r = nil
	}
	if s.w != nil {
		s.closePrepared()
		errs = append(errs, s.w.Close())
		s.w = nil
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("close run_trace database %s: %w", s.path, err)
	}
	return nil
}

// writer returns the write handle, or ErrReadOnly.
func (s *Store) writer() (*sql.DB, error) {
	if s.w == nil {
		return nil, fmt.Errorf("run_trace database %s: %w", s.path, ErrReadOnly)
	}
	return s.w, nil
}
