package main

import (
	"strings"
	"testing"
)

// TestExecJobReportedVerdictAndWhy: a command run through `svc-ctl exec`
// reports its own verdict through SVCCTL_RESULT as a scheduled job does:
// the skip is recorded as skipped/job.REASON with its words (exec exits 0,
// as the command did), `why` explains that the job decided it, and a
// job-reported failure passes its exit code through.
func TestExecJobReportedVerdictAndWhy(t *testing.T) {
	cfg, _ := writeConfig(t, "", `
[[job]]
name = "pull"
schedule = "@every 1h"
timezone = "UTC"
external = true
`)
	r := svcctl(t, "exec", "pull", "--config", cfg, "--", testsvcBin, "--result", "skipped downstream-timeout: api.example.com timed out", "--exit-now", "0")
	if r.code != 0 {
		t.Fatalf("exec: %+v", r)
	}
	r = svcctl(t, "runs", "--job", "pull", "--reason", "job.downstream-timeout", "--config", cfg)
	if r.code != 0 || !strings.Contains(r.stdout, "skipped/job.downstream-timeout") || !strings.Contains(r.stdout, "api.example.com timed out") {
		t.Fatalf("runs: %+v", r)
	}
	r = svcctl(t, "why", "job:pull", "--config", cfg)
	if r.code != 0 || !strings.Contains(r.stdout, "skipped, as the job itself decided (downstream-timeout)") ||
		!strings.Contains(r.stdout, "api.example.com timed out") || !strings.Contains(r.stdout, "a skip is not retried") {
		t.Fatalf("why: %+v", r)
	}
	r = svcctl(t, "exec", "pull", "--config", cfg, "--", testsvcBin, "--result", "failed quota: 429", "--exit-now", "3")
	if r.code != 3 {
		t.Fatalf("a job-reported failure: exit %d, want the command's 3: %+v", r.code, r)
	}
	r = svcctl(t, "why", "job:pull", "--config", cfg)
	if r.code != 1 || !strings.Contains(r.stdout, "failed, as the job itself reported (quota): 429 (its command exited with code 3)") {
		t.Fatalf("why after the failure: %+v", r)
	}
}
