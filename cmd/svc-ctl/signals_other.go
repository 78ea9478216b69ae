//go:build !unix

package main

import "os"

// reloadSignals: Windows has no SIGHUP; `svc-ctl reload` is the way there.
var reloadSignals []os.Signal
