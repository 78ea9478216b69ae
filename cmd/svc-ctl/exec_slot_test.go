package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"svcctl/config"
	"svcctl/runtrace"
)

// TestExecScheduledNeverFutureSlotAndOverlap: `exec --scheduled`
// records the newest slot at or before now, never the one due 30 s from
// now, and a second run for the same slot is recorded skipped/overlap and
// not run.
func TestExecScheduledNeverFutureSlotAndOverlap(t *testing.T) {
	cfgPath, stateDir := writeConfig(t, "", `
[[job]]
name = "backup"
schedule = "@every 1h"
timezone = "UTC"
external = true
`)
	cfg, err := config.Load(cfgPath)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now().UTC().Truncate(time.Second)
	reg := now.Add(-2*time.Hour + 30*time.Second) // slots: now-59m30s, and now+30s (not due yet)
	os.MkdirAll(stateDir, 0o700)
	st, err := runtrace.Open(filepath.Join(stateDir, "svc-ctl.db"), runtrace.Options{Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.Register(context.Background(), "job:backup", cfg.Job("backup").Registration(), reg); err != nil {
		t.Fatal(err)
	}
	st.Close()
	r := svcctl(t, "exec", "backup", "--scheduled", "--config", cfgPath, "--", testsvcBin, "--say", "first run", "--exit-now", "0")
	if r.code != 0 || !strings.Contains(r.stdout, "first run") {
		t.Fatalf("exec: %+v", r)
	}
	r = svcctl(t, "exec", "backup", "--scheduled", "--config", cfgPath, "--", testsvcBin, "--say", "second run", "--exit-now", "0")
	if r.code != 0 || strings.Contains(r.stdout, "second run") || !strings.Contains(r.stderr, "not run again (recorded skipped/overlap)") {
		t.Fatalf("second exec for the same slot: %+v", r)
	}
	r = svcctl(t, "runs", "--job", "backup", "--json", "--config", cfgPath)
	var rows []runtrace.Run
	if err := json.Unmarshal([]byte(r.stdout), &rows); err != nil || len(rows) != 2 {
		t.Fatalf("runs: %v %s", err, r.stdout)
	}
	want := reg.Add(time.Hour)
	for _, row := range rows {
		if !row.ScheduledAt.Equal(want) {
			t.Errorf("row #%d serves slot %s, want %s (a slot after now is never served)", row.ID, row.ScheduledAt, want)
		}
	}
	if rows[0].Reason != runtrace.ReasonOverlap || rows[1].Reason != runtrace.ReasonCompleted {
		t.Fatalf("rows: %s, %s; want skipped/overlap after ok/completed", rows[0].Verdict(), rows[1].Verdict())
	}
}
