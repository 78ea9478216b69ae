package runtrace

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"svcctl/internal/fsutil"
)

// sqliteMagic starts every SQLite 3 database file.
const sqliteMagic = "SQLite format 3\x00"

// prepareFile creates the parent directory (0700) and an empty database file
// (0600) when they are missing. SQLite gives the -wal and -shm files the mode
// of the database file, so they are 0600 too. Existing files keep their mode.
func prepareFile(path string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("create state directory for %s: %w", path, err)
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, fs.ErrExist) {
		return refuseLinks(path)
	}
	if err != nil {
		return fmt.Errorf("create run_trace database %s: %w", path, err)
	}
	return f.Close()
}

// checkHeader rejects, before SQLite sees it, a file that is not a database
// or that is shorter than its own header says. An empty file is a new
// database. The size check is skipped while a journal has content (see
// walHasFrames); SQLite then reports real damage itself (SQLITE_CORRUPT).
func checkHeader(path string) error {
	if err := refuseLinks(path); err != nil {
		return err
	}
	f, err := fsutil.Open(path)
	if err != nil {
		return fmt.Errorf("open run_trace database %s: %w", path, err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return fmt.Errorf("stat run_trace database %s: %w", path, err)
	}
	if st.Size() == 0 {
		return nil
	}
	hdr := make([]byte, 100)
	if _, err := io.ReadFull(f, hdr); err != nil {
		return damaged(path, fmt.Sprintf("only %d bytes, shorter than a database header", st.Size()), nil)
	}
	if !bytes.Equal(hdr[:16], []byte(sqliteMagic)) {
		return damaged(path, "not a SQLite database (bad header)", nil)
	}
	if walHasFrames(path) {
		return nil
	}
	if want := headerSize(hdr); want > st.Size() {
		return damaged(path, fmt.Sprintf("truncated: %d bytes, the header says %d", st.Size(), want), nil)
	}
	return nil
}

// refuseLinks refuses a database, WAL, shared-memory or journal file that
// is a symbolic link: SQLite follows links, so a planted svc-ctl.db-wal
// link would have the agent write its journal over a file of the planter's
// choice. (A privileged agent also refuses a state dir others can write, so
// links cannot be planted there; this is the second line.)
func refuseLinks(path string) error {
	for _, suffix := range []string{"", "-wal", "-shm", "-journal"} {
		p := path + suffix
		fi, err := os.Lstat(p)
		if err == nil && fi.Mode()&fs.ModeSymlink != 0 {
			return fmt.Errorf("run_trace database file %s %w: remove the link (rm %s); svc-ctl never follows links in its state", p, fsutil.ErrSymlink, p)
		}
	}
	return nil
}

// headerSize is the database size the header records, or 0 when that field
// is not trustworthy (see "in-header database size" in the file format doc).
func headerSize(hdr []byte) int64 {
	pageSize := int64(binary.BigEndian.Uint16(hdr[16:18]))
	if pageSize == 1 {
		pageSize = 65536
	}
	pages := int64(binary.BigEndian.Uint32(hdr[28:32]))
	changeCounter := binary.BigEndian.Uint32(hdr[24:28])
	validFor := binary.BigEndian.Uint32(hdr[92:96])
	if pages == 0 || changeCounter != validFor {
		return 0
	}
	return pages * pageSize
}

// walHasFrames reports a WAL or rollback journal with content: then another
// process may be mid-commit or mid-checkpoint, or a crash left work that
// SQLite will replay, and the file size alone proves nothing.
func walHasFrames(path string) bool {
	for _, suffix := range []string{"-wal", "-journal"} {
		if st, err := os.Stat(path + suffix); err == nil && st.Size() > 0 {
			return true
		}
	}
	return false
}

// dsn builds a file: URI for the modernc driver. The driver consumes the
// underscore parameters; SQLite reads mode=ro. Writes use BEGIN IMMEDIATE
// (_txlock) so a transaction takes the write lock up front and waits on
// busy_timeout, instead of failing later on a read-to-write lock upgrade.
func dsn(path string, busyMS int64, h handle) string {
	p := filepath.ToSlash(path)
	if !strings.HasPrefix(p, "/") {
		p = "/" + p // windows: C:/x -> /C:/x, as SQLite's URI syntax wants
	}
	q := url.Values{}
	q.Add("_pragma", fmt.Sprintf("busy_timeout(%d)", busyMS))
	q.Add("_pragma", "foreign_keys(1)")
	switch h {
	case readOnlyHandle:
		q.Set("mode", "ro")
		q.Add("_pragma", "query_only(1)")
	case readOnlyQuiescent:
		q.Set("mode", "ro")
		q.Set("immutable", "1")
		q.Add("_pragma", "query_only(1)")
	case readHandle:
		q.Add("_pragma", "query_only(1)")
		q.Add("_pragma", fmt.Sprintf("cache_size(%d)", cachePages))
	default:
		q.Add("_pragma", fmt.Sprintf("cache_size(%d)", cachePages))
		// FULL, not NORMAL: in WAL mode NORMAL may lose the last commits on
		// power loss, and a lost row would later read as "never triggered".
		q.Add("_pragma", "synchronous(FULL)")
		q.Set("_txlock", "immediate")
	}
	u := url.URL{Scheme: "file", Path: p, RawQuery: q.Encode()}
	return u.String()
}

type handle int

const (
	writeHandle       handle = iota // the one writer connection of this process
	readHandle                      // readers beside the writer
	readOnlyHandle                  // Options.ReadOnly: never writes, never creates
	readOnlyQuiescent               // Options.ReadOnly on a ledger no writer has open (quiescent)
)

// quiescent reports a database that no connection has open in WAL mode and
// that has nothing to replay: no -wal and no -shm beside it (a writer that
// closes cleanly checkpoints and removes both). Every commit is then in the
// main file, and a reader opens it immutable: SQLite would otherwise create
// the -wal and -shm to read it, which a read-only state dir refuses ("attempt
// to write a readonly database": the reader could not read a stopped agent's
// ledger at all), and which root, reading a per-user agent's state dir, would
// leave behind owned by root, for that agent to fail on at its next start.
// A writer that opens the file meanwhile commits to its WAL, which this
// reader does not see: it keeps reading the state of the last checkpoint,
// consistent, until that writer's first checkpoint (at 1000 pages); a
// reader still open then may get an error, and the next open finds the -shm
// and reads normally. Readers are short-lived (one command, one page
// request).
func quiescent(path string) bool {
	for _, suffix := range []string{"-wal", "-shm", "-journal"} {
		if _, err := os.Lstat(path + suffix); !errors.Is(err, fs.ErrNotExist) {
			return false
		}
	}
	return true
}
