// Package runtrace is svc-ctl's ledger: a SQLite file (modernc.org/sqlite,
// pure Go) holding one run_trace row for every run of everything — watchdog
// cycles, jobs, the agent's own starts — plus agent heartbeats, job
// registrations and the notification outbox (outbox.go, deliveries.go): an
// event is queued in the same transaction as the run row that raised it
// (FinishEmit, RecordEmit, with the Emitter package notify hands in), and
// claimed with a lease, so it survives a crash and never has two attempts
// in flight. What a delivery's state becomes is notify's to decide (its
// delivery state machine); this package writes the steps it is handed
// (StepDeliveries). Every read of rows goes through scanRows (rows.go).
//
// A run is written twice: Begin inserts it as "running" before the work
// starts, Finish records the verdict by id with
// "WHERE id = ? AND outcome = 'running'". So a run whose process died is
// still visible (the reaper later marks it failed/abandoned), and a late or
// duplicate writer can never overwrite a verdict. A slot with no row at all is
// therefore a fact: the run was never triggered.
//
// A writer that must not lose rows to a full disk writes through a Queue
// (queue*.go; every write through writeOrQueue): a row the database cannot take (disk full, quota, read-only,
// locked, damaged: Cause) is kept in memory, bounded, and written later in
// order with its own times; what still waits when the process stops goes to
// a private spill file outside the state dir (spill.go) that the next agent
// imports. Health says why writes fail, for status, verify and metrics.
//
// What the package must never do:
//   - overwrite a finished run, or accept an outcome/reason outside the closed
//     list in reasons.go (the CHECK constraints enforce the same in SQL);
//   - alter a database written by a newer svc-ctl (ErrNewerSchema), or one
//     that is damaged or not ours (ErrDamaged): both are left byte-for-byte
//     as found, so the person can inspect or move them aside;
//   - let a transient "database is locked" reach a caller: writes take the
//     write lock up front (BEGIN IMMEDIATE) and busy errors are retried
//     with jittered backoff for up to Options.BusyTimeout;
//   - store secrets: detail is short JSON the caller builds, capped at 8 KiB;
//   - lose a row silently: a row that is neither written, queued nor
//     spilled is counted (Health.Lost, CloseResult.Lost);
//   - import anything but the standard library, modernc.org/sqlite and
//     internal/fsutil.
//
// Times are stored as unix milliseconds UTC and returned in UTC.
package runtrace
