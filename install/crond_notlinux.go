//go:build !linux

package install

// cronDaemonRunning: unknown outside Linux (the cron backstop is Linux-only).
var cronDaemonRunning = func() (running, known bool) { return false, false }
