// Package metrics is the agent's counters (watchdog cycles, restarts by
// whom, job runs, each service's state, the ledger's write health), printed
// for /metrics in Prometheus' text format and handed to an otlp channel as
// points, and the bounds of the server that answers /metrics and /healthz.
//
// What this package must never do: start a goroutine (the agent runs the
// server under its L2 net), hold more connections than its share of the
// descriptor limit, or count a run's start (it counts verdicts).
package metrics
