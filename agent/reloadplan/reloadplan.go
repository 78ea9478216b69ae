package reloadplan

import (
	"fmt"
	"reflect"
	"sort"
	"strings"

	"svcctl/config"
)

// instanceKeys are the keys of a service whose change needs a new
// instance: what the running one was started with.
var instanceKeys = map[string]bool{"command": true, "env": true, "env_file": true, "dir": true, "search_path": true, "user": true,
	"group": true, "log": true, "limits": true}

// Plan is what a new config changes (the reloaded row's detail).
type Plan struct {
	AddedServices   []string            `json:"added_services,omitempty"`
	RemovedServices []string            `json:"removed_services,omitempty"`
	ChangedServices map[string][]string `json:"changed_services,omitempty"` // name -> keys
	Replaced        []string            `json:"replaced,omitempty"`         // changed services whose instance is replaced
	AddedJobs       []string            `json:"added_jobs,omitempty"`
	RemovedJobs     []string            `json:"removed_jobs,omitempty"`
	ChangedJobs     map[string][]string `json:"changed_jobs,omitempty"`
	Unchanged       int                 `json:"unchanged"`
	NeedsRestart    []string            `json:"needs_restart,omitempty"`
}

func (p *Plan) Empty() bool {
	return len(p.AddedServices)+len(p.RemovedServices)+len(p.ChangedServices)+len(p.AddedJobs)+
		len(p.RemovedJobs)+len(p.ChangedJobs) == 0
}

// Compare compares the config in force with the file's new one, and
// returns what changes and the config to put in force: the new services
// and jobs, the new [agent] values that apply while running, and the
// [agent] values and [[notify]] channels the agent started with where
// they need a restart.
func Compare(old, next *config.Config) (Plan, *config.Config) {
	eff := *next
	p := Plan{ChangedServices: map[string][]string{}, ChangedJobs: map[string][]string{}}
	for i := range next.Services {
		s := &next.Services[i]
		o := old.Service(s.Name)
		switch keys := serviceChanges(o, s); {
		case o == nil:
			p.AddedServices = append(p.AddedServices, s.Name)
		case len(keys) > 0:
			p.ChangedServices[s.Name] = keys
			if Replaces(keys) {
				p.Replaced = append(p.Replaced, s.Name)
			}
		default:
			p.Unchanged++
		}
	}
	for i := range old.Services {
		if next.Service(old.Services[i].Name) == nil {
			p.RemovedServices = append(p.RemovedServices, old.Services[i].Name)
		}
	}
	for i := range next.Jobs {
		j := &next.Jobs[i]
		o := old.Job(j.Name)
		switch keys := jobChanges(o, j); {
		case o == nil:
			p.AddedJobs = append(p.AddedJobs, j.Name)
		case len(keys) > 0:
			p.ChangedJobs[j.Name] = keys
		default:
			p.Unchanged++
		}
	}
	for i := range old.Jobs {
		if next.Job(old.Jobs[i].Name) == nil {
			p.RemovedJobs = append(p.RemovedJobs, old.Jobs[i].Name)
		}
	}
	// What only a restart applies keeps its old value, and is listed.
	if next.Agent.Heartbeat != old.Agent.Heartbeat {
		p.NeedsRestart = append(p.NeedsRestart, "agent.heartbeat")
		eff.Agent.Heartbeat = old.Agent.Heartbeat
	}
	if next.Agent.MetricsListen != old.Agent.MetricsListen {
		p.NeedsRestart = append(p.NeedsRestart, "agent.metrics_listen")
		eff.Agent.MetricsListen = old.Agent.MetricsListen
	}
	// The agent's own ping and its log's destinations are set up at start.
	if next.Agent.Ping != old.Agent.Ping || next.Agent.PingEvery != old.Agent.PingEvery {
		p.NeedsRestart = append(p.NeedsRestart, "agent.ping")
		eff.Agent.Ping, eff.Agent.PingFile, eff.Agent.PingEvery = old.Agent.Ping, old.Agent.PingFile, old.Agent.PingEvery
	}
	if !reflect.DeepEqual(next.Agent.LogDestinations, old.Agent.LogDestinations) {
		p.NeedsRestart = append(p.NeedsRestart, "agent.log_destinations")
		eff.Agent.LogDestinations = old.Agent.LogDestinations
	}
	if !reflect.DeepEqual(next.Notify, old.Notify) {
		p.NeedsRestart = append(p.NeedsRestart, "[[notify]]")
		eff.Notify = old.Notify
	}
	sort.Strings(p.Replaced)
	return p, &eff
}

