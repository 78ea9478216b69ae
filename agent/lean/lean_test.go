package lean

import (
	"runtime"
	"runtime/debug"
	"testing"
)

// gcPercentNow reads the GC percentage in force.
func gcPercentNow() int {
	p := debug.SetGCPercent(100)
	debug.SetGCPercent(p)
	return p
}

// TestLeanRuntimeUnlessTheEnvironmentSays: the agent's own process
// collects at gcPercent on one processor, and a GOGC or GOMAXPROCS the
// person set wins.
func TestLeanRuntimeUnlessTheEnvironmentSays(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	t.Setenv("GOGC", "")
	t.Setenv("GOMAXPROCS", "")
	runtime.GOMAXPROCS(2)
	SetRuntime()
	if got := gcPercentNow(); got != gcPercent {
		t.Fatalf("GC percent %d after setRuntime, want %d", got, gcPercent)
	}
	if got := runtime.GOMAXPROCS(0); got != 1 {
		t.Fatalf("GOMAXPROCS %d after setRuntime, want 1", got)
	}
	debug.SetGCPercent(100)
	runtime.GOMAXPROCS(2)
	t.Setenv("GOGC", "100")
	t.Setenv("GOMAXPROCS", "2")
	SetRuntime()
	if got := gcPercentNow(); got != 100 {
		t.Fatalf("GC percent %d with GOGC=100 set, want 100 (the person's choice)", got)
	}
	if got := runtime.GOMAXPROCS(0); got != 2 {
		t.Fatalf("GOMAXPROCS %d with GOMAXPROCS=2 set, want 2", got)
	}
}
