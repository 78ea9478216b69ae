package agentlog

import (
	"bytes"
	"errors"
	"log/slog"
	"strings"
	"testing"

	"svcctl/internal/redact"
	"svcctl/internal/redact/redacttest"
)

// TestRedactCorpusWriters runs the shared corpus through agent.log: the
// message, attributes, errors and nested values. (A job's output tail, the
// agent's other writer, runs it in agent/jobs.)
func TestRedactCorpusWriters(t *testing.T) {
	red := redact.New(redacttest.Values()...)
	var lines []string
	for _, c := range redacttest.Cases {
		lines = append(lines, c.In)
	}
	in := strings.Join(lines, "\n")

	var buf bytes.Buffer
	log := New(&buf, slog.LevelDebug, red)
	for _, l := range lines {
		log.Info(l, "detail", l, "err", errors.New(l), "nested", map[string]any{"line": l, "password": "opensesame42"})
	}
	redacttest.Check(t, "agent.log", in, buf.String())
}
