package testutil

import (
	"testing"
	"time"
)

// WaitFor polls cond every few milliseconds until it holds, and fails the
// test naming what it waited for when d passes first.
func WaitFor(t testing.TB, d time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %s waiting for %s", d, what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
