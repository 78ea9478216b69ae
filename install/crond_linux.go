//go:build linux

package install

import (
	"os"
	"path/filepath"
	"strings"
)

// cronDaemons are the process names of the cron daemons Linux distributions ship.
var cronDaemons = map[string]bool{"cron": true, "crond": true, "cronie": true, "fcron": true, "dcron": true, "anacron": false}

// cronDaemonRunning scans /proc for a cron daemon (a variable for tests).
var cronDaemonRunning = func() (running, known bool) {
	comms, err := filepath.Glob("/proc/[0-9]*/comm")
	if err != nil || len(comms) == 0 {
		return false, false
	}
	for _, c := range comms {
		b, err := os.ReadFile(c)
		if err == nil && cronDaemons[strings.TrimSpace(string(b))] {
			return true, true
		}
	}
	return false, true
}
