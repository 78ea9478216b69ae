package snapshot

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"svcctl/internal/fsutil"
)

// sample is an entry as the agent would build it; i makes entries distinct.
func sample(i int) Entry {
	return Entry{
		Time:         time.Date(2025, 3, 1, 9, 30, i%60, 0, time.FixedZone("CST", 8*3600)),
		Service:      "proxy",
		Reason:       RestartUnhealthy,
		Phase:        PhasePreRestart,
		NoProgressMS: int64(i),
		Transitions: []Transition{
			{At: time.Date(2025, 3, 1, 1, 0, 0, 0, time.UTC), From: "healthy", To: "unhealthy", Why: "http 503"},
		},
		Probes:   map[string]any{"first": map[string]any{"healthy": false, "reason": "status 503"}},
		Process:  map[string]any{"pid": 4242, "exe": "/usr/local/bin/proxy"},
		LogTail:  []string{"listening on 127.0.0.1:8789", "upstream timeout"},
		EnvNames: []string{"HTTPS_PROXY", "HOME"},
		RunID:    int64(i + 1),
	}
}

func writeFile(t testing.TB, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}

func readString(t testing.TB, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func lines(s string) []string {
	return strings.Split(strings.TrimSuffix(s, "\n"), "\n")
}

// assertPerm checks permission bits where the OS has them (not on Windows).
func assertPerm(t testing.TB, path string, want os.FileMode) {
	t.Helper()
	if runtime.GOOS == "windows" {
		return
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if got := fi.Mode().Perm(); got != want {
		t.Fatalf("%s mode = %v, want %v", path, got, want)
	}
}

// logAt is the log at path as the watchdog holds it: its directory pinned
// (created when missing), any owner.
func logAt(t testing.TB, path string) Log {
	t.Helper()
	abs, err := filepath.Abs(path)
	if err != nil {
		t.Fatal(err)
	}
	if real, err := filepath.EvalSymlinks(filepath.Dir(abs)); err == nil {
		abs = filepath.Join(real, filepath.Base(abs)) // macOS: /var/folders -> /private/var/folders
	}
	d, err := fsutil.EnsurePinnedDir(filepath.Dir(abs))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	return Log{Dir: d, Name: filepath.Base(abs)}
}
