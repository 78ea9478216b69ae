// Package probe runs the health and dependency checks of svc-ctl: tcp, http,
// exec, dns, file and cert, one file per kind, all behind one signature
// (Func) and a name->Func table (probe.go). Every check returns a Result that
// says not only whether the target is healthy but why not, in words a person
// can act on ("connection refused", "timeout after 2s (connected, no
// answer)", "status 500, want 2xx"): the agent records that reason in
// run_trace.
//
// Rules this package keeps:
//
//   - The Spec's Timeout bounds the whole check, connect to last byte; a
//     target that accepts and never answers is unhealthy within it.
//   - A check never judges liveness by a PID, never runs a shell (exec is argv
//     only) and never reuses a connection between checks.
//   - HTTP proxies come from the service's env (Spec.Env), never from the
//     agent's own environment: the check must see what the service sees.
//   - A Result never holds a secret: URL userinfo and query values are
//     redacted from Target, env values never appear in Detail.
//
// probe imports only config and the standard library (plus
// golang.org/x/net/http/httpproxy for the proxy rules). It never writes
// state, never logs and never restarts anything: deciding what an unhealthy
// Result means is the agent's job.
package probe
