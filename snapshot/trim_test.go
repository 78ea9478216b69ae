package snapshot

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// bigEntry is about 100 KiB: a full log tail of long lines.
func bigEntry(i int) Entry {
	e := sample(i)
	e.LogTail = make([]string, LogTailLines)
	for k := range e.LogTail {
		e.LogTail[k] = strings.Repeat("x", MaxLineBytes-10)
	}
	return e
}

func TestAppendTrimsFromTheFrontKeepingTheNewest(t *testing.T) {
	path := filepath.Join(t.TempDir(), "snapshots.jsonl")
	const n = 60 // ~6 MB in all
	trimmed := false
	for i := range n {
		if err := Append(path, bigEntry(i)); err != nil {
			t.Fatalf("append %d: %v", i, err)
		}
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Size() > MaxBytes {
			t.Fatalf("after append %d the file is %d bytes, cap %d", i, fi.Size(), MaxBytes)
		}
		if i > 0 && fi.Size() < int64(i+1)*100_000 {
			trimmed = true
		}
	}
	if !trimmed {
		t.Fatal("the file was never trimmed: the test did not write past MaxBytes")
	}
	assertPerm(t, path, 0o600)

	all := lines(readString(t, path))
	var first Entry
	if err := json.Unmarshal([]byte(all[0]), &first); err != nil {
		t.Fatalf("the first line after trimming does not parse (torn front?): %v", err)
	}
	if first.RunID <= 1 {
		t.Fatalf("the first line is run_id %d: nothing old was dropped", first.RunID)
	}
	newest, corrupt, err := Read(path, 1)
	if err != nil || corrupt != 0 || len(newest) != 1 {
		t.Fatalf("Read after trimming: %d entries, %d corrupt, %v", len(newest), corrupt, err)
	}
	if newest[0].RunID != n {
		t.Fatalf("newest entry is run_id %d, want %d", newest[0].RunID, n)
	}
	for k := 1; k < len(all); k++ { // contiguous: only the front was cut
		if prev, cur := runID(t, all[k-1]), runID(t, all[k]); cur != prev+1 {
			t.Fatalf("entries not contiguous: run_id %d follows %d", cur, prev)
		}
	}
	leftovers, _ := filepath.Glob(filepath.Join(filepath.Dir(path), ".*tmp*"))
	if len(leftovers) != 0 {
		t.Fatalf("temporary files left behind: %v", leftovers)
	}
}

// runID reads the last field of a line cheaply: decoding every 100 KiB entry
// would make this test slow under -race for no extra proof.
func runID(t *testing.T, line string) int64 {
	t.Helper()
	i := strings.LastIndex(line, `"run_id":`)
	if i < 0 {
		t.Fatalf("line without run_id: %.80q", line)
	}
	id, err := strconv.ParseInt(strings.TrimSuffix(line[i+len(`"run_id":`):], "}"), 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// The trim itself, on raw lines: a newest line larger than the cap is kept
// whole and alone. (Through Append this would JSON-encode 5 MB, slow under
// -race without proving more about the boundary.)
func TestTrimKeepsANewestLineLargerThanTheCap(t *testing.T) {
	path := filepath.Join(t.TempDir(), "snapshots.jsonl")
	newest := strings.Repeat("n", MaxBytes+1) + "\n"
	writeFile(t, path, "old line\n"+newest)
	if err := trimFront(path, int64(len(newest))); err != nil {
		t.Fatal(err)
	}
	if got := readString(t, path); got != newest {
		t.Fatalf("after trimming the file holds %d bytes starting %.10q, want only the newest line", len(got), got)
	}
}

func TestTrimCutsAtALineBoundary(t *testing.T) {
	path := filepath.Join(t.TempDir(), "snapshots.jsonl")
	line := strings.Repeat("a", 999) + "\n" // 1000 bytes a line
	var b strings.Builder
	for range (MaxBytes / 1000) + 10 {
		b.WriteString(line)
	}
	writeFile(t, path, b.String()+"newest\n")
	if err := trimFront(path, int64(len("newest\n"))); err != nil {
		t.Fatal(err)
	}
	got := readString(t, path)
	if len(got) > trimTarget || !strings.HasPrefix(got, line) || !strings.HasSuffix(got, line+"newest\n") {
		t.Fatalf("trimmed to %d bytes (target %d), starting %.10q: want whole lines ending with the newest", len(got), trimTarget, got)
	}
	if want := (trimTarget-7)/1000*1000 + 7; len(got) != want {
		t.Fatalf("trimmed to %d bytes, want %d (as many whole lines as fit)", len(got), want)
	}
}
