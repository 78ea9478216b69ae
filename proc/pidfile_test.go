package proc

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

func TestPidFileRoundTrip(t *testing.T) {
	path := filepath.Join(tempDir(t), "services", "proxy", "pid") // dirs do not exist yet
	want := Identity{PID: 4242, CreateTime: 1700000000123, Exe: "/usr/local/bin/proxy",
		StartedAt: time.Date(2026, 3, 1, 9, 30, 0, 0, time.UTC)}
	if err := WritePidFile(path, want); err != nil {
		t.Fatal(err)
	}
	got, err := ReadPidFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if got != want {
		t.Fatalf("round trip: got %+v, want %+v", got, want)
	}
	if runtime.GOOS != "windows" {
		assertMode(t, path, 0o600)
		assertMode(t, filepath.Dir(path), 0o700)
	}
	b, _ := os.ReadFile(path)
	for _, key := range []string{`"pid"`, `"create_time_ms"`, `"exe"`, `"started_at"`} {
		if !strings.Contains(string(b), key) {
			t.Errorf("pid file lacks key %s: %s", key, b)
		}
	}
}

func TestPidFileOverwriteLeavesNoTemp(t *testing.T) {
	dir := tempDir(t)
	path := filepath.Join(dir, "pid")
	for i := int32(1); i <= 3; i++ {
		if err := WritePidFile(path, Identity{PID: 100 + i, CreateTime: 1, Exe: "/x"}); err != nil {
			t.Fatal(err)
		}
	}
	got, err := ReadPidFile(path)
	if err != nil || got.PID != 103 {
		t.Fatalf("after overwrites: %+v, %v; want pid 103", got, err)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Fatalf("dir holds %d entries, want only the pid file: %v", len(entries), entries)
	}
}

func TestReadPidFileMissingIsNotExist(t *testing.T) {
	_, err := ReadPidFile(filepath.Join(tempDir(t), "pid"))
	if !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("err = %v, want one that errors.Is os.ErrNotExist", err)
	}
}

func TestReadPidFileBad(t *testing.T) {
	cases := map[string]string{
		"garbled":   "pid=4242\n",
		"truncated": `{"pid": 42`,
		"zero pid":  `{"pid": 0, "create_time_ms": 1, "exe": "/x"}`,
		"huge":      `{"exe": "` + strings.Repeat("a", maxPidFile) + `"}`,
	}
	for name, content := range cases {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(tempDir(t), "pid")
			if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
				t.Fatal(err)
			}
			_, err := ReadPidFile(path)
			if err == nil || !strings.Contains(err.Error(), path) {
				t.Fatalf("err = %v, want an error naming %s", err, path)
			}
			if errors.Is(err, os.ErrNotExist) {
				t.Fatalf("a bad file must not read as a missing one: %v", err)
			}
		})
	}
	t.Run("unreadable", func(t *testing.T) {
		path := filepath.Join(tempDir(t), "pid")
		if err := os.Mkdir(path, 0o700); err != nil { // a directory cannot be read as a file, even by root
			t.Fatal(err)
		}
		_, err := ReadPidFile(path)
		if err == nil || !strings.Contains(err.Error(), path) {
			t.Fatalf("err = %v, want an error naming %s", err, path)
		}
	})
}

func assertMode(t *testing.T, path string, want os.FileMode) {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if got := fi.Mode().Perm(); got != want {
		t.Errorf("%s: mode %o, want %o", path, got, want)
	}
}
