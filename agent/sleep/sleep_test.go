package sleep

import (
	"testing"
	"time"
)

// fakeClock is a clock whose wall and monotonic readings the test moves.
type fakeClock struct {
	wall time.Time
	mono time.Duration
}

func (c *fakeClock) Wall() time.Time     { return c.wall }
func (c *fakeClock) Mono() time.Duration { return c.mono }

// A tick on time is no sleep; a wall clock that jumped past the monotonic
// one by more than the threshold (15 s at least) is, and says how long; a
// tick that itself came far too late (a monotonic clock that ran on while
// suspended) is too.
func TestDetectorTellsASleepFromATick(t *testing.T) {
	c := &fakeClock{wall: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	d := NewDetector(c, time.Second)
	step := func(wall, mono time.Duration) time.Duration {
		c.wall, c.mono = c.wall.Add(wall), c.mono+mono
		return d.Tick()
	}
	if away := step(time.Second, time.Second); away != 0 {
		t.Fatalf("a tick on time: away %s, want 0", away)
	}
	if away := step(10*time.Second, time.Second); away != 0 {
		t.Fatalf("a 9 s jump, under the 15 s floor: away %s, want 0", away)
	}
	if away := step(time.Hour+time.Second, time.Second); away != time.Hour {
		t.Fatalf("an hour's jump of the wall clock: away %s, want 1h", away)
	}
	if away := step(20*time.Minute+time.Second, 20*time.Minute+time.Second); away != 20*time.Minute {
		t.Fatalf("a tick 20 min late on both clocks: away %s, want 20m", away)
	}
}
