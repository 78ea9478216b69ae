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

// WaitForSaying is WaitFor that, when d passes, also says what it saw last
// (say is called once, then).
func WaitForSaying(t testing.TB, d time.Duration, what string, cond func() bool, say func() string) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %s waiting for %s; last seen: %s", d, what, say())
		}
		time.Sleep(10 * time.Millisecond)
	}
}
