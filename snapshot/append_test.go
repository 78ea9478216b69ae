package snapshot

import (
	"encoding/json"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestAppendReadRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "services", "proxy", "snapshots.jsonl")
	for i := range 5 {
		if err := Append(path, sample(i)); err != nil {
			t.Fatalf("append %d: %v", i, err)
		}
	}
	assertPerm(t, path, 0o600)
	assertPerm(t, filepath.Dir(path), 0o700)
	if got := len(lines(readString(t, path))); got != 5 {
		t.Fatalf("file holds %d lines, want 5", got)
	}

	got, corrupt, err := Read(path, 3)
	if err != nil || corrupt != 0 {
		t.Fatalf("Read = corrupt %d, err %v", corrupt, err)
	}
	if len(got) != 3 {
		t.Fatalf("Read(3) returned %d entries", len(got))
	}
	for k, want := range []int64{5, 4, 3} { // newest first
		if got[k].RunID != want {
			t.Fatalf("entry %d has run_id %d, want %d", k, got[k].RunID, want)
		}
	}
	e, want := got[0], sample(4)
	if !e.Time.Equal(want.Time) || e.Time.Location() != time.UTC {
		t.Fatalf("time = %v, want %v in UTC", e.Time, want.Time)
	}
	if e.Service != "proxy" || e.Reason != RestartUnhealthy || e.Phase != PhasePreRestart || e.NoProgressMS != 4 {
		t.Fatalf("fields lost in the round trip: %+v", e)
	}
	if !reflect.DeepEqual(e.LogTail, want.LogTail) {
		t.Fatalf("log tail = %q, want %q", e.LogTail, want.LogTail)
	}
	if !reflect.DeepEqual(e.EnvNames, []string{"HOME", "HTTPS_PROXY"}) {
		t.Fatalf("env names = %q, want sorted [HOME HTTPS_PROXY]", e.EnvNames)
	}
	if len(e.Transitions) != 1 || e.Transitions[0].Why != "http 503" {
		t.Fatalf("transitions = %+v", e.Transitions)
	}
	probes, _ := e.Probes.(map[string]any)
	if first, _ := probes["first"].(map[string]any); first["reason"] != "status 503" {
		t.Fatalf("probes = %#v", e.Probes)
	}

	all, _, err := Read(path, 0)
	if err != nil || len(all) != 5 {
		t.Fatalf("Read(0) = %d entries, %v; want all 5", len(all), err)
	}
}

func TestReadMissingFile(t *testing.T) {
	got, corrupt, err := Read(filepath.Join(t.TempDir(), "snapshots.jsonl"), 10)
	if got != nil || corrupt != 0 || err != nil {
		t.Fatalf("Read(missing) = %v, %d, %v; want nil, 0, nil", got, corrupt, err)
	}
}

func TestReadSkipsAndCountsCorruptLines(t *testing.T) {
	path := filepath.Join(t.TempDir(), "snapshots.jsonl")
	good, err := marshalLine(normalized(sample(0)))
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, path, string(good)+"{not json\n"+"null\n"+"\n"+string(good)+`{"time":"2025-`)

	got, corrupt, err := Read(path, 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || corrupt != 3 {
		t.Fatalf("Read = %d entries, %d corrupt; want 2 entries, 3 corrupt", len(got), corrupt)
	}
}

func TestAppendAfterATornWriteStartsANewLine(t *testing.T) {
	path := filepath.Join(t.TempDir(), "snapshots.jsonl")
	if err := Append(path, sample(0)); err != nil {
		t.Fatal(err)
	}
	// A crash cut the next write short: no final newline.
	writeFile(t, path, readString(t, path)+`{"time":"2025-03-01T`)
	if err := Append(path, sample(1)); err != nil {
		t.Fatal(err)
	}
	got, corrupt, err := Read(path, 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || corrupt != 1 || got[0].RunID != 2 {
		t.Fatalf("Read = %d entries (newest run_id %d), %d corrupt; want 2 entries, newest run_id 2, 1 corrupt",
			len(got), got[0].RunID, corrupt)
	}
}

func TestAppendBoundsAndNeverRecordsEnvValues(t *testing.T) {
	path := filepath.Join(t.TempDir(), "snapshots.jsonl")
	e := sample(0)
	e.Time = time.Time{}
	e.Transitions = nil
	for i := range 20 {
		e.Transitions = append(e.Transitions, Transition{At: time.Now(), From: "a", To: "b", Why: string(rune('a' + i))})
	}
	e.LogTail = nil
	for range 60 {
		e.LogTail = append(e.LogTail, "short")
	}
	e.LogTail[59] = strings.Repeat("é", 3000) // 6000 bytes of two-byte runes
	e.EnvNames = []string{"TOKEN=hunter2", "B", "A", "B"}

	if err := Append(path, e); err != nil {
		t.Fatal(err)
	}
	raw := readString(t, path)
	if strings.Contains(raw, "hunter2") {
		t.Fatal("an env value reached the snapshot file")
	}
	got, _, err := Read(path, 1)
	if err != nil || len(got) != 1 {
		t.Fatalf("Read: %v", err)
	}
	g := got[0]
	if g.Time.IsZero() {
		t.Fatal("an unset time was not filled in")
	}
	if len(g.Transitions) != MaxTransitions || g.Transitions[MaxTransitions-1].Why != "t" {
		t.Fatalf("kept %d transitions ending %q, want the last %d ending \"t\"",
			len(g.Transitions), g.Transitions[len(g.Transitions)-1].Why, MaxTransitions)
	}
	if len(g.LogTail) != LogTailLines {
		t.Fatalf("kept %d log lines, want %d", len(g.LogTail), LogTailLines)
	}
	long := g.LogTail[LogTailLines-1]
	if len(long) > MaxLineBytes || !strings.HasSuffix(long, cutMarker) || !strings.HasPrefix(long, "éé") {
		t.Fatalf("long line kept %d bytes (suffix %q), want <= %d ending in the cut marker",
			len(long), long[len(long)-8:], MaxLineBytes)
	}
	if !reflect.DeepEqual(g.EnvNames, []string{"A", "B", "TOKEN"}) {
		t.Fatalf("env names = %q, want [A B TOKEN]", g.EnvNames)
	}
}

func TestEmptyListsAreArraysNotNull(t *testing.T) {
	line, err := marshalLine(normalized(Entry{Service: "x"}))
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(line, &m); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"transitions", "log_tail", "env_names"} {
		if string(m[k]) != "[]" {
			t.Fatalf("%s = %s, want []", k, m[k])
		}
	}
	if _, ok := m["process"]; ok {
		t.Fatal("an unset process was written, want it omitted")
	}
}

func TestEnvNames(t *testing.T) {
	got := EnvNames(map[string]string{"Z": "secret", "A": "secret"})
	if !reflect.DeepEqual(got, []string{"A", "Z"}) {
		t.Fatalf("EnvNames = %q, want [A Z]", got)
	}
}

func TestAppendFailsWhenThePathIsADirectory(t *testing.T) {
	if err := Append(t.TempDir(), sample(0)); err == nil {
		t.Fatal("Append onto a directory succeeded, want an error")
	}
}
