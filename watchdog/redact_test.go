package watchdog

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"svcctl/internal/fsutil"
	"svcctl/internal/redact"
	"svcctl/internal/redact/redacttest"
	"svcctl/probe"
	"svcctl/snapshot"
)

// TestRedactCorpusWriters runs the shared corpus through every writer of a
// cycle: the run_trace detail and message (also what watchdog.last.json
// holds), the snapshot's structured parts and its log tail.
func TestRedactCorpusWriters(t *testing.T) {
	red := redact.New(redacttest.Values()...)
	var lines []string
	for _, c := range redacttest.Cases {
		lines = append(lines, c.In)
	}
	in := strings.Join(lines, "\n")
	results := []probe.Result{{Kind: "exec", Target: in, Reason: in, Detail: map[string]any{"output": in}}}

	d := redactDetail(red, Detail{Message: in, Error: in, Probe: results, LogTail: lines, OldInstance: in})
	b, _ := json.Marshal(d)
	redacttest.Check(t, "run_trace detail", in, string(b))

	dir := t.TempDir()
	log := filepath.Join(dir, "runtime.log")
	if err := os.WriteFile(log, []byte(in+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	snaps := filepath.Join(dir, "snapshots.jsonl")
	e := redactEntry(red, snapshot.Entry{Service: "web", Reason: "unhealthy", Probes: map[string]any{"first": results}})
	pinned, err := fsutil.OpenDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer pinned.Close()
	if err := snapshot.Prepare(e, snaps, snapshot.Log{Dir: pinned, Name: "runtime.log"}, red.String); err != nil {
		t.Fatal(err)
	}
	b, _ = os.ReadFile(snaps)
	redacttest.Check(t, "snapshot", in, string(b))
	if !strings.Contains(string(b), "127.0.0.1:18101") {
		t.Fatalf("the snapshot lost its evidence:\n%s", b)
	}
}
