package agent

import (
	"io"
	"log/slog"
	"os"
	"sync/atomic"
	"time"

	"svcctl/internal/redact"

	"gopkg.in/natefinch/lumberjack.v2"
)

// LogLevel maps a validated config level to slog's.
func LogLevel(s string) slog.Level {
	switch s {
	case "debug":
		return slog.LevelDebug
	case "warn":
		return slog.LevelWarn
	case "error":
		return slog.LevelError
	default:
		return slog.LevelInfo
	}
}

// NewLogger returns a JSON-lines logger on w with times in UTC and every
// secret redacted: values under secret-looking keys, every env value of the
// configuration wherever it appears, also inside nested detail.
func NewLogger(w io.Writer, level slog.Level, r *redact.Redactor) *slog.Logger {
	var lv slog.LevelVar
	lv.Set(level)
	var red atomic.Pointer[redact.Redactor]
	red.Store(r)
	return newLiveLogger(w, &lv, &red)
}

// newLiveLogger is NewLogger whose level and redactor a reload can change.
func newLiveLogger(w io.Writer, level *slog.LevelVar, r *atomic.Pointer[redact.Redactor]) *slog.Logger {
	h := slog.NewJSONHandler(w, &slog.HandlerOptions{
		Level: level,
		ReplaceAttr: func(groups []string, a slog.Attr) slog.Attr {
			return redactAttr(r.Load(), groups, a)
		},
	})
	return slog.New(h).With("pid", os.Getpid())
}

func redactAttr(r *redact.Redactor, groups []string, a slog.Attr) slog.Attr {
	if len(groups) == 0 && a.Key == slog.TimeKey && a.Value.Kind() == slog.KindTime {
		return slog.String(slog.TimeKey, a.Value.Time().UTC().Format(time.RFC3339Nano))
	}
	if redact.IsSecretKey(a.Key) {
		return slog.String(a.Key, redact.Placeholder)
	}
	switch a.Value.Kind() {
	case slog.KindString:
		return slog.String(a.Key, r.String(a.Value.String()))
	case slog.KindAny:
		v := a.Value.Any()
		if err, ok := v.(error); ok {
			return slog.String(a.Key, r.String(err.Error()))
		}
		return slog.Any(a.Key, r.Value(v))
	}
	return a
}

// agentLogWriter is agent.log, size-rotated by lumberjack (10 MB x 3),
// copied to console when there is one (a person's agent). A line that
// agent.log refuses (its disk is full) goes to stderr instead, which the
// service manager keeps (the journal): the line saying the disk is full
// must reach somebody.
func agentLogWriter(path string, stderr *os.File, console io.Writer) (io.Writer, io.Closer) {
	lj := &lumberjack.Logger{Filename: path, MaxSize: 10, MaxBackups: 3}
	if console != nil {
		return bothWriter{lj, console}, lj
	}
	if stderr != nil {
		return fallbackWriter{w: lj, alt: stderr}, lj
	}
	return lj, lj
}

// bothWriter writes every line to the log and the console, whichever
// refuses it: a person watching sees the line the disk could not take.
type bothWriter struct{ log, console io.Writer }

func (b bothWriter) Write(p []byte) (int, error) {
	b.console.Write(p)
	if _, err := b.log.Write(p); err != nil {
		return len(p), nil // the person saw it; the log's own trouble is told elsewhere (ledger, agent.status)
	}
	return len(p), nil
}

// fallbackWriter writes to w, and a line w refuses to alt, whole (a line
// cut where the disk filled would be unreadable in either place).
type fallbackWriter struct{ w, alt io.Writer }

func (f fallbackWriter) Write(p []byte) (int, error) {
	n, err := f.w.Write(p)
	if err == nil {
		return n, nil
	}
	if _, aerr := f.alt.Write(p); aerr != nil {
		return n, err
	}
	return len(p), nil
}
