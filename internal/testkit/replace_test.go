package testkit

import (
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

var seam = "real"

// TestReplaceRestores: the seam holds the test's value while the test runs
// and its old one after.
func TestReplaceRestores(t *testing.T) {
	t.Run("swap", func(t *testing.T) {
		Replace(t, &seam, "fake")
		if seam != "fake" {
			t.Fatalf("seam = %q during the test, want fake", seam)
		}
	})
	if seam != "real" {
		t.Fatalf("seam = %q after the test, want real (restored)", seam)
	}
}

// TestClockStandsStillUntilMoved: a Clock's time moves only when the test
// moves it, forwards or back.
func TestClockStandsStillUntilMoved(t *testing.T) {
	start := time.Date(2026, 3, 29, 1, 30, 0, 0, time.UTC)
	c := NewClock(start)
	if !c.Now().Equal(start) || !c.Now().Equal(start) {
		t.Fatalf("Now = %s, want %s until moved", c.Now(), start)
	}
	if got := c.Advance(time.Hour); !got.Equal(start.Add(time.Hour)) || !c.Now().Equal(got) {
		t.Fatalf("Advance(1h) = %s, Now = %s; want %s", got, c.Now(), start.Add(time.Hour))
	}
	c.Set(start.Add(-time.Minute))
	if !c.Now().Equal(start.Add(-time.Minute)) {
		t.Fatalf("after Set back, Now = %s", c.Now())
	}
}

// TestProcessWideNests: a ProcessWide test's subtests may say so too
// without waiting for the lock their parent holds (this test would hang).
func TestProcessWideNests(t *testing.T) {
	ProcessWide(t, "nothing: the lock's own test")
	t.Run("child", func(t *testing.T) {
		ProcessWide(t, "nothing: the lock's own test")
	})
	if _, set := os.LookupEnv(processWideEnv); set {
		t.Fatalf("%s is in the environment: the children a test starts would see it", processWideEnv)
	}
}

// TestProcessWideRefusesAParallelTest: a parallel test that says it changes
// process-wide state fails (run in a child go test, where the failure is
// the expected outcome).
func TestProcessWideRefusesAParallelTest(t *testing.T) {
	if os.Getenv("TESTUTIL_PARALLEL_CHILD") == "1" {
		t.Parallel()
		ProcessWide(t, "the umask")
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestProcessWideRefusesAParallelTest$", "-test.count=1")
	cmd.Env = append(os.Environ(), "TESTUTIL_PARALLEL_CHILD=1")
	out, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(out), "must not run in parallel") {
		t.Fatalf("a parallel ProcessWide test passed or failed for another reason: %v\n%s", err, out)
	}
}
