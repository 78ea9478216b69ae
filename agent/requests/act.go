package requests

import (
	"context"
	"fmt"
	"sync"

	"svcctl/config"
	"svcctl/control"
	"svcctl/runtrace"
	"svcctl/watchdog"
)

// A person's start, stop, restart, pause or resume handed to the agent: the
// work is the watchdog's, exactly as the verb does it from a shell, through
// the supervisor the agent gives (of the config in force, naming the person
// who asked, whose spawns the agent watches as its own).

// Names is what the request acts on: every service (and job, for pause
// and resume) with All, else the names, each checked.
func Names(cfg *config.Config, kind control.Kind, args control.ActArgs) ([]string, error) {
	jobsToo := kind == control.KindPause || kind == control.KindResume
	if args.All {
		names := watchdog.ServiceNames(cfg)
		if jobsToo {
			names = append(names, watchdog.JobNames(cfg)...)
		}
		return names, nil
	}
	for _, n := range args.Names {
		switch {
		case cfg.Service(n) != nil:
		case jobsToo && cfg.Job(n) != nil:
		case jobsToo:
			return nil, watchdog.UnknownTarget(cfg, n)
		default:
			return nil, watchdog.UnknownService(cfg, n)
		}
	}
	return args.Names, nil
}

// Act does the verb for each name, as the command would.
func Act(ctx context.Context, sup *watchdog.Supervisor, kind control.Kind, names []string, args control.ActArgs) (any, error) {
	switch kind {
	case control.KindStart, control.KindRestart:
		results := make([]watchdog.Result, len(names))
		var wg sync.WaitGroup
		for i, n := range names {
			wg.Go(func() {
				req := watchdog.Request{Trigger: runtrace.TriggerManual, Manual: true, Restart: kind == control.KindRestart}
				results[i], _ = sup.Ensure(ctx, n, req) // each name was checked
			})
		}
		wg.Wait()
		return results, nil
	case control.KindStop:
		var reps []watchdog.StopReport
		for _, n := range names {
			rep, err := sup.Stop(ctx, n)
			if err != nil {
				return nil, fmt.Errorf("stop %s: %w", n, err)
			}
			reps = append(reps, rep)
		}
		return reps, nil
	case control.KindPause:
		var out []control.PauseDone
		for _, n := range names {
			p, err := sup.PauseTarget(n, args.For, args.Why)
			if err != nil {
				return nil, err
			}
			out = append(out, control.PauseDone{Name: n, Pause: p})
		}
		return out, nil
	case control.KindResume:
		var out []watchdog.ResumeReport
		for _, n := range names {
			rep, err := sup.Resume(ctx, n)
			if err != nil {
				return nil, err
			}
			out = append(out, rep)
		}
		return out, nil
	}
	return nil, fmt.Errorf("no such verb %q", kind)
}
