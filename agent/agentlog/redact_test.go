package agentlog

import (
	"bytes"
	"errors"
	"log/slog"
	"testing"

	"svcctl/internal/redact"
	"svcctl/internal/redact/redacttest"
)

// TestRedactCorpusWriters runs the shared corpus through agent.log: the
// message, attributes, errors and nested values. (A job's output tail, the
// agent's other writer, runs it in jobs.)
func TestRedactCorpusWriters(t *testing.T) {
	red := redact.New(redacttest.Values()...)
	lines, in := redacttest.Inputs()

	var buf bytes.Buffer
	log := New(&buf, slog.LevelDebug, red)
	for _, l := range lines {
		log.Info(l, "detail", l, "err", errors.New(l), "nested", map[string]any{"line": l, "password": "opensesame42"})
	}
	redacttest.Check(t, "agent.log", in, buf.String())
}
