package state

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"svcctl/runtrace"
)

// agent.status keeps its size: every report is an in-place rewrite of
// blocks allocated at start, and a reader gets the newest report back.
func TestStatusFileRewritesInPlace(t *testing.T) {
	p := Paths{State: t.TempDir()}
	sf, err := OpenStatusFile(p)
	if err != nil {
		t.Fatal(err)
	}
	defer sf.Close()
	now := time.Date(2026, 3, 1, 3, 1, 38, 0, time.UTC)
	r := AgentReport{Instance: "abc", PID: 42, StartedAt: now, UpdatedAt: now,
		Ledger: runtrace.Health{Cause: runtrace.CauseDiskFull, Since: now, Dir: "/var/lib/svc-ctl", Pending: 14,
			Error: strings.Repeat("e", 5000)}}
	if err := sf.Write(r); err != nil {
		t.Fatal(err)
	}
	r.Ledger.Pending = 15
	if err := sf.Write(r); err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(p.AgentStatus())
	if err != nil || st.Size() != statusSize || (runtime.GOOS != "windows" && st.Mode().Perm() != 0o600) {
		t.Fatalf("agent.status: %v %v", st, err)
	}
	got, err := ReadAgentReport(p)
	if err != nil {
		t.Fatal(err)
	}
	if got.PID != 42 || got.Ledger.Pending != 15 || got.Ledger.Up || !got.Ledger.Since.Equal(now) || len(got.Ledger.Error) > 0 {
		t.Fatalf("read back %+v", got)
	}
}

func TestReadAgentReportMissing(t *testing.T) {
	if _, err := ReadAgentReport(Paths{State: t.TempDir()}); !os.IsNotExist(err) {
		t.Fatalf("err = %v, want not-exist", err)
	}
	p := Paths{State: t.TempDir()}
	os.WriteFile(filepath.Join(p.State, AgentStatusFile), []byte("{not json"), 0o600)
	if _, err := ReadAgentReport(p); err == nil || !strings.Contains(err.Error(), "damaged") {
		t.Fatalf("err = %v", err)
	}
}
