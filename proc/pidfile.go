package proc

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"svcctl/internal/fsutil"
)

// maxPidFile bounds what ReadPidFile reads: a pid file is a few hundred bytes.
const maxPidFile = 64 << 10

// WritePidFile records a leader's identity alone (no cgroup or job): see
// WriteInstance.
func WritePidFile(path string, id Identity) error {
	return WriteInstance(path, Instance{Identity: id})
}

// ReadPidFile reads the leader's identity of a record: see ReadInstance.
func ReadPidFile(path string) (Identity, error) {
	inst, err := ReadInstance(path)
	return inst.Identity, err
}

// WriteInstance records inst at path as JSON, atomically: a temporary file
// in the same directory is written, synced and renamed over path, so a
// reader sees the old record or the new one, never half of one. The file is
// 0600, a missing directory is created 0700. The record is a reference for
// the next identity check, never a liveness verdict.
//
// The leader's fields stay at the top level, as in a legacy pid file
// ({"pid", "create_time_ms", "exe", "started_at"}), so either version reads
// the other's records.
//
// A pending record beside it (PendingPath: written before the spawn) is
// removed once this record is written.
func WriteInstance(path string, inst Instance) error {
	b, err := json.MarshalIndent(inst, "", "  ")
	if err != nil {
		return fmt.Errorf("write pid file %s: %w", path, err)
	}
	if err := writeRecord(path, append(b, '\n')); err != nil {
		return err
	}
	clearPending(path)
	return nil
}

// writeRecord writes b at path atomically: a temporary file in the same
// directory, synced, renamed over path, the directory synced.
func writeRecord(path string, b []byte) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("write pid file %s: %w", path, err)
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".*.tmp") // 0600
	if err != nil {
		return fmt.Errorf("write pid file %s: %w", path, err)
	}
	if err := writeSynced(tmp, b); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("write pid file %s: %w", path, err)
	}
	if err := fsutil.Rename(tmp.Name(), path); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("write pid file %s: %w", path, err)
	}
	syncDir(dir)
	return nil
}

func writeSynced(f *os.File, b []byte) error {
	_, err := f.Write(b)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// syncDir makes the rename durable where the OS allows syncing a directory;
// where it does not (Windows), the rename is still atomic.
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		d.Close()
	}
}

// ReadInstance reads a record WriteInstance (or the legacy WritePidFile)
// wrote. A legacy record has no start stamp and is matched by its create
// time (see Identity). A missing file gives an error that errors.Is(err,
// os.ErrNotExist); a garbled one names the file.
//
// A pending record beside it (a spawn whose caller died before it wrote
// this record) names the newer instance while a process carries its marker:
// that instance is returned instead.
func ReadInstance(path string) (Instance, error) {
	inst, err := readInstance(path)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return inst, err
	}
	var rec *Instance
	if err == nil {
		rec = &inst
	}
	if p, ok := pendingInstance(path, rec); ok {
		return p, nil
	}
	return inst, err
}

func readInstance(path string) (Instance, error) {
	f, err := fsutil.Open(path) // a planted link must not name another record
	if err != nil {
		return Instance{}, fmt.Errorf("read pid file: %w", err)
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxPidFile+1))
	if err != nil {
		return Instance{}, fmt.Errorf("read pid file %s: %w", path, err)
	}
	if len(b) > maxPidFile {
		return Instance{}, garbled(path, fmt.Errorf("larger than %d bytes", maxPidFile))
	}
	var inst Instance
	if err := json.Unmarshal(b, &inst); err != nil {
		return Instance{}, garbled(path, err)
	}
	if inst.PID <= 0 {
		return Instance{}, garbled(path, fmt.Errorf("pid %d: %w", inst.PID, ErrInvalidIdentity))
	}
	return inst, nil
}

// garbled explains a pid file that cannot be used. Without it svc-ctl cannot
// prove which process is the old instance, so it will not stop any.
func garbled(path string, err error) error {
	return fmt.Errorf("pid file %s is not a valid svc-ctl pid record: %w; "+
		"stop the old instance by hand if it still runs, then delete the file", path, err)
}
