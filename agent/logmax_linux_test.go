package agent

import (
	"bytes"
	"context"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"svcctl/internal/testutil"
	"svcctl/runtrace"
	"svcctl/snapshot"
)

// logBytes is what a service's logs take on disk: runtime.log,
// runtime.log.1 and runtime.prev.log.
func logBytes(log string) int64 {
	var n int64
	for _, p := range []string{log, snapshot.RotatedPath(log), snapshot.PrevPath(log)} {
		if fi, err := os.Stat(p); err == nil {
			n += fi.Size()
		}
	}
	return n
}

// A service that writes 150 MB as fast as it can, under log_max = 1MiB,
// ends with at most 3 x log_max on disk and is never restarted for it; the
// flood's last line survives in runtime.log or runtime.log.1; and when the
// instance then dies, the snapshot's log tail still holds its last words,
// read from runtime.log.1 though runtime.log was just cut.
func TestFloodedLogStaysUnderThreeTimesLogMax(t *testing.T) {
	addr := testutil.FreeAddr(t)
	e := newEnv(t, testutil.Service{Name: "loud", Addr: addr, Interval: "1h", ExtraTOML: "log_max = \"1MiB\"\n"})
	startAgent(t, e, Options{LogCheckEvery: 100 * time.Millisecond})
	testutil.WaitFor(t, 15*time.Second, "loud started", func() bool {
		return latestStarted(e, "loud", time.Time{}) != nil && testutil.Healthy(addr)
	})
	log := e.Cfg.Services[0].Log
	const logMax = 1 << 20
	var peak int64
	done := make(chan struct{})
	go func() {
		defer close(done)
		testutil.Get("http://" + addr + "/control/flood?mb=150")
	}()
	flooding := true
	for flooding {
		select {
		case <-done:
			flooding = false
		case <-time.After(20 * time.Millisecond):
		}
		peak = max(peak, logBytes(log))
	}
	testutil.WaitFor(t, 10*time.Second, "the logs under 3 x log_max", func() bool { return logBytes(log) <= 3*logMax })
	t.Logf("150 MB flood, log_max 1 MiB: peak %.1f MiB on disk while it wrote, %.2f MiB after", float64(peak)/(1<<20), float64(logBytes(log))/(1<<20))
	// runtime.log.1 holds the newest flood lines at the last cut (not
	// necessarily the very last: what is written during a cut's copy is lost):
	// at most log_max bytes, and at least half (a flood is cut at half its cap).
	if rot, _ := os.ReadFile(snapshot.RotatedPath(log)); len(rot) < logMax/2 || len(rot) > logMax || !bytes.Contains(rot, []byte("\nflood ")) {
		t.Fatalf("runtime.log.1 is %d bytes without flood lines, want the newest %d to %d bytes of the flood", len(rot), logMax/2, logMax)
	}
	if n, _ := e.Store.Count(context.Background(), runtrace.Filter{JobID: runtrace.WatchdogID("loud"), Reason: runtrace.ReasonStarted}); n != 1 {
		t.Fatalf("%d starts: the flood cost a restart", n)
	}

	// Cut the log right before the instance dies: its last words are in .1.
	os.WriteFile(log, nil, 0o600) // (empty, as a cap would leave it)
	if _, err := os.Stat(snapshot.RotatedPath(log)); err != nil {
		t.Fatal(err)
	}
	old := e.Pid("loud")
	syscall.Kill(int(old.PID), syscall.SIGKILL)
	testutil.WaitFor(t, 15*time.Second, "restarted with a snapshot", func() bool {
		es, _, _ := snapshot.Read(e.sup.Paths.Snapshots("loud"), 0)
		return len(es) == 2 // the first start's, and this restart's
	})
	es, _, _ := snapshot.Read(e.sup.Paths.Snapshots("loud"), 1)
	if tail := strings.Join(es[0].LogTail, "\n"); !strings.Contains(tail, "flood") {
		t.Fatalf("the snapshot's log tail does not reach into runtime.log.1:\n%s\n%+v", tail, es[0])
	}
}

// A service's log that grows past log_max is cut at once, not at the next
// scheduled look: the OS says it was written (inotify), and the cap loop
// looks (a 500 ms poll let a flood write 495 MB past a 1 MiB cap). The poll
// here is an hour, so only the write itself can trigger the cut.
func TestLogIsCutWhenWrittenNotAtThePoll(t *testing.T) {
	addr := testutil.FreeAddr(t)
	e := newEnv(t, testutil.Service{Name: "loud", Addr: addr, Interval: "1h", ExtraTOML: "log_max = \"1MiB\"\n"})
	startAgent(t, e, Options{LogCheckEvery: time.Hour})
	testutil.WaitFor(t, 15*time.Second, "loud started", func() bool {
		return latestStarted(e, "loud", time.Time{}) != nil && testutil.Healthy(addr)
	})
	log := e.Cfg.Services[0].Log
	rotated := snapshot.RotatedPath(log)
	if _, err := os.Stat(rotated); !os.IsNotExist(err) {
		t.Fatalf("runtime.log.1 before the flood: %v", err)
	}
	testutil.Get("http://" + addr + "/control/flood?mb=3")
	testutil.WaitFor(t, 10*time.Second, "the log cut (runtime.log.1 written, runtime.log under log_max)", func() bool {
		fi, err := os.Stat(log)
		_, rerr := os.Stat(rotated)
		return rerr == nil && err == nil && fi.Size() <= 1<<20
	})
}
