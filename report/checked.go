package report

import "svcctl/state"

// checkedSince moves each service's HealthAt to when the running agent last
// looked, where agent.status says so and that is newer: the agent keeps a
// healthy service's state.json as it was while its cycles change nothing
// (the verdict shown is then still the current one: a changed verdict is
// written at once).
func checkedSince(ss []ServiceStatus, live *state.AgentReport) {
	if live == nil {
		return
	}
	for i := range ss {
		s := &ss[i]
		if at, ok := live.Checked[s.Name]; ok && s.Health != "" && !s.HealthAt.IsZero() && at.After(s.HealthAt) {
			s.HealthAt = at
		}
	}
}