// Replaces says whether a change of keys needs a new instance.
func Replaces(keys []string) bool {
	for _, k := range keys {
		if instanceKeys[k] {
			return true
		}
	}
	return false
}

// serviceChanges lists the keys (as the file names them) in which two
// definitions of a service differ; nil when o is nil or they are equal.
func serviceChanges(o, n *config.Service) []string {
	if o == nil {
		return nil
	}
	return changedKeys([]keyEq{
		{"command", eq(o.Command, n.Command)}, {"env", eq(o.Env, n.Env)}, {"env_file", o.EnvFile == n.EnvFile},
		{"dir", o.Dir == n.Dir}, {"search_path", eq(o.SearchPath, n.SearchPath)},
		{"user", o.RunAs.User == n.RunAs.User}, {"group", o.RunAs.Group == n.RunAs.Group}, {"log", o.Log == n.Log}, {"log_max", o.LogMax == n.LogMax}, {"interval", o.Interval == n.Interval},
		{"start_timeout", o.StartTimeout == n.StartTimeout}, {"stop_timeout", o.StopTimeout == n.StopTimeout},
		{"health", eq(o.Health, n.Health)}, {"depends", eq(o.Depends, n.Depends)}, {"restart", eq(o.Restart, n.Restart)},
		{"limits", o.Limits == n.Limits}, {"ping", o.Ping == n.Ping},
		// How the instance is stopped applies to its next stop, and
		// pid_file to the next look at it: none needs a new instance.
		{"stop_signal", o.StopSignal == n.StopSignal}, {"kill_mode", o.KillMode == n.KillMode},
		{"stop_command", eq(o.StopCommand, n.StopCommand)}, {"pid_file", o.PidFile == n.PidFile},
	})
}

// jobChanges is serviceChanges for jobs. The zone is compared by name (a
// *time.Location caches what it looked up).
func jobChanges(o, n *config.Job) []string {
	if o == nil {
		return nil
	}
	return changedKeys([]keyEq{
		{"schedule", o.Schedule == n.Schedule}, {"timezone", o.Timezone == n.Timezone}, {"command", eq(o.Command, n.Command)},
		{"dir", o.Dir == n.Dir}, {"search_path", eq(o.SearchPath, n.SearchPath)}, {"env", eq(o.Env, n.Env)},
		{"env_file", o.EnvFile == n.EnvFile}, {"user", o.RunAs.User == n.RunAs.User}, {"group", o.RunAs.Group == n.RunAs.Group}, {"log_max", o.LogMax == n.LogMax},
		{"timeout", o.Timeout == n.Timeout}, {"catch_up", o.CatchUp == n.CatchUp}, {"grace", o.Grace == n.Grace},
		{"external", o.External == n.External}, {"depends", eq(o.Depends, n.Depends)}, {"ping", o.Ping == n.Ping},
	})
}

type keyEq struct {
	key   string
	equal bool
}

func changedKeys(ks []keyEq) []string {
	var out []string
	for _, k := range ks {
		if !k.equal {
			out = append(out, k.key)
		}
	}
	return out
}

func eq(a, b any) bool { return reflect.DeepEqual(a, b) }

// Summary is the reloaded row's message: what changed, in a line.
func (p Plan) Summary() string {
	var parts []string
	add := func(what string, names []string) {
		if len(names) > 0 {
			sort.Strings(names)
			parts = append(parts, what+" "+strings.Join(names, ", "))
		}
	}
	add("services added:", p.AddedServices)
	add("services removed:", p.RemovedServices)
	add("services changed:", keysOf(p.ChangedServices))
	add("replaced:", p.Replaced)
	add("jobs added:", p.AddedJobs)
	add("jobs removed:", p.RemovedJobs)
	add("jobs changed:", keysOf(p.ChangedJobs))
	if p.Empty() {
		parts = append(parts, "no service or job changed")
	}
	parts = append(parts, fmt.Sprintf("%d unchanged", p.Unchanged))
	if len(p.NeedsRestart) > 0 {
		parts = append(parts, "needs an agent restart: "+strings.Join(p.NeedsRestart, ", "))
	}
	return "reloaded: " + strings.Join(parts, "; ")
}

func keysOf(m map[string][]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}
