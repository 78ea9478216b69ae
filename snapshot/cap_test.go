package snapshot

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// numbered returns lines "line 0".."line n-1".
func numbered(from, n int) []byte {
	var b bytes.Buffer
	for i := from; i < from+n; i++ {
		fmt.Fprintf(&b, "line %d\n", i)
	}
	return b.Bytes()
}

// A log past the cap: its newest limit bytes go to runtime.log.1, the log is
// truncated in place, and the writer's O_APPEND descriptor goes on at
// offset 0 (no hole of the old size).
func TestCapLogCopiesNewestAndTruncatesInPlace(t *testing.T) {
	dir := t.TempDir()
	log := filepath.Join(dir, "runtime.log")
	w, err := os.OpenFile(log, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600) // the service's descriptor
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	all := numbered(0, 5000)
	w.Write(all)
	const limit = 8 << 10
	c, err := CapLog(logAt(t, log), limit)
	if err != nil || c == nil || c.Size != int64(len(all)) || c.Kept != limit {
		t.Fatalf("CapLog = %+v, %v; want size %d kept %d", c, err, len(all), limit)
	}
	rot, _ := os.ReadFile(RotatedPath(log))
	if !bytes.Equal(rot, all[len(all)-limit:]) {
		t.Fatalf("runtime.log.1 is not the newest %d bytes: %d bytes ending %q", limit, len(rot), rot[max(0, len(rot)-20):])
	}
	if fi, _ := os.Stat(log); fi.Size() != 0 {
		t.Fatalf("runtime.log is %d bytes after the cap, want 0", fi.Size())
	}
	w.Write([]byte("after the cap\n"))
	if b, _ := os.ReadFile(log); string(b) != "after the cap\n" {
		t.Fatalf("the service's next write landed as %q, want at offset 0", b)
	}
	if fi, _ := os.Stat(RotatedPath(log)); !permIs(fi, 0o600) {
		t.Fatalf("runtime.log.1 mode %v, want the log's 0600", fi.Mode().Perm())
	}
}

// A log in a flood is cut from its trigger (half the cap) on, all of it
// going to runtime.log.1, quick or not; under the trigger nothing is done.
func TestCapLogWithATriggerKeepsAllOfIt(t *testing.T) {
	for _, quick := range []bool{false, true} {
		dir := t.TempDir()
		log := filepath.Join(dir, "runtime.log")
		all := numbered(0, 600) // 6,390 bytes
		os.WriteFile(log, all, 0o600)
		const limit = 8 << 10
		if c, err := CapLogWith(logAt(t, log), limit, CapOptions{Trigger: 7 << 10, Quick: quick}); c != nil || err != nil {
			t.Fatalf("quick %v: under the trigger: %+v, %v; want nothing done", quick, c, err)
		}
		c, err := CapLogWith(logAt(t, log), limit, CapOptions{Trigger: limit / 2, Quick: quick})
		if err != nil || c == nil || c.Size != int64(len(all)) || c.Kept != int64(len(all)) {
			t.Fatalf("quick %v: CapLogWith = %+v, %v; want size and kept %d", quick, c, err, len(all))
		}
		if rot, _ := os.ReadFile(RotatedPath(log)); !bytes.Equal(rot, all) {
			t.Fatalf("quick %v: runtime.log.1 holds %d bytes, want all %d", quick, len(rot), len(all))
		}
		if fi, _ := os.Stat(log); fi.Size() != 0 {
			t.Fatalf("quick %v: runtime.log is %d bytes after the cut, want 0", quick, fi.Size())
		}
	}
}

func TestCapLogLeavesSmallMissingAndLinkedLogs(t *testing.T) {
	dir := t.TempDir()
	small := filepath.Join(dir, "small.log")
	os.WriteFile(small, numbered(0, 10), 0o600)
	target := filepath.Join(dir, "target")
	os.WriteFile(target, numbered(0, 5000), 0o600)
	link := filepath.Join(dir, "link.log")
	if err := os.Symlink(target, link); err != nil {
		t.Skip(err)
	}
	for _, p := range []string{small, filepath.Join(dir, "missing.log"), link} {
		if c, err := CapLog(logAt(t, p), 1024); c != nil || err != nil {
			t.Errorf("CapLog(%s) = %+v, %v; want nothing done", p, c, err)
		}
		if _, err := os.Lstat(RotatedPath(p)); err == nil {
			t.Errorf("%s was rotated", p)
		}
	}
	if b, _ := os.ReadFile(target); len(b) != len(numbered(0, 5000)) {
		t.Fatal("a link's target was cut")
	}
}

// The snapshot tail of an instance whose log was just cut reaches back into
// runtime.log.1; an earlier instance's runtime.log.1 is not its evidence.
func TestTailSinceReadsTheRotatedLogOfThisInstance(t *testing.T) {
	dir := t.TempDir()
	log := filepath.Join(dir, "runtime.log")
	os.WriteFile(log, numbered(0, 1000), 0o600)
	started := time.Now().Add(-time.Minute)
	if _, err := CapLog(logAt(t, log), 4<<10); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(log, []byte("line 1000\n"), 0o600)
	got, err := TailSince(logAt(t, log), started, 5, 1<<20)
	if want := []string{"line 996", "line 997", "line 998", "line 999", "line 1000"}; err != nil || strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("TailSince = %q, %v; want %q", got, err, want)
	}
	// An instance that started after the rotation: only its own log.
	got, _ = TailSince(logAt(t, log), time.Now().Add(time.Minute), 5, 1<<20)
	if len(got) != 1 || got[0] != "line 1000" {
		t.Fatalf("TailSince for a newer instance = %q, want only its own line", got)
	}
}

func TestTrimFrontKeepsTheNewest(t *testing.T) {
	prev := filepath.Join(t.TempDir(), "runtime.prev.log")
	all := numbered(0, 3000)
	os.WriteFile(prev, all, 0o600)
	if ok, err := TrimFront(logAt(t, prev), 4096); !ok || err != nil {
		t.Fatalf("TrimFront = %v, %v", ok, err)
	}
	if b, _ := os.ReadFile(prev); !bytes.Equal(b, all[len(all)-4096:]) {
		t.Fatalf("kept %d bytes, not the newest 4096", len(b))
	}
	if ok, _ := TrimFront(logAt(t, prev), 4096); ok {
		t.Fatal("trimmed a file within the limit")
	}
}
