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
	"svcctl/report"
	"svcctl/runtrace"
	"svcctl/state"
)

func TestScheduleNextDiffersByZone(t *testing.T) {
	cfg, _ := writeConfig(t, "", fmt.Sprintf(`
[[job]]
name = "sh"
schedule = "30 9 * * *"
timezone = "Asia/Shanghai"
command = [%q, "--exit-now", "0"]

[[job]]
name = "utc"
schedule = "30 9 * * *"
timezone = "UTC"
command = [%q, "--exit-now", "0"]
`, testsvcBin, testsvcBin))
	next := func(job string) []slotView {
		r := svcctl(t, "schedule", "next", job, "-n", "3", "--json", "--config", cfg)
		var out struct{ Next []slotView }
		if err := json.Unmarshal([]byte(r.stdout), &out); err != nil || r.code != 0 {
			t.Fatalf("%+v %v", r, err)
		}
		return out.Next
	}
	sh, utc := next("sh"), next("utc")
	if len(sh) != 3 || len(utc) != 3 || sh[0].UTC == utc[0].UTC {
		t.Fatalf("Shanghai %v and UTC %v give the same slots: a zone fell back to UTC", sh, utc)
	}
	if !strings.HasSuffix(sh[0].UTC, "T01:30:00Z") || !strings.Contains(sh[0].Zone, "09:30:00+08:00") {
		t.Fatalf("Shanghai 09:30 is 01:30 UTC: %+v", sh[0])
	}
	if !strings.HasSuffix(utc[0].UTC, "T09:30:00Z") {
		t.Fatalf("UTC: %+v", utc[0])
	}
}

// TestExternalJobExecMissingWhy: cron runs `svc-ctl exec`; a slot the outside
// scheduler skipped shows up in `missing`, and `why` names it.
func TestExternalJobExecMissingWhy(t *testing.T) {
	cfgPath, state := writeConfig(t, "", `
[[job]]
name = "backup"
schedule = "@every 1h"
timezone = "UTC"
external = true
grace = "5m"
`)
	cfg, err := config.Load(cfgPath)
	if err != nil {
		t.Fatal(err)
	}
	// The job was registered 2h10m ago: slots at +1h and +2h are due.
	reg := time.Now().Add(-2*time.Hour - 10*time.Minute).UTC().Truncate(time.Second)
	if err := os.MkdirAll(state, 0o700); err != nil {
		t.Fatal(err)
	}
	st, err := runtrace.Open(filepath.Join(state, "svc-ctl.db"), runtrace.Options{Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.Register(context.Background(), "job:backup", cfg.Job("backup").Registration(), reg); err != nil {
		t.Fatal(err)
	}
	st.Close()

	// The outside scheduler ran the newest slot through svc-ctl exec...
	r := svcctl(t, "exec", "backup", "--scheduled", "--config", cfgPath, "--", testsvcBin, "--say", "backed up", "--exit-now", "0")
	if r.code != 0 || !strings.Contains(r.stdout, "backed up") {
		t.Fatalf("exec: %+v", r)
	}
	// ...and exec passes a failing command's exit code through.
	if r := svcctl(t, "exec", "backup", "--config", cfgPath, "--", testsvcBin, "--exit-now", "5"); r.code != 5 {
		t.Fatalf("exit code not passed through: %+v", r)
	}
	// The first slot, skipped by the outside scheduler, is missing.
	r = svcctl(t, "missing", "--since", "1d", "--json", "--config", cfgPath)
	var ms []report.MissingSlot
	if err := json.Unmarshal([]byte(r.stdout), &ms); err != nil || r.code != 1 || len(ms) != 1 {
		t.Fatalf("missing: %+v (%v)", r, err)
	}
	if want := reg.Add(time.Hour); !ms[0].Slot.Equal(want) {
		t.Fatalf("missing slot %s, want %s", ms[0].Slot, want)
	}
	r = svcctl(t, "why", "job:backup", "--at", ms[0].Slot.Format(time.RFC3339), "--config", cfgPath)
	if r.code != 1 || !strings.Contains(r.stdout, "row:    none") || !strings.Contains(r.stdout, "never run") || !strings.Contains(r.stdout, "external") {
		t.Fatalf("why: %+v", r)
	}
	// The latest slot has its row: ok, with where to look next.
	r = svcctl(t, "why", "backup", "--at", reg.Add(2*time.Hour).Format(time.RFC3339), "--config", cfgPath)
	if r.code != 0 || !strings.Contains(r.stdout, "ok/completed") {
		t.Fatalf("why at the latest slot: %+v", r)
	}
	// Without --at, why answers for the newest run: the manual one that failed.
	r = svcctl(t, "why", "backup", "--config", cfgPath)
	if r.code != 1 || !strings.Contains(r.stdout, "failed/exit-nonzero, trigger manual") {
		t.Fatalf("why: %+v", r)
	}
}

func TestCorruptLedgerStillRestarts(t *testing.T) {
	addr := testutil.FreeAddr(t)
	cfg, stateDir := writeConfig(t, "", webService("web", addr, "10m"))
	p := state.Paths{State: stateDir}
	os.MkdirAll(stateDir, 0o700)
	db := p.DB()
	if err := os.WriteFile(db, []byte(strings.Repeat("this is not a database ", 400)), 0o600); err != nil {
		t.Fatal(err)
	}
	r := svcctl(t, "start", "web", "--config", cfg)
	if r.code != 0 || !strings.HasPrefix(r.stdout, "web: started") {
		t.Fatalf("start with a damaged ledger: %+v", r)
	}
	if !strings.Contains(r.stderr, db) || !strings.Contains(r.stderr, "not recorded") {
		t.Fatalf("the failure to record is not visible: %q", r.stderr)
	}
	if !testutil.Healthy(addr) {
		t.Fatal("service not running")
	}
	last, err := state.ReadLast(p.WatchdogLast())
	if err != nil || last.Services["web"] == nil || last.Services["web"].RecordError == "" || last.Services["web"].Reason != "started" {
		t.Fatalf("watchdog.last.json does not keep the outcome and the record error: %+v %v", last.Services["web"], err)
	}
	r = svcctl(t, "runs", "--config", cfg)
	if r.code != 1 || !strings.Contains(r.stderr, db) {
		t.Fatalf("runs on a damaged ledger: %+v", r)
	}
	r = svcctl(t, "status", "--config", cfg)
	if !strings.Contains(r.stdout, "ledger: UNAVAILABLE") {
		t.Fatalf("status does not say the ledger is unavailable: %+v", r)
	}
}
