// Package winjob holds the Windows job-object calls that proc (one named job
// per service instance) and probe (one anonymous kill-on-close job per exec
// check) share: start a process suspended, put it in a job before it runs,
// resume it. It must never log, and it builds only on Windows.
package winjob
