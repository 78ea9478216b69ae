package watchdog

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"svcctl/internal/testkit"
	"svcctl/internal/testutil"
)

// lockedBuffer is a log sink the test reads while the supervisor writes.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

// lines returns the JSON log lines whose msg is event.
func (l *lockedBuffer) lines(event string) []map[string]any {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []map[string]any
	for _, line := range strings.Split(l.b.String(), "\n") {
		var m map[string]any
		if json.Unmarshal([]byte(line), &m) == nil && m["msg"] == event {
			out = append(out, m)
		}
	}
	return out
}

// A flooded log is cut hundreds of times a second: `log.capped` is written
// once for the first cut, then at most once a minute with the count and
// volume of the cuts since (one line per cut was two lines a second, ~170k a
// day).
func TestLogCappedIsLoggedOnceAMinuteWithACount(t *testing.T) {
	e := newEnv(t, testutil.Service{Name: "loud", Addr: testutil.FreeAddr(t), ExtraTOML: "log_max = \"4KiB\"\n"})
	var out lockedBuffer
	e.sup.Log = slog.New(slog.NewJSONHandler(&out, nil))
	clock := testkit.NewClock(time.Now())
	e.sup.Now = clock.Now
	log := e.Cfg.Service("loud").Log
	if err := os.MkdirAll(filepath.Dir(log), 0o700); err != nil {
		t.Fatal(err)
	}
	flood := func() {
		t.Helper()
		if err := os.WriteFile(log, bytes.Repeat([]byte("flood line\n"), 1000), 0o600); err != nil { // 11,000 bytes
			t.Fatal(err)
		}
		if cut, err := e.sup.CapLog("loud"); err != nil || !cut {
			t.Fatalf("CapLog = %v, %v; want a cut", cut, err)
		}
	}
	for range 5 {
		flood()
		clock.Advance(time.Second)
	}
	if got := out.lines("log.capped"); len(got) != 1 {
		t.Fatalf("%d log.capped lines for 5 cuts in 5 s, want 1 (the first)", len(got))
	}
	// Nothing to cut a minute later: the 4 cuts since are summed up in one line.
	clock.Advance(time.Minute)
	if cut, err := e.sup.CapLog("loud"); err != nil || cut {
		t.Fatalf("CapLog = %v, %v; want nothing to cut", cut, err)
	}
	got := out.lines("log.capped")
	if len(got) != 2 || got[1]["cuts"] != float64(4) || got[1]["cut_bytes"] != float64(4*11000) {
		t.Fatalf("log.capped lines %v; want a second one with cuts 4, cut_bytes 44000", got)
	}
	// And no line when nothing was cut since.
	clock.Advance(2 * time.Minute)
	e.sup.CapLog("loud")
	if n := len(out.lines("log.capped")); n != 2 {
		t.Fatalf("%d log.capped lines after a quiet minute, want still 2", n)
	}
}

// A log cut again within a second is in a flood: it is cut from half its
// cap on, so the flood's writes during a cut do not carry it far past the
// cap; a second after its last cut it is back to its cap.
func TestFloodIsCutFromHalfTheCap(t *testing.T) {
	e := newEnv(t, testutil.Service{Name: "loud", Addr: testutil.FreeAddr(t), ExtraTOML: "log_max = \"4KiB\"\n"})
	clock := testkit.NewClock(time.Now())
	e.sup.Now = clock.Now
	log := e.Cfg.Service("loud").Log
	os.MkdirAll(filepath.Dir(log), 0o700)
	write := func(n int) {
		t.Helper()
		if err := os.WriteFile(log, bytes.Repeat([]byte("x"), n), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	cut := func() bool {
		t.Helper()
		c, err := e.sup.CapLog("loud")
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	write(3000)
	if cut() || e.sup.CapTrigger("loud") != 4096 {
		t.Fatalf("3000 bytes under a 4 KiB cap, no flood: cut, or trigger %d", e.sup.CapTrigger("loud"))
	}
	write(5000)
	if !cut() {
		t.Fatal("5000 bytes over a 4 KiB cap: not cut")
	}
	clock.Advance(500 * time.Millisecond)
	write(3000)
	if tr := e.sup.CapTrigger("loud"); tr != 2048 || !cut() {
		t.Fatalf("3000 bytes half a second after a cut: trigger %d, want 2048 and a cut", tr)
	}
	clock.Advance(2 * time.Second)
	write(3000)
	if tr := e.sup.CapTrigger("loud"); tr != 4096 || cut() {
		t.Fatalf("3000 bytes two seconds after the last cut: trigger %d, want 4096 and no cut", tr)
	}
}
