//go:build unix

package main

import (
	"os"
	"syscall"
)

// reloadSignals ask a running agent to re-read its config.
var reloadSignals = []os.Signal{syscall.SIGHUP}
