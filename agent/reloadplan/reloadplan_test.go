package reloadplan

import (
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"svcctl/config"
)

// What a reload does with a change of each key, for every field of the
// config types: the field list comes from the types by reflection, so a
// field added without its row here fails TestReloadPlanCoversEveryKey, and
// each row is checked by changing that field alone.

// serviceKeyRow: how a change of one config.Service field is reported.
type serviceKeyRow struct {
	key      string // as the file names it; "" when the field is no key of its own
	replaces bool   // the running instance is replaced at once
	why      string // for key == "": why no change is reported
}

var serviceKeys = map[string]serviceKeyRow{
	"Name":                   {why: "the service's identity: another name is another service (one removed, one added)"},
	"Command":                {key: "command", replaces: true},
	"Dir":                    {key: "dir", replaces: true},
	"SearchPath":             {key: "search_path", replaces: true},
	"Env":                    {key: "env", replaces: true},
	"EnvKeys":                {why: "which env names are written in the file (verify's secrets check): a change of them is a change of Env"},
	"EnvFile":                {key: "env_file", replaces: true},
	"RunAs.User":             {key: "user", replaces: true},
	"RunAs.Group":            {key: "group", replaces: true},
	"Log":                    {key: "log", replaces: true},
	"LogMax":                 {key: "log_max"},
	"Interval":               {key: "interval"},
	"StartTimeout":           {key: "start_timeout"},
	"StopTimeout":            {key: "stop_timeout"},
	"StopSignal":             {key: "stop_signal"}, // how the instance is stopped: its next stop, no new instance
	"KillMode":               {key: "kill_mode"},
	"StopCommand":            {key: "stop_command"},
	"PidFile":                {key: "pid_file"}, // read at the next look
	"Health.TCP":             {key: "health"},
	"Health.HTTP":            {key: "health"},
	"Health.ExpectStatus":    {key: "health"},
	"Health.ExpectBody":      {key: "health"},
	"Health.Timeout":         {key: "health"},
	"Health.Confirm":         {key: "health"},
	"Health.Exec":            {key: "health"},
	"Depends":                {key: "depends"},
	"Restart.BackoffInitial": {key: "restart"},
	"Restart.BackoffMax":     {key: "restart"},
	"Restart.GiveUpAfter":    {key: "restart"},
	"Restart.RetryGivenUp":   {key: "restart"},
	"Restart.LoopRestarts":   {key: "restart"},
	"Restart.LoopWindow":     {key: "restart"},
	"Limits.Memory":          {key: "limits", replaces: true},
	"Limits.CPU":             {key: "limits", replaces: true},
	"Limits.For":             {key: "limits", replaces: true},
	"Ping":                   {key: "ping"},
	"PingFile":               {why: "where ping was read from: the URL itself (Ping) is what is compared"},
}

// jobKeys: how a change of one config.Job field is reported (a changed job
// restarts its loop; a run in flight goes on).
var jobKeys = map[string]serviceKeyRow{
	"Name":        {why: "the job's identity: another name is another job"},
	"Schedule":    {key: "schedule"},
	"Timezone":    {key: "timezone"},
	"Location":    {why: "resolved from timezone, compared by its name (a *time.Location caches lookups)"},
	"Command":     {key: "command"},
	"Dir":         {key: "dir"},
	"SearchPath":  {key: "search_path"},
	"Env":         {key: "env"},
	"EnvKeys":     {why: "which env names are written in the file (verify's secrets check): a change of them is a change of Env"},
	"EnvFile":     {key: "env_file"},
	"RunAs.User":  {key: "user"},
	"RunAs.Group": {key: "group"},
	"LogMax":      {key: "log_max"},
	"Timeout":     {key: "timeout"},
	"CatchUp":     {key: "catch_up"},
	"Grace":       {key: "grace"},
	"External":    {key: "external"},
	"Depends":     {key: "depends"},
	"Ping":        {key: "ping"},
	"PingFile":    {why: "where ping was read from: the URL itself (Ping) is what is compared"},
}

// agentKeyRow: how a change of one [agent] value is put in force.
type agentKeyRow struct {
	key          string
	needsRestart bool   // listed, and the old value stays in force
	why          string // not planned at all (refused before planning)
}

var agentKeys = map[string]agentKeyRow{
	"StateDir":      {why: "refused before planning: an agent cannot move its state dir while it runs (loadForReload)"},
	"LogLevel":      {key: "agent.log_level"},
	"Retention":     {key: "agent.retention"},
	"DrainTimeout":  {key: "agent.drain_timeout"},
	"OnPanic":       {key: "agent.on_panic"},
	"Heartbeat":     {key: "agent.heartbeat", needsRestart: true},
	"MetricsListen": {key: "agent.metrics_listen", needsRestart: true},
	// The agent's own ping and its log are set up at start.
	"Ping":            {key: "agent.ping", needsRestart: true},
	"PingEvery":       {key: "agent.ping", needsRestart: true},
	"PingFile":        {why: "where ping was read from: the URL itself (Ping) is what is compared"},
	"LogDestinations": {key: "agent.log_destinations", needsRestart: true},
}

