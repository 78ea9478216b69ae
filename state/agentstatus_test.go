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

// When agent.status cannot be rewritten (a read-only state dir), the report
// goes elsewhere, and readers take the newer of the two; once agent.status
// takes writes again, the copy elsewhere is removed.
func TestStatusFileWritesElsewhereWhenRefused(t *testing.T) {
	p := Paths{State: t.TempDir()}
	t.Cleanup(func() { os.Remove(p.AgentStatusElsewhere()) })
	sf, err := OpenStatusFile(p)
	if err != nil {
		t.Fatal(err)
	}
	defer sf.Close()
	old := time.Now().Add(-time.Minute).UTC()
	if err := sf.Write(AgentReport{PID: 1, UpdatedAt: old}); err != nil {
		t.Fatal(err)
	}
	// agent.status refuses the rewrite, as on a file system remounted read-only
	good := sf.f
	ro, err := os.Open(p.AgentStatus())
	if err != nil {
		t.Fatal(err)
	}
	sf.f = ro
	now := time.Now().UTC()
	if err := sf.Write(AgentReport{PID: 2, UpdatedAt: now}); err != nil {
		t.Fatalf("Write with agent.status refused: %v", err)
	}
	if got, err := ReadAgentReport(p); err != nil || got.PID != 2 {
		t.Fatalf("ReadAgentReport = %+v, %v; want the newer report from elsewhere", got, err)
	}
	sf.f = good
	ro.Close()
	if err := sf.Write(AgentReport{PID: 3, UpdatedAt: time.Now().UTC()}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(p.AgentStatusElsewhere()); !os.IsNotExist(err) {
		t.Errorf("the copy elsewhere is still there: %v", err)
	}
	if got, _ := ReadAgentReport(p); got == nil || got.PID != 3 {
		t.Errorf("ReadAgentReport = %+v, want agent.status again", got)
	}
}
