package agentlog

import (
	"io"
	"log/slog"
	"os"
	"sync/atomic"
	"time"

	"svcctl/internal/redact"
)

// Level maps a validated config level to slog's.
func Level(s string) slog.Level {
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

// New returns a JSON-lines logger on w with times in UTC and every
// secret redacted: values under secret-looking keys, every env value of the
// configuration wherever it appears, also inside nested detail.
func New(w io.Writer, level slog.Level, r *redact.Redactor) *slog.Logger {
	var lv slog.LevelVar
	lv.Set(level)
	var red atomic.Pointer[redact.Redactor]
	red.Store(r)
	return NewLive(w, &lv, &red)
}

// NewLive is New whose level and redactor a reload can change.
func NewLive(w io.Writer, level *slog.LevelVar, r *atomic.Pointer[redact.Redactor]) *slog.Logger {
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