// configFields: the top-level fields, each a table of its own or no key.
var configFields = map[string]string{
	"Path": "not a key: the file's own path", "Digest": "not a key: the file's hash", "ModTime": "not a key: the file's mtime",
	"UnreadEnvFiles": "not a key: what LoadToRead could not read",
	"Includes":       "not a key of its own: what include matched; a pattern that now matches nothing is refused before planning (missingIncludes)",
	"Files":          "not a key: the files read, for the digest",
	"sources":        "not a key: which file defined each table (config check)",
	"Agent":          "agentKeys", "Services": "serviceKeys", "Jobs": "jobKeys", "Notify": "every field: needs an agent restart",
}

// leaves lists the fields of struct type t as dotted paths, going into the
// structs config declares (RunAs, Health, Restart, Limits) and stopping at
// anything else (a slice of them is one value: depends).
func leaves(t reflect.Type, prefix string) []string {
	var out []string
	for f := range t.Fields() {
		if f.Type.Kind() == reflect.Struct && f.Type.PkgPath() == t.PkgPath() {
			out = append(out, leaves(f.Type, prefix+f.Name+".")...)
			continue
		}
		out = append(out, prefix+f.Name)
	}
	return out
}

// changed returns a copy of v (a pointer to a struct) with the field at
// path given another value; nothing v shares (maps, slices) is modified.
func changed[T any](t *testing.T, v T, path string) T {
	t.Helper()
	out := v
	f := reflect.ValueOf(&out).Elem()
	for _, name := range strings.Split(path, ".") {
		f = f.FieldByName(name)
	}
	switch f.Kind() {
	case reflect.String:
		f.SetString(f.String() + "-changed")
	case reflect.Int, reflect.Int64:
		f.SetInt(f.Int() + 1)
	case reflect.Float64:
		f.SetFloat(f.Float() + 1)
	case reflect.Bool:
		f.SetBool(!f.Bool())
	case reflect.Slice:
		s := reflect.MakeSlice(f.Type(), f.Len()+1, f.Len()+1)
		reflect.Copy(s, f)
		if e := s.Index(f.Len()); e.Kind() == reflect.String {
			e.SetString("changed")
		}
		f.Set(s)
	case reflect.Map:
		m := reflect.MakeMap(f.Type())
		for it := f.MapRange(); it.Next(); {
			m.SetMapIndex(it.Key(), it.Value())
		}
		m.SetMapIndex(reflect.ValueOf("CHANGED"), reflect.ValueOf("changed"))
		f.Set(m)
	case reflect.Interface: // config.Notify.Keys: the keys of a kind its own file registers
		f.Set(reflect.ValueOf(&struct{ Changed bool }{true}))
	case reflect.Pointer:
		if f.Type() != reflect.TypeFor[*time.Location]() {
			t.Fatalf("%s: no way to change a %s: teach changed", path, f.Type())
		}
		f.Set(reflect.ValueOf(time.FixedZone("changed", 3600)))
	default:
		t.Fatalf("%s: no way to change a %s: teach changed", path, f.Type())
	}
	return out
}

func TestReloadPlanCoversEveryKey(t *testing.T) {
	var configOwn []string // Config's own fields: its structs are tables of their own
	for f := range reflect.TypeFor[config.Config]().Fields() {
		configOwn = append(configOwn, f.Name)
	}
	for _, tb := range []struct {
		typ    reflect.Type
		fields []string
		rows   []string
	}{
		{reflect.TypeFor[config.Service](), leaves(reflect.TypeFor[config.Service](), ""), slices.Collect(maps.Keys(serviceKeys))},
		{reflect.TypeFor[config.Job](), leaves(reflect.TypeFor[config.Job](), ""), slices.Collect(maps.Keys(jobKeys))},
		{reflect.TypeFor[config.Agent](), leaves(reflect.TypeFor[config.Agent](), ""), slices.Collect(maps.Keys(agentKeys))},
		{reflect.TypeFor[config.Config](), configOwn, slices.Collect(maps.Keys(configFields))},
	} {
		for _, f := range tb.fields {
			if !slices.Contains(tb.rows, f) {
				t.Errorf("%s field %s has no row in agent/reloadplan/reloadplan_test.go: say what a reload does when it changes", tb.typ, f)
			}
		}
		for _, r := range tb.rows {
			if !slices.Contains(tb.fields, r) {
				t.Errorf("%s has no field %s: remove its row", tb.typ, r)
			}
		}
	}
}

