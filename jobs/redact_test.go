package jobs

import (
	"encoding/json"
	"testing"

	"svcctl/internal/redact"
	"svcctl/internal/redact/redacttest"
	"svcctl/runtrace"
)

// TestRedactCorpusOutputTail runs the shared corpus through a job's output
// tail, which `svc-ctl exec` and the agent's own job runs both keep through
// keepTail. (agent.log, the agent's other writer, runs it in agent/agentlog.)
func TestRedactCorpusOutputTail(t *testing.T) {
	red := redact.New(redacttest.Values()...)
	lines, in := redacttest.Inputs()

	res := Result{Outcome: runtrace.OutcomeFailed, Detail: map[string]any{}}
	res.keepTail(lines, red)
	b, _ := json.Marshal(res.Detail)
	redacttest.Check(t, "job and exec output tail", in, string(b))
}
