package main

import (
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"svcctl/config"
	"svcctl/runtrace"
	"svcctl/watchdog"
)

// unknownName, unknownService and unknownJob are usage errors (exit 2)
// for a name the config does not have, saying what it has
// (watchdog.UnknownNameError: one wording for every verb).
func unknownName(cfg *config.Config, name string) error {
	return usageError{watchdog.UnknownTarget(cfg, name)}
}

func unknownService(cfg *config.Config, name string) error {
	return usageError{watchdog.UnknownService(cfg, name)}
}

func unknownJob(cfg *config.Config, name string) error {
	return usageError{watchdog.UnknownJob(cfg, name)}
}

func svcNames(cfg *config.Config) []string { return watchdog.ServiceNames(cfg) }
func jobNames(cfg *config.Config) []string { return watchdog.JobNames(cfg) }
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
func completeService(g *globals) cobra.CompletionFunc  { return first(completeFrom(g, svcNames)) }
func completeJob(g *globals) cobra.CompletionFunc      { return first(completeFrom(g, jobNames)) }
func completeName(g *globals) cobra.CompletionFunc     { return first(completeFrom(g, allNames)) }
func completeNames(g *globals) cobra.CompletionFunc    { return completeFrom(g, allNames) }

// completeLogNames adds `agent` to the names: `svc-ctl logs agent`.
func completeLogNames(g *globals) cobra.CompletionFunc {
	return first(completeFrom(g, func(cfg *config.Config) []string { return append(allNames(cfg), "agent") }))
}

// first completes the first argument only (a verb of one NAME; exec's
// command after it is the shell's to complete).
func first(fn cobra.CompletionFunc) cobra.CompletionFunc {
	return func(cmd *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		if len(args) > 0 {
			return nil, cobra.ShellCompDirectiveDefault
		}
		return fn(cmd, args, toComplete)
	}
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
