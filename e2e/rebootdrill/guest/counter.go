package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"svcctl/internal/fsutil"
)

// nextBoot increments the boot counter kept in the image and returns this
// boot's number (1 on the first). The new value is on disk, synced, before
// anything else happens: a boot that is not counted could loop for ever.
func nextBoot(path string) (int, error) {
	n := 0
	b, err := os.ReadFile(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return 0, fmt.Errorf("read boot counter: %w", err)
	default:
		if n, err = strconv.Atoi(strings.TrimSpace(string(b))); err != nil {
			return 0, fmt.Errorf("boot counter %s: %w", path, err)
		}
	}
	n++
	if err := writeSynced(path, []byte(strconv.Itoa(n)+"\n")); err != nil {
		return 0, fmt.Errorf("write boot counter: %w", err)
	}
	return n, nil
}

// writeSynced replaces path atomically and durably: temp file, fsync,
// rename, fsync of the directory (fsutil.SyncDir: a no-op where the OS has
// no directory fsync).
func writeSynced(path string, data []byte) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, ".boot-*")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name())
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if err := os.Rename(f.Name(), path); err != nil {
		return err
	}
	return fsutil.SyncDir(dir)
}
