// Package snapshot keeps the evidence of a service's failure before the
// watchdog restarts it (docs/architecture.md, "The L3 cycle", steps 1-2,
// fsynced before the old instance is stopped): one JSON line
// per restart in an append-only snapshots.jsonl (why, what the probes saw, the
// last transitions, the process facts, the tail of runtime.log, env names),
// and runtime.log moved aside to runtime.prev.log.
//
// The order is load-bearing: Prepare writes the snapshot and rotates the log,
// both on disk, before the caller may spawn a new instance. Reversed, the new
// instance's output lands on top of the old one's and the evidence is gone.
//
// What this package must never do:
//   - delete or truncate a log: rotation is a rename, the previous prev is the
//     only thing replaced;
//   - rotate snapshots.jsonl at start or drop its newest line: it is trimmed
//     from the front only, past MaxBytes;
//   - record an environment value: only names are kept (EnvNames);
//   - import probe, proc or agent: probe results and process facts arrive as
//     already-marshalable values, so the arrows keep pointing down.
//
// Writers of one service's files are serialised by the caller (the agent and
// the CLI share the per-service lock); Read may run at any time.
package snapshot
