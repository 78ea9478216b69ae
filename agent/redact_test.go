package agent

import (
	"bytes"
	"encoding/json"
	"errors"
	"log/slog"
	"strings"
	"testing"

	"svcctl/agent/agentlog"
	"svcctl/internal/redact"
	"svcctl/internal/redact/redacttest"
	"svcctl/runtrace"
)

// TestRedactCorpusWriters runs the shared corpus through the agent's
// writers: agent.log (message, attributes, errors, nested values) and a
// job's output tail, which `svc-ctl exec` and the agent's own job runs both
// keep through keepTail.
func TestRedactCorpusWriters(t *testing.T) {
	red := redact.New(redacttest.Values()...)
	var lines []string
	for _, c := range redacttest.Cases {
		lines = append(lines, c.In)
	}
	in := strings.Join(lines, "\n")

	var buf bytes.Buffer
	log := agentlog.New(&buf, slog.LevelDebug, red)
	for _, l := range lines {
		log.Info(l, "detail", l, "err", errors.New(l), "nested", map[string]any{"line": l, "password": "opensesame42"})
	}
	redacttest.Check(t, "agent.log", in, buf.String())

	res := JobResult{Outcome: runtrace.OutcomeFailed, Detail: map[string]any{}}
	res.keepTail(lines, red)
	b, _ := json.Marshal(res.Detail)
	redacttest.Check(t, "job and exec output tail", in, string(b))
}
