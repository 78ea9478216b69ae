package logcap

import (
	"testing"
	"time"
)

// nextLook schedules the next look at a log by how fast it grows: before
// it could reach its cap, never sooner than capReactMin nor later than the
// poll.
func TestNextLookFollowsTheGrowth(t *testing.T) {
	const mib = 1 << 20
	every := 500 * time.Millisecond
	for _, c := range []struct {
		headroom int64
		rate     float64
		want     time.Duration
	}{
		{mib, 0, every},                        // quiet: the poll
		{mib, 1 * mib, every},                  // 1 s to fill: look in 0.5 s
		{mib, 4 * mib, 125 * time.Millisecond}, // 0.25 s to fill
		{mib, 500e6, capReactMin},              // `yes`: as soon as allowed
		{0, 1, capReactMin},                    // at the cap already
		{-mib, 1 * mib, capReactMin},           // past it (the cut failed)
		{40 * mib, 10 * mib, every},            // 4 s to fill
	} {
		if got := nextLook(c.headroom, c.rate, every); got != c.want {
			t.Errorf("nextLook(%d, %.0f/s) = %v, want %v", c.headroom, c.rate, got, c.want)
		}
	}
}
