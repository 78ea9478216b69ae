//go:build !linux

package install

// cronDaemonRunning: unknown outside Linux (the cron backstop is Linux-only).
func cronDaemonRunning() (running, known bool) { return false, false }
