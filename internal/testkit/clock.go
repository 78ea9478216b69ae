package testkit

import (
	"sync"
	"time"
)

// Clock is a fake clock for the Now seams (watchdog.Supervisor.Now,
// notify's and runtrace's Now, ui.Server.Now): it stands still until the
// test moves it, so a test about backoff, a pause's --for or a refresh
// interval says what time it is instead of waiting for it. Safe for the
// goroutines of the code under test to read while the test moves it.
type Clock struct {
	mu sync.Mutex
	t  time.Time
}

// NewClock is a Clock stopped at start.
func NewClock(start time.Time) *Clock { return &Clock{t: start} }

// Now is the clock's time: pass the method value to a Now seam
// (sup.Now = clock.Now).
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

// Advance moves the clock on by d and returns the new time.
func (c *Clock) Advance(d time.Duration) time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
	return c.t
}

// Set puts the clock at t (backwards too: a wall clock can be set back).
func (c *Clock) Set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = t
}
