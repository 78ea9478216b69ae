//go:build unix

package main

import (
	"os/signal"
	"syscall"
)

// keepRunningWhenReaderGoes: a write to a stdout nobody reads any more
// (`svc-ctl run JOB | head -1`) returns an error instead of ending the
// process with SIGPIPE, so a run this command follows or runs goes on to
// its end and is recorded.
func keepRunningWhenReaderGoes() { signal.Ignore(syscall.SIGPIPE) }
