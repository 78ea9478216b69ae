// Package sleep notices that the host slept (a laptop's lid, a suspended
// VM): the wall clock and the monotonic clock disagree, or a tick came far
// too late. The agent then cycles every service and lets the jobs catch up.
//
// What this package must never do: take a slow tick of a busy host for a
// sleep (the threshold is at least 15 s and three periods).
package sleep

import "time"

// Clock is what the sleep detector reads: the wall clock and the monotonic
// clock separately, so a test can make the wall clock jump.
type Clock interface {
	Wall() time.Time
	Mono() time.Duration
}

// RealClock is the clock of the host, its monotonic reading from Start.
type RealClock struct{ Start time.Time }

// Wall is the wall clock, without its monotonic reading.
func (c RealClock) Wall() time.Time { return time.Now().Round(0) } // Round(0) drops the monotonic reading
// Mono is the monotonic time since Start.
func (c RealClock) Mono() time.Duration { return time.Since(c.Start) }

// Detector notices that the host slept: between two ticks the wall clock
// moved much further than the monotonic clock (Linux, macOS: the monotonic
// clock stops while suspended), or the tick itself came far too late (hosts
// whose monotonic clock runs on while suspended).
type Detector struct {
	clock     Clock
	period    time.Duration
	threshold time.Duration
	lastWall  time.Time
	lastMono  time.Duration
}

// NewDetector is a detector ticked every period.
func NewDetector(c Clock, period time.Duration) *Detector {
	return &Detector{clock: c, period: period, threshold: max(3*period, 15*time.Second),
		lastWall: c.Wall(), lastMono: c.Mono()}
}

// Tick returns how long the host was away since the last tick, or 0.
func (d *Detector) Tick() time.Duration {
	wall, mono := d.clock.Wall(), d.clock.Mono()
	dw, dm := wall.Sub(d.lastWall), mono-d.lastMono
	d.lastWall, d.lastMono = wall, mono
	away := max(dw-dm, dm-d.period)
	if away > d.threshold {
		return away
	}
	return 0
}
