// Package lean keeps an idle agent small: the runtime settings it runs
// with (SetRuntime) and the trim that gives back what start-up touched (Trim).
//
// What this package must never do: override a GOGC or GOMAXPROCS the
// environment sets, or set a memory limit (near the heap, the runtime
// collects continuously: the agent's CPU trebled).
package lean

import (
	"log/slog"
	"os"
	"runtime"
	"runtime/debug"
	"time"
)

// An agent sits idle almost all the time, on a workstation whose owner
// reads its memory in `ps`/`top` (RSS). Two things make that figure larger
// than what the agent uses:
//
//   - the Go heap grows to its goal before the first collection (4 MiB at
//     GOGC=100) and keeps freed pages a while before returning them;
//   - start-up (config, SQLite open and migrations, first cycles, package
//     inits of the whole binary) touches pages of the executable that the
//     loop never touches again; they stay mapped, counted in RSS.
//
// With the agent's Options.Lean (what `svc-ctl agent` sets: the process is the agent's
// own), once start-up is over and then hourly, the agent returns freed heap
// to the OS and unmaps the executable's read-only pages (trimExecutable):
// the ones the loop uses come back on their next touch, from the page
// cache, the others stay out. Tests that run agents in-process leave it off.
//
// Lean also runs the Go scheduler on one processor (GOMAXPROCS 1): the
// agent's work is a few milliseconds a cycle, mostly waiting on I/O, and
// with two processors every wake-up of an idle agent also woke a second
// thread to look for work (measured: −18 % CPU at a 1 s interval,
// docs/benchmarks.md). And it sets the GC percentage to gcPercent. Either
// is left alone when its variable (GOMAXPROCS, GOGC) is set in the
// environment: a person's choice wins. An idle agent's live heap is under
// 1 MiB, and at the default 100 the heap fills to the 4 MiB minimum goal
// before each collection; at 20 the goal is a fifth of that and the
// collections, of a heap this small, cost no CPU that measures
// (docs/benchmarks.md). No memory limit is set: a limit near the heap made
// the runtime collect continuously and trebled the agent's CPU.

const (
	// gcPercent is the agent's GOGC (see above).
	gcPercent = 20
	// TrimAfter is when start-up is over: every service had its first
	// cycle (the stagger is at most 30 s) and the first spawns settled.
	TrimAfter = 45 * time.Second
	// TrimEvery is the period of the trims after the first (a restart or a
	// burst of work touches pages that then stay mapped).
	TrimEvery = time.Hour
)

// SetRuntime applies gcPercent and one processor, unless the environment
// sets GOGC or GOMAXPROCS.
func SetRuntime() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(gcPercent)
	}
	if os.Getenv("GOMAXPROCS") == "" {
		runtime.GOMAXPROCS(1)
	}
}

// Trim returns freed heap to the OS and unmaps the executable's read-only
// pages (trimExecutable), saying so in log at debug.
func Trim(log *slog.Logger) {
	debug.FreeOSMemory()
	n, err := trimExecutable()
	if err != nil {
		log.Debug("memory.trim_failed", "err", err)
		return
	}
	log.Debug("memory.trimmed", "unmapped_bytes", n)
}
