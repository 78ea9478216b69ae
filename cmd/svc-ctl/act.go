package main

import (
	"context"
	"fmt"
	"sync"

	"svcctl/control"
	"svcctl/runtrace"
	"svcctl/watchdog"
)

// serviceAct is what `start` and `restart` share: the services named (or
// --all), handed to the running agent when there is one (or when the config
// does not load, to the agent that still runs the config it loaded before),
// else done here, each service at once, and one line of result each.
type serviceAct struct {
	kind control.Kind // the request the running agent takes instead
	all  bool
	json bool
	// alone: never hand the act to the agent (the backstop's --scheduled
	// start is the check that the agent runs at all).
	alone bool
	do    func(ctx context.Context, sup *watchdog.Supervisor, name string) watchdog.Result
}

func runServiceAct(ctx context.Context, g *globals, a serviceAct, names []string) error {
	sup, closeRec, err := newSupervisor(g)
	if err != nil {
		if !a.alone {
			var results []watchdog.Result
			if handed, herr := handOver(ctx, g, err, a.kind, control.ActArgs{Names: names, All: a.all}, &results); handed {
				return printHanded(g, results, herr, a.json)
			}
		}
		return err
	}
	defer closeRec()
	names, err = serviceNames(sup, names, a.all)
	if err != nil {
		return err
	}
	if !a.alone {
		var results []watchdog.Result
		if handed, herr := toAgent(ctx, g, sup.Paths, a.kind, control.ActArgs{Names: names}, &results); handed {
			return printHanded(g, results, herr, a.json)
		}
	}
	results := make([]watchdog.Result, len(names))
	var wg sync.WaitGroup
	for i, n := range names {
		wg.Go(func() { results[i] = a.do(ctx, sup, n) })
	}
	wg.Wait()
	return printResults(g, results, a.json)
}

// printHanded prints what the agent answered, or the error of the hand-over.
func printHanded(g *globals, results []watchdog.Result, err error, asJSON bool) error {
	if err != nil {
		return err
	}
	return printResults(g, results, asJSON)
}

func printResults(g *globals, results []watchdog.Result, asJSON bool) error {
	failed := false
	for _, r := range results {
		if r.Outcome == runtrace.OutcomeFailed {
			failed = true
		}
	}
	if asJSON {
		if err := writeJSON(g.stdout, results); err != nil {
			return err
		}
	} else {
		for _, r := range results {
			fmt.Fprintf(g.stdout, "%s: %s\n", r.Service, r.Message)
			if r.RecordError != "" {
				fmt.Fprintf(g.stderr, "%s: warning: not recorded in run_trace: %s\n", r.Service, r.RecordError)
			}
		}
	}
	if failed {
		return errSilent
	}
	return nil
}

// serviceNames is the services a start or restart acts on: every one with
// --all, else the names given, each of which must be a service.
func serviceNames(sup *watchdog.Supervisor, names []string, all bool) ([]string, error) {
	if all {
		names = nil
		for _, s := range sup.Config().Services {
			names = append(names, s.Name)
		}
		return names, nil
	}
	for _, n := range names {
		if sup.Config().Service(n) == nil {
			return nil, unknownService(sup.Config(), n)
		}
	}
	return names, nil
}
