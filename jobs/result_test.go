package jobs

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"svcctl/internal/redact"
	"svcctl/runtrace"
)

// resultJob is a job whose command writes line to $SVCCTL_RESULT and exits
// with code.
func resultJob(name, line string, code int) string {
	return fmt.Sprintf(`
[[job]]
name = %q
schedule = "@every 1h"
timezone = "UTC"
command = [%q, "--result", %q, "--say", "working", "--exit-now", "%d"]
`, name, testsvcBin, line, code)
}

// TestJobReportedVerdicts: a job run by the agent reports its own verdict
// through SVCCTL_RESULT: skipped and failed with its reason as job.REASON,
// its words as why, its exit code kept; a line that is not the grammar is
// failed/exit-nonzero saying why, whatever the exit code; no line leaves
// the exit code to decide.
func TestJobReportedVerdicts(t *testing.T) {
	cases := []struct {
		name, line string
		code       int
		outcome    runtrace.Outcome
		reason     runtrace.Reason
		why        string
	}{
		{"skip", "skipped downstream-timeout: api.example.com timed out after 30s", 0, runtrace.OutcomeSkipped, "job.downstream-timeout", "api.example.com timed out after 30s"},
		{"fail", "failed quota-exceeded: 429 from the model API", 3, runtrace.OutcomeFailed, "job.quota-exceeded", "429 from the model API"},
		{"bare", "skipped holiday", 0, runtrace.OutcomeSkipped, "job.holiday", ""},
		{"typo", "skiped holiday: typo", 0, runtrace.OutcomeFailed, runtrace.ReasonExitNonzero, ""},
		{"upper", "failed Bad_Reason: x", 1, runtrace.OutcomeFailed, runtrace.ReasonExitNonzero, ""},
		{"long", "skipped " + strings.Repeat("a", 41) + ": x", 0, runtrace.OutcomeFailed, runtrace.ReasonExitNonzero, ""},
	}
	var toml strings.Builder
	for _, c := range cases {
		toml.WriteString(resultJob(c.name, c.line, c.code))
	}
	e := jobEnv(t, toml.String())
	p := e.paths
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res := runJobT(context.Background(), p, e.cfg.Job(c.name), redact.New())
			if res.Outcome != c.outcome || res.Reason != c.reason {
				t.Fatalf("%q: %s/%s, want %s/%s (detail %v)", c.line, res.Outcome, res.Reason, c.outcome, c.reason, res.Detail)
			}
			if res.Detail["exit_code"] != c.code {
				t.Errorf("exit code %v, want %d kept", res.Detail["exit_code"], c.code)
			}
			if c.why != "" && res.Detail["why"] != c.why {
				t.Errorf("why %q, want %q", res.Detail["why"], c.why)
			}
			if c.reason == runtrace.ReasonExitNonzero && !strings.Contains(fmt.Sprint(res.Detail["result_error"]), "is not `skipped REASON: words`") {
				t.Errorf("a bad line without result_error saying so: %v", res.Detail)
			}
			if !runtrace.ValidReason(res.Outcome, res.Reason) {
				t.Errorf("%s/%s would be refused by the ledger", res.Outcome, res.Reason)
			}
		})
	}
}

// TestJobWithoutResultKeepsExitCode: no SVCCTL_RESULT line, the exit code
// decides, as before.
func TestJobWithoutResultKeepsExitCode(t *testing.T) {
	e := jobEnv(t, fmt.Sprintf(`
[[job]]
name = "plain"
schedule = "@every 1h"
timezone = "UTC"
command = %s
`, jobCommand(4, "", "no verdict of its own")))
	res := runJobT(context.Background(), e.paths, e.cfg.Job("plain"), redact.New())
	if res.Outcome != runtrace.OutcomeFailed || res.Reason != runtrace.ReasonExitNonzero || res.Detail["result_error"] != nil {
		t.Fatalf("%s/%s %v", res.Outcome, res.Reason, res.Detail)
	}
}

// TestJobResultWordsAreRedacted: a job's words pass the same secret rules
// as its output.
func TestJobResultWordsAreRedacted(t *testing.T) {
	e := jobEnv(t, resultJob("leaky", "failed auth: token sk-live-51HxyzSECRET rejected", 1))
	res := runJobT(context.Background(), e.paths, e.cfg.Job("leaky"), redact.New("sk-live-51HxyzSECRET"))
	if why := fmt.Sprint(res.Detail["why"]); strings.Contains(why, "SECRET") || !strings.Contains(why, "[redacted]") {
		t.Fatalf("why %q", why)
	}
}