func TestReloadPlanServiceKeys(t *testing.T) {
	base := config.Service{Name: "web", Command: []string{"/bin/web"}, Env: map[string]string{"A": "1"}}
	for _, path := range leaves(reflect.TypeFor[config.Service](), "") {
		row, ok := serviceKeys[path]
		if !ok {
			continue // TestReloadPlanCoversEveryKey names it
		}
		next := changed(t, base, path)
		plan, eff := Compare(&config.Config{Services: []config.Service{base}}, &config.Config{Services: []config.Service{next}})
		switch {
		case path == "Name":
			if fmt.Sprint(plan.RemovedServices, plan.AddedServices) != "[web] [web-changed]" {
				t.Errorf("%s: plan %+v; want web removed, web-changed added", path, plan)
			}
		case row.key == "":
			if len(plan.ChangedServices) != 0 || plan.Unchanged != 1 {
				t.Errorf("%s (%s): plan %+v; want the service unchanged", path, row.why, plan)
			}
		default:
			if got := plan.ChangedServices["web"]; !slices.Equal(got, []string{row.key}) {
				t.Errorf("%s: changed keys %v, want [%s]", path, got, row.key)
			}
			if got := slices.Contains(plan.Replaced, "web"); got != row.replaces {
				t.Errorf("%s (%s): instance replaced %v, want %v", path, row.key, got, row.replaces)
			}
			if !reflect.DeepEqual(eff.Services[0], next) {
				t.Errorf("%s: the changed definition is not the one put in force", path)
			}
		}
	}
}

func TestReloadPlanJobKeys(t *testing.T) {
	base := config.Job{Name: "pull", Schedule: "@every 1h", Timezone: "UTC", Location: time.UTC, Command: []string{"/bin/pull"}}
	for _, path := range leaves(reflect.TypeFor[config.Job](), "") {
		row, ok := jobKeys[path]
		if !ok {
			continue
		}
		next := changed(t, base, path)
		plan, eff := Compare(&config.Config{Jobs: []config.Job{base}}, &config.Config{Jobs: []config.Job{next}})
		switch {
		case path == "Name":
			if fmt.Sprint(plan.RemovedJobs, plan.AddedJobs) != "[pull] [pull-changed]" {
				t.Errorf("%s: plan %+v; want pull removed, pull-changed added", path, plan)
			}
		case row.key == "":
			if len(plan.ChangedJobs) != 0 || plan.Unchanged != 1 {
				t.Errorf("%s (%s): plan %+v; want the job unchanged", path, row.why, plan)
			}
		default:
			if got := plan.ChangedJobs["pull"]; !slices.Equal(got, []string{row.key}) {
				t.Errorf("%s: changed keys %v, want [%s]", path, got, row.key)
			}
			if !reflect.DeepEqual(eff.Jobs[0], next) {
				t.Errorf("%s: the changed definition is not the one put in force", path)
			}
		}
	}
}

func TestReloadPlanAgentKeys(t *testing.T) {
	base := config.Agent{StateDir: "/var/lib/svc-ctl", LogLevel: "info", Retention: 40 * 24 * time.Hour,
		DrainTimeout: 30 * time.Second, OnPanic: "continue", Heartbeat: 30 * time.Second}
	for _, path := range leaves(reflect.TypeFor[config.Agent](), "") {
		row, ok := agentKeys[path]
		if !ok || row.why != "" {
			continue
		}
		next := changed(t, base, path)
		plan, eff := Compare(&config.Config{Agent: base}, &config.Config{Agent: next})
		want := next
		if row.needsRestart {
			want = base
			if !slices.Equal(plan.NeedsRestart, []string{row.key}) {
				t.Errorf("%s: needs restart %v, want [%s]", row.key, plan.NeedsRestart, row.key)
			}
		} else if len(plan.NeedsRestart) != 0 {
			t.Errorf("%s: needs restart %v, want nothing (it applies at once)", row.key, plan.NeedsRestart)
		}
		if !reflect.DeepEqual(eff.Agent, want) {
			t.Errorf("%s: in force %+v, want %+v", row.key, eff.Agent, want)
		}
	}
}

// Any change of a [[notify]] channel waits for an agent restart: the
// channels in force stay those the agent started with.
func TestReloadPlanNotifyKeys(t *testing.T) {
	base := config.Notify{Name: "hook", Kind: config.NotifyWebhook, URL: "https://example.invalid/hook"}
	for _, path := range leaves(reflect.TypeFor[config.Notify](), "") {
		next := changed(t, base, path)
		plan, eff := Compare(&config.Config{Notify: []config.Notify{base}}, &config.Config{Notify: []config.Notify{next}})
		if !slices.Equal(plan.NeedsRestart, []string{"[[notify]]"}) || !reflect.DeepEqual(eff.Notify, []config.Notify{base}) {
			t.Errorf("notify %s: needs restart %v, in force %+v; want [[[notify]]] and the old channel", path, plan.NeedsRestart, eff.Notify)
		}
	}
}
