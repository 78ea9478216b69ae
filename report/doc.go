// Package report answers people's questions from the evidence on disk:
// status (the agent, each service and job), why (the four-way diagnosis of a
// slot or cycle), missing (expected slots with no row), verify (acceptance
// by evidence, PASS/WARN/FAIL per layer) and drill (kill a service and time
// the agent bringing it back).
//
// What this package must never do: change what it reports on — it reads the
// state directory and the ledger, and only drill acts (one identity-checked
// kill, which is its purpose); judge the agent alive by anything but its
// heartbeat and its lock; or print a hint that names a file svc-ctl did not
// write there (state.Paths names them all).
package report
