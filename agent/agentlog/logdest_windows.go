package agentlog

import (
	"errors"
	"fmt"
	"strings"
	"sync"

	"golang.org/x/sys/windows/svc/eventlog"
)

func openJournal() (*eventLogWriter, error) {
	return nil, errors.New("journald is not on this OS")
}

// eventSource is the Windows Event Log source the lines are reported
// through: the one `svc-ctl install` registers (as EventCreate's: an event
// id of 1 to 1000 shows the string it is given). A seam, because Wine's
// ReportEvent only pretends.
type eventSource interface {
	Info(eid uint32, msg string) error
	Warning(eid uint32, msg string) error
	Error(eid uint32, msg string) error
	Close() error
}

// eventSourceName is the source install registers (install.ServiceName).
const eventSourceName = "svc-ctl"

// openEventSource opens the source; tests replace it.
var openEventSource = func(name string) (eventSource, error) { return eventlog.Open(name) }

func openEventLog() (*eventLogWriter, error) {
	src, err := openEventSource(eventSourceName)
	if err != nil {
		return nil, fmt.Errorf("event source %s: %w (it is registered by `svc-ctl install`, the system agent's install; a per-user agent has none)", eventSourceName, err)
	}
	return &eventLogWriter{src: src}, nil
}

// Event ids: one per level, so a filter can pick them.
const (
	eventIDInfo  = 1
	eventIDWarn  = 2
	eventIDError = 3
)

// eventLogWriter reports each line as one event: the line as text (the
// event name, then key=value), at the line's level.
type eventLogWriter struct {
	mu  sync.Mutex
	src eventSource
}

func (w *eventLogWriter) Write(p []byte) (int, error) {
	l, err := parseLogLine(p)
	if err != nil {
		l = logLine{Level: "INFO", Msg: strings.TrimSpace(string(p))}
	}
	msg := l.text()
	w.mu.Lock()
	defer w.mu.Unlock()
	switch {
	case strings.HasPrefix(l.Level, "ERROR"):
		err = w.src.Error(eventIDError, msg)
	case strings.HasPrefix(l.Level, "WARN"):
		err = w.src.Warning(eventIDWarn, msg)
	case strings.HasPrefix(l.Level, "DEBUG"):
		return len(p), nil // the Event Log is for what people act on
	default:
		err = w.src.Info(eventIDInfo, msg)
	}
	if err != nil {
		return 0, fmt.Errorf("event log: %w", err)
	}
	return len(p), nil
}

func (w *eventLogWriter) Close() error { return w.src.Close() }
