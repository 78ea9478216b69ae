package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"svcctl/config"
	"svcctl/internal/testutil"
	"svcctl/runtrace"
)

// jobBlock is a [[job]] running testsvc with args, scheduled far apart so
// that only the test's runs happen.
func jobBlock(name string, extra string, args ...string) string {
	q := []string{fmt.Sprintf("%q", testsvcBin)}
	for _, a := range args {
		q = append(q, fmt.Sprintf("%q", a))
	}
	return fmt.Sprintf("\n[[job]]\nname = %q\nschedule = \"@every 1h\"\ntimezone = \"UTC\"\ncommand = [%s]\n%s", name, strings.Join(q, ", "), extra)
}

// lastRun is the newest row of job:NAME.
func lastRun(t *testing.T, cfg, name string) runtrace.Run {
	t.Helper()
	r := svcctl(t, "runs", "--job", "job:"+name, "-n", "1", "--json", "--config", cfg)
	var rows []runtrace.Run
	if err := json.Unmarshal([]byte(r.stdout), &rows); err != nil || len(rows) != 1 {
		t.Fatalf("runs --job %s: %+v (%v)", name, r, err)
	}
	return rows[0]
}

// TestRunJobNow: `svc-ctl run JOB` runs a configured job with its own argv,
// env, dir and result, through the running agent and, with none, in the
// command itself: its output on stdout as it comes, its exit code as the
// command's, the row trigger manual with no slot. Before, `start tick` said
// "no service named tick" and there was no way to run a job now.
func TestRunJobNow(t *testing.T) {
	dir := t.TempDir()
	web := testutil.FreeAddr(t)
	cfg, _ := writeConfig(t, "", webService("web", web, "1h")+
		jobBlock("report", fmt.Sprintf("env = { REPORT_TO = \"desk\" }\ndir = %q\n", dir), "--say-env", "REPORT_TO", "--say-dir", "--exit-now", "3")+
		jobBlock("sync", "", "--say", "nothing new", "--result", "skipped upstream-down: no network", "--exit-now", "0")+
		"\n[[job]]\nname = \"backup\"\nschedule = \"@every 1h\"\ntimezone = \"UTC\"\nexternal = true\n")

	check := func(how string) {
		t.Helper()
		r := svcctl(t, "run", "report", "--config", cfg)
		if r.code != 3 || !strings.Contains(r.stdout, "REPORT_TO=desk") || !strings.Contains(r.stdout, "dir="+dir) {
			t.Fatalf("%s: run report: %+v; want exit 3 and the job's own env and dir in its output", how, r)
		}
		if !strings.Contains(r.stderr, "report: failed/exit-nonzero: exit code 3") || !strings.Contains(r.stderr, "svc-ctl why --run ") {
			t.Errorf("%s: run report's last line: %q", how, r.stderr)
		}
		row := lastRun(t, cfg, "report")
		var d struct{ Via string }
		json.Unmarshal(row.Detail, &d)
		if row.Trigger != runtrace.TriggerManual || !row.ScheduledAt.IsZero() || row.Reason != runtrace.ReasonExitNonzero || d.Via != "svc-ctl run" {
			t.Errorf("%s: the row: %s trigger %s slot %v %s; want manual, no slot", how, row.Verdict(), row.Trigger, row.ScheduledAt, row.Detail)
		}
		r = svcctl(t, "run", "sync", "--config", cfg)
		if r.code != 0 || !strings.Contains(r.stdout, "nothing new") || !strings.Contains(r.stderr, "sync: skipped/job.upstream-down: no network") {
			t.Errorf("%s: run sync (the job reports its own skip): %+v", how, r)
		}
	}
	check("no agent")
	if r := svcctl(t, "run", "report", "--config", cfg); !strings.Contains(r.stderr, "no agent is running") {
		t.Errorf("with no agent the command does not say it runs the job itself: %q", r.stderr)
	}

	startAgentProcess(t, cfg)
	testutil.WaitFor(t, 20*time.Second, "the agent runs", func() bool { return testutil.Healthy(web) })
	check("through the agent")
	if r := svcctl(t, "run", "report", "--config", cfg); strings.Contains(r.stderr, "no agent is running") {
		t.Errorf("with an agent running the command ran the job itself: %q", r.stderr)
	}

	r := svcctl(t, "run", "backup", "--config", cfg)
	if r.code != 2 || !strings.Contains(r.stderr, "external = true") || !strings.Contains(r.stderr, "svc-ctl exec backup") {
		t.Errorf("run of an external job: %+v; want exit 2 pointing at exec", r)
	}
	r = svcctl(t, "run", "web", "--config", cfg)
	if r.code != 2 || !strings.Contains(r.stderr, "no job named web") {
		t.Errorf("run of a service: %+v", r)
	}
}

// TestRunRefusedWhileInFlight: a second `svc-ctl run` of a job whose run is
// in flight is refused, exit 1, naming that run, with the agent and
// without one (the job's lock).
func TestRunRefusedWhileInFlight(t *testing.T) {
	cfg, state := writeConfig(t, "", jobBlock("slow", "", "--exit-now", "0", "--sleep", "3s"))
	inFlight := func(how string) {
		t.Helper()
		first := startCLI(t, "run", "slow", "--config", cfg)
		var id int64
		testutil.WaitFor(t, 10*time.Second, "the first run's row", func() bool {
			rs := runsOf(t, state, "job:slow")
			if len(rs) > 0 && rs[0].Outcome == runtrace.OutcomeRunning {
				id = rs[0].ID
			}
			return id != 0
		})
		r := svcctl(t, "run", "slow", "--config", cfg)
		if r.code != 1 || !strings.Contains(r.stderr, "still going") || !strings.Contains(r.stderr, fmt.Sprintf("--run %d", id)) {
			t.Errorf("%s: a second run while #%d is in flight: %+v; want exit 1 naming it", how, id, r)
		}
		if err := first.Wait(); err != nil {
			t.Errorf("%s: the first run: %v", how, err)
		}
	}
	inFlight("no agent")
	startAgentProcess(t, cfg)
	testutil.WaitFor(t, 10*time.Second, "the agent", func() bool { _, err := os.Stat(filepath.Join(state, "agent.pid")); return err == nil })
	inFlight("through the agent")
}

// TestManualRunCoversNoSlot: a manual run is not a slot's run: the slots a
// schedule missed are still missing after it.
func TestManualRunCoversNoSlot(t *testing.T) {
	cfgPath, state := writeConfig(t, "", jobBlock("pull", "grace = \"5m\"\n", "--exit-now", "0"))
	cfg, err := config.Load(cfgPath)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(state, 0o700); err != nil {
		t.Fatal(err)
	}
	st, err := runtrace.Open(filepath.Join(state, "svc-ctl.db"), runtrace.Options{Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	reg := time.Now().Add(-2*time.Hour - 10*time.Minute).UTC().Truncate(time.Second)
	if _, err := st.Register(context.Background(), "job:pull", cfg.Job("pull").Registration(), reg); err != nil {
		t.Fatal(err)
	}
	if r := svcctl(t, "run", "pull", "--config", cfgPath); r.code != 0 {
		t.Fatalf("run pull: %+v", r)
	}
	r := svcctl(t, "missing", "--since", "3h", "--config", cfgPath)
	if r.code != 1 || strings.Count(r.stdout, "job:pull") != 2 {
		t.Fatalf("missing after a manual run: %+v; want the two slots still missing", r)
	}
}
