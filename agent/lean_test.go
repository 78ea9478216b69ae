package agent

import (
	"runtime/debug"
	"testing"
)

// gcPercentNow reads the GC percentage in force.
func gcPercentNow() int {
	p := debug.SetGCPercent(100)
	debug.SetGCPercent(p)
	return p
}

// TestLeanSetsGCPercentUnlessGOGC: the agent's own process collects at
// gcPercent, and a GOGC the person set wins.
func TestLeanSetsGCPercentUnlessGOGC(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	t.Setenv("GOGC", "")
	setGCPercent()
	if got := gcPercentNow(); got != gcPercent {
		t.Fatalf("GC percent %d after setGCPercent, want %d", got, gcPercent)
	}
	debug.SetGCPercent(100)
	t.Setenv("GOGC", "100")
	setGCPercent()
	if got := gcPercentNow(); got != 100 {
		t.Fatalf("GC percent %d with GOGC=100 set, want 100 (the person's choice)", got)
	}
}
