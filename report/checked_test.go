package report

import (
	"testing"
	"time"

	"svcctl/state"
)

// TestCheckedSinceTakesTheAgentsNewerLook: a verdict's time comes from
// agent.status when the agent looked since state.json was written; never
// for a service whose verdict is not shown (stopped: no HealthAt), never
// backwards, never without a live agent.
func TestCheckedSinceTakesTheAgentsNewerLook(t *testing.T) {
	t0 := time.Date(2026, 12, 2, 1, 0, 0, 0, time.UTC)
	ss := []ServiceStatus{
		{Name: "web", Health: "healthy", HealthAt: t0},
		{Name: "old", Health: "healthy", HealthAt: t0},
		{Name: "stopped", Health: HealthNotChecked},
		{Name: "other", Health: "healthy", HealthAt: t0},
	}
	live := &state.AgentReport{Checked: map[string]time.Time{"web": t0.Add(time.Minute), "old": t0.Add(-time.Minute), "stopped": t0.Add(time.Minute)}}
	checkedSince(ss, nil)
	if !ss[0].HealthAt.Equal(t0) {
		t.Fatal("no live agent: HealthAt moved")
	}
	checkedSince(ss, live)
	want := []time.Time{t0.Add(time.Minute), t0, {}, t0}
	for i, s := range ss {
		if !s.HealthAt.Equal(want[i]) {
			t.Errorf("%s: HealthAt %s, want %s", s.Name, s.HealthAt, want[i])
		}
	}
}
