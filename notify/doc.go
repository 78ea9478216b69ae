// Package notify tells people: it derives events from what runs recorded
// (service.down, service.given-up, service.recovered, job.failed,
// job.skipped, job.missing, agent), queues them in the outbox of the run_trace
// ledger in the same transaction as the row that raised them, and delivers
// them through the configured [[notify]] channels — webhook, ntfy,
// healthchecks, desktop, command, otlp — one file per kind behind Channel, as
// probe does with its kinds. The otlp channel alone sends in batches: the
// outbox in order, the finished run rows after a cursor, and the agent's
// counters (otlp_export.go; docs/fleet.md). It also sends the healthchecks-style pings of
// services' and jobs' `ping` keys (Pinger).
//
// Delivery is at least once: the event id is the receiver's
// Idempotency-Key, a failed attempt is retried with exponential backoff and
// jitter across agent restarts, offline periods and host sleep (the outbox
// is on disk and retry times are wall-clock), and a claim with a lease keeps
// one delivery from ever having two attempts in flight. min_interval folds a
// flapping subject's events into one message that says how many were held
// back. Events older than 7 days are dropped, with a count (Dropped). The
// delivery state machine (pending to delivered, failed or held, and the
// retry schedule) is deliveries.go's; runtrace stores the rows and writes
// the steps it decides.
//
// What the package must never do: send a secret (event details are scrubbed
// by internal/redact; URLs and tokens appear in logs and errors only through
// redact.SecretURL), run a shell (command channels run an argv), follow a
// redirect (a signed body must not go where it was not sent), block a run's
// verdict on a receiver (the outbox decouples them), or lose an event
// silently.
package notify
