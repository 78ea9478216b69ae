package config

import (
	"time"

	"svcctl/schedule"
)

// Cron parses the job's schedule in its zone, anchored (for @every) at its
// registration: the one reading of a job's schedule that the agent, `exec`,
// `missing`, `why` and `status` share.
func (j *Job) Cron(registered time.Time) (*schedule.Schedule, error) {
	s, err := schedule.Parse(j.Schedule, j.Location)
	if err != nil {
		return nil, err
	}
	return s.WithAnchor(registered), nil
}

// Registration identifies the job's schedule in the ledger's registrations:
// a change of schedule or zone is a new registration, and slots before it
// are not expected.
func (j *Job) Registration() string { return j.Schedule + " | " + j.Timezone }
