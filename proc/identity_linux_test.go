package proc

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"svcctl/internal/testkit"
)

// A wall-clock step moves /proc/stat's btime, so every create time derived
// from it; the start ticks do not move, and the identity holds.
func TestIdentitySurvivesClockStep(t *testing.T) {
	c := spawnT(t, SpawnSpec{Argv: []string{sleepPath(t), "300"}})
	id := c.Identity
	realBoot, err := readBootTime()
	if err != nil {
		t.Fatal(err)
	}
	for _, step := range []int64{-3600, -2, 2, 86400} {
		testkit.Replace(t, &bootTime, func() (int64, error) { return realBoot + step, nil })
		now, err := IdentityOf(id.PID)
		if err != nil {
			t.Fatal(err)
		}
		if d := now.CreateTime - id.CreateTime; d < step*1000-1000 || d > step*1000+1000 {
			t.Fatalf("step %ds moved the create time by %dms: the seam is not in use", step, d)
		}
		if ok, err := Match(id); !ok || err != nil {
			t.Fatalf("after a %ds clock step Match = %v, %v; want true", step, ok, err)
		}
		if tr, err := Members(c.Instance); err != nil || !tr.LeaderAlive() {
			t.Fatalf("after a %ds clock step Members = %+v, %v; want the leader", step, tr, err)
		}
		// A legacy record has only the wall-clock create time: it cannot
		// survive a step of more than its second of slack.
		legacy := Identity{PID: id.PID, CreateTime: id.CreateTime, Exe: id.Exe}
		if ok, _ := Match(legacy); ok {
			t.Fatalf("legacy record after a %ds step: Match = %v", step, ok)
		}
	}
	res, err := Stop(context.Background(), id, 10*time.Second)
	if err != nil || res.Signal != "SIGTERM" {
		t.Fatalf("Stop after clock steps = %s, %v; want SIGTERM", res, err)
	}
}

// Another boot id means another boot: the PID and its start ticks may repeat,
// the process cannot be ours, and nothing is signalled.
func TestIdentityOtherBoot(t *testing.T) {
	c := spawnT(t, SpawnSpec{Argv: []string{sleepPath(t), "300"}})
	id := c.Identity
	if id.Boot == "" {
		t.Fatal("no boot id recorded")
	}
	testkit.Replace(t, &bootID, func() (string, error) { return "00000000-0000-4000-8000-000000000000", nil })
	if ok, err := Match(id); ok || err != nil {
		t.Fatalf("Match across boots = %v, %v; want false", ok, err)
	}
	if _, err := Stop(context.Background(), id, time.Second); !errors.Is(err, ErrNotOurs) {
		t.Fatalf("Stop across boots = %v, want ErrNotOurs", err)
	}
	testkit.Replace(t, &bootID, readBootID)
	if ok, err := Match(id); !ok || err != nil {
		t.Fatalf("Match back in this boot = %v, %v; want true (nothing was signalled)", ok, err)
	}
}

// A legacy pid file, from before start stamps were recorded ({pid,
// create_time_ms, exe, started_at}, exe as it was before the shim exec'd),
// is still read, matched and stopped.
func TestLegacyPidFileStillRead(t *testing.T) {
	c := spawnT(t, SpawnSpec{Argv: []string{sleepPath(t), "300"}})
	path := filepath.Join(t.TempDir(), "pid")
	legacy := `{"pid": ` + itoa(c.PID) + `, "create_time_ms": ` + itoa64(c.CreateTime) +
		`, "exe": "/usr/bin/dash", "started_at": "2026-11-30T09:00:00Z"}`
	if err := os.WriteFile(path, []byte(legacy), 0o600); err != nil {
		t.Fatal(err)
	}
	inst, err := ReadInstance(path)
	if err != nil {
		t.Fatal(err)
	}
	if inst.Start != 0 || inst.Exe != "/usr/bin/dash" {
		t.Fatalf("ReadInstance = %+v", inst)
	}
	if ok, err := Match(inst.Identity); !ok || err != nil {
		t.Fatalf("Match(legacy record) = %v, %v; want true", ok, err)
	}
	res, err := StopTree(context.Background(), inst, 10*time.Second)
	if err != nil || len(res.Members) != 1 || res.Members[0].Ended != "SIGTERM" {
		t.Fatalf("StopTree(legacy record) = %s %+v, %v", res, res.Members, err)
	}
}

func itoa(n int32) string   { return itoa64(int64(n)) }
func itoa64(n int64) string { return strconv.FormatInt(n, 10) }

func TestParseStat(t *testing.T) {
	line := []byte("4242 (a (weird) name) S 1 4242 4242 0 -1 4194560 100 0 0 0 5 3 0 0 20 0 1 0 123456 1000 200 18446744073709551615\n")
	pi, ok := parseStat(line)
	if !ok || pi.ppid != 1 || pi.session != 4242 || pi.start != 123456 || pi.zombie {
		t.Fatalf("parseStat = %+v, %v", pi, ok)
	}
	z, ok := parseStat([]byte("7 (x) Z 1 7 7 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 99 0 0"))
	if !ok || !z.zombie {
		t.Fatalf("zombie: %+v, %v", z, ok)
	}
	for _, bad := range []string{"", "7 x S 1", "7 (x) S 1 7 7", "7 (x) S a 7 7 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 99"} {
		if _, ok := parseStat([]byte(bad)); ok {
			t.Errorf("parseStat(%q) succeeded", bad)
		}
	}
}

// TestBootTimeReadOnceUntilTheClockSteps: /proc/stat is read once, then
// again only when the wall clock moved against the boot clock (a step).
func TestBootTimeReadOnceUntilTheClockSteps(t *testing.T) {
	var reads int
	testkit.Replace(t, &bootTimeFile, func() (int64, error) { reads++; return readBootTimeFile() })
	var step time.Duration
	testkit.Replace(t, &clockOffset, func() (time.Duration, error) {
		off, err := wallMinusBootClock()
		return off + step, err
	})
	bootCache.mu.Lock()
	bootCache.ok = false
	bootCache.mu.Unlock()
	want, err := readBootTimeFile()
	if err != nil {
		t.Fatal(err)
	}
	for i := range 5 {
		if bt, err := readBootTime(); err != nil || bt != want {
			t.Fatalf("read %d: %d, %v; want %d", i, bt, err, want)
		}
	}
	if reads != 1 {
		t.Fatalf("/proc/stat read %d times for 5 boot times, want once", reads)
	}
	step = time.Hour // the wall clock stepped
	readBootTime()
	readBootTime()
	if reads != 2 {
		t.Fatalf("/proc/stat read %d times after a clock step, want once more (2)", reads)
	}
}
