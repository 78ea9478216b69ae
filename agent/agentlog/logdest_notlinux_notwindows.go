//go:build !linux && !windows

package agentlog

import (
	"errors"
	"io"
)

// noDestination: journald and the Event Log are not on this OS (config
// refuses them here); macOS's unified log has no interface a program
// without cgo can write to, so the agent's log there is agent.log.
type noDestination struct{ io.WriteCloser }

func openJournal() (*noDestination, error) {
	return nil, errors.New("journald is not on this OS")
}

func openEventLog() (*noDestination, error) {
	return nil, errors.New("the Windows Event Log is not on this OS")
}
