package main

import (
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"svcctl/config"
	"svcctl/runtrace"
	"svcctl/watchdog"
)

// unknownNameError is the one answer to a name that is no service or job of
// the config, whichever verb was given it: what is known instead. It is a
// watchdog.ErrUnknownName, and a usage error (exit 2) where it is returned.
type unknownNameError struct {
	name, what string // what: "service or job", "service", "job"
	known      []string
}

func (e unknownNameError) Error() string {
	known := "none configured"
	if len(e.known) > 0 {
		known = strings.Join(e.known, ", ")
	}
	return fmt.Sprintf("no %s named %s; known: %s", e.what, e.name, known)
}

func (e unknownNameError) Is(target error) bool { return target == watchdog.ErrUnknownName }

// unknownName is a usage error for a name that is neither a service nor a job.
func unknownName(cfg *config.Config, name string) error {
	return usageError{unknownNameError{name: name, what: "service or job", known: allNames(cfg)}}
}

// unknownService is a usage error for a name that is not a service.
func unknownService(cfg *config.Config, name string) error {
	return usageError{unknownNameError{name: name, what: "service", known: svcNames(cfg)}}
}

// unknownJob is a usage error for a name that is not a job.
func unknownJob(cfg *config.Config, name string) error {
	return usageError{unknownNameError{name: name, what: "job", known: jobNames(cfg)}}
}

func svcNames(cfg *config.Config) []string {
	out := make([]string, 0, len(cfg.Services))
	for _, s := range cfg.Services {
		out = append(out, s.Name)
	}
	return out
}

func jobNames(cfg *config.Config) []string {
	out := make([]string, 0, len(cfg.Jobs))
	for _, j := range cfg.Jobs {
		out = append(out, j.Name)
	}
	return out
}

func allNames(cfg *config.Config) []string { return append(svcNames(cfg), jobNames(cfg)...) }

// knownTarget reports whether id names a service or job of cfg: a bare
// name, watchdog:NAME, job:NAME, or agent.
func knownTarget(cfg *config.Config, id string) bool {
	if id == runtrace.AgentID {
		return true
	}
	kind, name := runtrace.SplitID(id)
	switch {
	case !strings.Contains(id, ":"):
		return cfg.Service(id) != nil || cfg.Job(id) != nil
	case kind == runtrace.KindWatchdog:
		return cfg.Service(name) != nil
	case kind == runtrace.KindJob:
		return cfg.Job(name) != nil
	}
	return false
}

// Shell completion of names (cobra's ValidArgsFunction): the config is read
// as any reader reads it; nothing is run. A config that cannot be read
// completes nothing.

func completeServices(g *globals) cobra.CompletionFunc { return completeFrom(g, svcNames) }
func completeJobs(g *globals) cobra.CompletionFunc     { return completeFrom(g, jobNames) }
func completeNames(g *globals) cobra.CompletionFunc    { return completeFrom(g, allNames) }

// completeLogNames adds `agent` to the names: `svc-ctl logs agent`.
func completeLogNames(g *globals) cobra.CompletionFunc {
	return completeFrom(g, func(cfg *config.Config) []string { return append(allNames(cfg), "agent") })
}

func completeFrom(g *globals, names func(*config.Config) []string) cobra.CompletionFunc {
	return func(cmd *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		path, _, err := config.Resolve(g.configPath)
		if err != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		cfg, err := config.LoadToRead(path)
		if err != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		var out []cobra.Completion
		for _, n := range names(cfg) {
			if strings.HasPrefix(n, toComplete) && !slices.Contains(args, n) {
				out = append(out, n)
			}
		}
		return out, cobra.ShellCompDirectiveNoFileComp
	}
}
