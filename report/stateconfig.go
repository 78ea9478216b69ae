package report

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"svcctl/config"
	"svcctl/runtrace"
	"svcctl/state"
)

// StateOnlyConfig is what a reader knows when the config file does not
// load: the state dir (config.PeekStateDir), and the services and jobs
// svc-ctl recorded there: the services/ and jobs/ directories, the
// services of watchdog.last.json, the ids of run_trace and the jobs'
// registrations (schedule and zone, as the agent last loaded them). Every
// other key takes its default: a service's `log` is the default one, its
// interval 10m. status, runs, why, missing, logs and snapshot answer from
// it; nothing that acts does. The config's Path stays the broken file's.
func StateOnlyConfig(ctx context.Context, path, stateDir string) (*config.Config, error) {
	p := state.Paths{State: stateDir}
	if err := state.Readable(p); err != nil {
		return nil, err
	}
	services := map[string]bool{}
	jobs := map[string]string{} // name -> "schedule | zone", "" when unknown
	for _, n := range dirNames(filepath.Join(stateDir, "services")) {
		services[n] = true
	}
	for _, n := range dirNames(filepath.Join(stateDir, "jobs")) {
		jobs[n] = ""
	}
	if last, err := state.ReadLast(p.WatchdogLast()); err == nil && last != nil {
		for n := range last.Services {
			services[n] = true
		}
	}
	if st, err := openForRead(p.DB()); err == nil {
		defer st.Close()
		ids, _ := st.JobIDs(ctx)
		for _, id := range ids {
			switch kind, name := runtrace.SplitID(id); kind {
			case runtrace.KindWatchdog:
				services[name] = true
			case runtrace.KindJob:
				if _, ok := jobs[name]; !ok {
					jobs[name] = ""
				}
			}
		}
		regs, _ := st.Registrations(ctx)
		for id, spec := range regs {
			if kind, name := runtrace.SplitID(id); kind == runtrace.KindJob {
				jobs[name] = spec
			}
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "[agent]\nstate_dir = %q\n", stateDir)
	for _, n := range sortedKeys(services) {
		fmt.Fprintf(&b, "[[service]]\nname = %q\ncommand = [\"(not known: the config does not load)\"]\nhealth.tcp = \"127.0.0.1:1\"\n", n)
	}
	for _, n := range sortedKeys(jobs) {
		schedule, zone, ok := strings.Cut(jobs[n], " | ")
		if !ok {
			// No registration: never loaded by an agent; external at least
			// keeps anything from expecting its slots.
			schedule, zone = "@yearly", "UTC"
			fmt.Fprintf(&b, "[[job]]\nname = %q\nschedule = %q\ntimezone = %q\nexternal = true\n", n, schedule, zone)
			continue
		}
		fmt.Fprintf(&b, "[[job]]\nname = %q\nschedule = %q\ntimezone = %q\ncommand = [\"(not known: the config does not load)\"]\n", n, schedule, zone)
	}
	cfg, err := config.Parse([]byte(b.String()), "")
	if err != nil {
		return nil, fmt.Errorf("what the state dir %s records does not make a config: %w", stateDir, err)
	}
	cfg.Path = path
	// Each service's log where the agent recorded it (state.json: the
	// agent writes it at every spawn), with the user it ran as: a log
	// outside the state dir is found without the file, and read as the
	// agent would.
	for i := range cfg.Services {
		svc := &cfg.Services[i]
		if st, err := state.LoadService(p.StateFile(svc.Name)); err == nil && st.Log != "" {
			svc.Log, svc.RunAs = st.Log, config.RunAs{User: st.User}
		}
	}
	return cfg, nil
}

// dirNames lists the directories under dir that are names svc-ctl would
// accept (anything else there is not a service or job of ours).
func dirNames(dir string) []string {
	es, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range es {
		if e.IsDir() && config.ValidName(e.Name()) {
			out = append(out, e.Name())
		}
	}
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
