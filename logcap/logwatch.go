package logcap

import "os"

// logWatcher tells the log cap loop when a service's log was written, so a
// flood is cut within capReactMin instead of at the next scheduled look
// (logcap.go). Where the OS cannot say (noWatcher), the schedule alone
// holds the logs.
type logWatcher interface {
	// follow watches the file that path names now (fi), again if a restart
	// replaced the file since.
	follow(path string, fi os.FileInfo)
	forget(path string)
	// written yields the path (as given to follow) of a log just written.
	// It is unbuffered: writes the loop has not read yet coalesce.
	written() <-chan string
	// watching is true while written would tell of a write to path (its
	// regular look can then be rarer: logEvery).
	watching(path string) bool
	close()
}

// noWatcher says nothing: a nil channel blocks for ever in a select.
type noWatcher struct{}

func (noWatcher) follow(string, os.FileInfo) {}
func (noWatcher) forget(string)              {}
func (noWatcher) written() <-chan string     { return nil }
func (noWatcher) watching(string) bool       { return false }
func (noWatcher) close()                     {}
