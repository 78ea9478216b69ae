package config

import (
	"errors"
	"strings"
	"time"

	_ "time/tzdata" // an unknown zone is an error on every host, never a silent UTC (Windows has no zoneinfo)

	"github.com/robfig/cron/v3"

	"svcctl/schedule"
)

// cronParser accepts exactly what the schedule package runs: five fields or
// a descriptor (@daily, @every 1h).
var cronParser = cron.NewParser(cron.Minute | cron.Hour | cron.Dom | cron.Month | cron.Dow | cron.Descriptor)

var errCronPanic = errors.New("the cron parser could not read it")

const scheduleHint = "use 5 fields (minute hour day-of-month month day-of-week) like \"30 9 * * *\", or @hourly, @daily, @weekly, @monthly, @every 1h"

// jobs validates every [[job]]; names are unique among jobs (a job and a
// service may share a name: they are different namespaces).
func (c *checker) jobs(raws []rawJob) []Job {
	seen := map[string]int{}
	out := make([]Job, 0, len(raws))
	for i := range raws {
		p := indexKey("job", i)
		c.name(p, raws[i].Name, seen)
		out = append(out, c.job(p, &raws[i]))
	}
	return out
}

func (c *checker) job(p string, r *rawJob) Job {
	if !r.External {
		c.command(p+".command", r.Command, ", or set external = true if another scheduler runs it")
	}
	c.schedule(p+".schedule", r.Schedule)
	envFile := c.path(p+".env_file", r.EnvFile)
	j := Job{
		Name:       r.Name,
		Schedule:   r.Schedule,
		Timezone:   r.Timezone,
		Location:   c.location(p+".timezone", r.Timezone),
		Command:    r.Command,
		Dir:        c.path(p+".dir", r.Dir),
		SearchPath: c.searchPath(p+".search_path", r.SearchPath),
		EnvKeys:    sortedKeys(r.Env),
		Env:        c.envFile(p+".env_file", envFile, c.env(p+".env", r.Env)),
		EnvFile:    envFile,
		RunAs:      c.runAs(p, r.User, r.Group),
		LogMax:     c.size(p+".log_max", r.LogMax, defaultJobLogMax, minLogMax),
		Timeout:    c.positive(p+".timeout", r.Timeout, defaultJobTimeout),
		CatchUp:    r.CatchUp,
		Grace:      c.nonNegative(p+".grace", r.Grace, defaultJobGrace),
		External:   r.External,
		Depends:    c.depends(p+".depends", r.Depends),
	}
	j.Ping, j.PingFile = c.pingKeys(p, r.Ping, r.PingFile)
	return j
}

func (c *checker) schedule(path, s string) {
	switch {
	case strings.TrimSpace(s) == "":
		c.fail(path, "missing schedule: %s", scheduleHint)
	case strings.HasPrefix(s, "TZ=") || strings.HasPrefix(s, "CRON_TZ="):
		// The cron library would honour it and override timezone: two
		// sources of truth for when a job runs.
		c.fail(path, "%q: put the zone in timezone, not in the schedule", s)
	default:
		if _, err := parseCron(s); err != nil {
			c.fail(path, "invalid schedule %q: %v; %s", s, err, scheduleHint)
			return
		}
		// The schedule package is stricter than the cron library (@every under
		// a second, expressions that never fire): check with what the agent
		// runs, so a schedule accepted here is never refused at run time.
		if _, err := schedule.Parse(s, time.UTC); err != nil {
			c.fail(path, "%v", err)
		}
	}
}

// parseCron guards the cron library: a schedule from a config file must
// give an error, never a crash of the agent.
func parseCron(s string) (sched cron.Schedule, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = errCronPanic
		}
	}()
	return cronParser.Parse(s)
}

// location resolves a job's zone. It is required: a schedule read in an
// unstated zone is how a job silently fires at the wrong hour.
func (c *checker) location(path, tz string) *time.Location {
	if tz == "" {
		c.fail(path, `missing timezone: set an IANA zone like "Asia/Shanghai", or "Local" for the host's zone`)
		return nil
	}
	if tz == "Local" {
		return time.Local
	}
	loc, err := time.LoadLocation(tz)
	if iana, ok := windowsZones[tz]; err != nil && ok {
		// A Windows host names its zone "W. Europe Standard Time" (tzutil /g):
		// the same zone, read from the same built-in data as its IANA name.
		loc, err = time.LoadLocation(iana)
	}
	if err != nil {
		c.fail(path, `unknown time zone %q: use an IANA name like "Asia/Shanghai" or "Europe/Berlin", a Windows name like "W. Europe Standard Time", or "Local"`, tz)
		return nil
	}
	return loc
}

//go:generate go run ./internal/genwinzones
