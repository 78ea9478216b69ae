package agentlog

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"gopkg.in/natefinch/lumberjack.v2"

	"svcctl/config"
)

// Where the agent's log goes ([agent] log_destinations): agent.log (file),
// journald's native protocol (journal, Linux), the Windows Event Log
// through the svc-ctl source that `svc-ctl install` registers (eventlog).
// Every destination gets each line, redacted once by the logger. A
// person's agent copies each line to its console (Options.Console: the
// human lines on a terminal); otherwise stderr gets a line only when no
// destination took it: so under the systemd unit, whose stderr is the
// journal, no line reaches the journal twice, and a line the disk refused
// still reaches somebody.

// logDestination is one place lines go.
type logDestination struct {
	name string
	w    io.Writer
	c    io.Closer
}

// openLogDestinations opens each configured destination. One that cannot be
// opened (no journald here, the event source not registered) is left out
// and named in errs: the agent says so through the others.
func openLogDestinations(a config.Agent, agentLog string) (ds []logDestination, errs []error) {
	for _, d := range a.LogDestinations {
		switch d {
		case config.LogFile:
			lj := &lumberjack.Logger{Filename: agentLog, MaxSize: 10, MaxBackups: 3}
			ds = append(ds, logDestination{name: d, w: lj, c: lj})
		case config.LogJournal:
			w, err := openJournal()
			if err != nil {
				errs = append(errs, fmt.Errorf("journal: %w", err))
				continue
			}
			ds = append(ds, logDestination{name: d, w: w, c: w})
		case config.LogEventLog:
			w, err := openEventLog()
			if err != nil {
				errs = append(errs, fmt.Errorf("eventlog: %w", err))
				continue
			}
			ds = append(ds, logDestination{name: d, w: w, c: w})
		}
	}
	return ds, errs
}

// fanout writes each line to every destination and to the console when
// there is one; stderr gets it when there is no console and no destination
// took it.
type fanout struct {
	ds      []logDestination
	console io.Writer
	stderr  io.Writer
}

// Open opens the configured destinations ([agent] log_destinations, agent.log
// at agentLog) behind one writer. The destinations that could not be opened
// are named in errs, for the caller to log through the others.
func Open(a config.Agent, agentLog string, stderr *os.File, console io.Writer) (w io.WriteCloser, errs []error) {
	ds, errs := openLogDestinations(a, agentLog)
	return newFanout(ds, stderr, console), errs
}

func newFanout(ds []logDestination, stderr *os.File, console io.Writer) *fanout {
	f := &fanout{ds: ds, console: console}
	if stderr != nil {
		f.stderr = stderr
	}
	return f
}

func (f *fanout) Write(p []byte) (int, error) {
	if f.console != nil {
		f.console.Write(p)
	}
	took := 0
	var errs []error
	for _, d := range f.ds {
		if _, err := d.w.Write(p); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", d.name, err))
			continue
		}
		took++
	}
	if took > 0 || f.console != nil {
		return len(p), nil // a person saw a line no destination took; their trouble is told elsewhere (ledger, agent.status)
	}
	if f.stderr != nil {
		if _, err := f.stderr.Write(p); err == nil {
			return len(p), nil
		}
	}
	if len(errs) > 0 {
		return 0, errors.Join(errs...)
	}
	return len(p), nil
}

func (f *fanout) Close() error {
	var errs []error
	for _, d := range f.ds {
		errs = append(errs, d.c.Close())
	}
	return errors.Join(errs...)
}

// logLine is one JSON line of the agent's log, read back for destinations
// that keep fields of their own (journald) or text (the Event Log).
type logLine struct {
	Level string
	Msg   string
	Attrs []logAttr // in the order the line has them, time, level and msg left out
}

type logAttr struct{ Key, Text string }

// parseLogLine reads one line as slog's JSON handler wrote it: strings as
// they are, anything else (numbers, objects) as its JSON text.
func parseLogLine(p []byte) (logLine, error) {
	var l logLine
	dec := json.NewDecoder(bytes.NewReader(p))
	dec.UseNumber()
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return l, fmt.Errorf("not a log line: %q", firstBytes(p))
	}
	for dec.More() {
		kt, err := dec.Token()
		if err != nil {
			return l, err
		}
		key, _ := kt.(string)
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return l, err
		}
		text := string(raw)
		var s string
		if json.Unmarshal(raw, &s) == nil {
			text = s
		}
		switch key {
		case "time":
		case "level":
			l.Level = text
		case "msg":
			l.Msg = text
		default:
			l.Attrs = append(l.Attrs, logAttr{Key: key, Text: text})
		}
	}
	return l, nil
}

// text is the line for people: the event name, then key=value pairs
// (values with spaces quoted).
func (l logLine) text() string {
	var b strings.Builder
	b.WriteString(l.Msg)
	for _, a := range l.Attrs {
		b.WriteString(" ")
		b.WriteString(a.Key)
		b.WriteString("=")
		if strings.ContainsAny(a.Text, " \t\n\"") {
			b.WriteString(fmt.Sprintf("%q", a.Text))
		} else {
			b.WriteString(a.Text)
		}
	}
	return b.String()
}

func firstBytes(p []byte) []byte {
	if len(p) > 40 {
		return p[:40]
	}
	return p
}
