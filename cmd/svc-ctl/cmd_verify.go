package main

import (
	"context"
	"fmt"
	"time"

	"github.com/shirou/gopsutil/v4/host"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"svcctl/config"
	"svcctl/report"
)

type verifyOptions struct{ json bool }

func (o *verifyOptions) addFlags(f *pflag.FlagSet) {
	f.BoolVar(&o.json, "json", false, "print as JSON")
}

func newVerifyCommand(g *globals) *cobra.Command {
	var o verifyOptions
	cmd := &cobra.Command{
		Use:         "verify",
		Annotations: trust(trustRead),
		Short:       "Acceptance by evidence: PASS / WARN / FAIL for every layer (exit 1 on any FAIL)",
		Long: `Check each layer by what it left behind, not by its configuration:

  agent installed            the OS service manager has the agent (and in which mode)
  state dir trusted          the check every verb that acts makes first: no link, nothing
                             another user owns or can write (as root: every file in it)
  config trusted             as root: the config and every env_file and secret file it names
                             are root's and writable by no one else (else every verb that acts
                             refuses it, and readers answer from the state dir alone)
  service manager settings   Windows: the SCM holds what install set (recovery on non-crash
                             failures, preshutdown timeout); WARN for each it does not support
  agent started since boot   the agent's startup row is newer than the host's boot (L1 fired)
  heartbeat fresh            the running agent renews its heartbeat
  watchdog.last.json fresh   cycles are being written
  service NAME cycled        every service cycled within two intervals
  backstop ran recently      where the backstop task is installed
  no forgotten pause         no pause older than 24 h without an expiry
  no given-up service        no service the watchdog has given up on
  no stranger on a health port  no service whose passing health check another process answered
  no unread crash.log        no fatal agent crash left unreported
  ledger readable            run_trace passes SQLite's quick_check
  no missing runs (24 h)     every due job slot has a row`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, args []string) error { return runVerify(cmd.Context(), g, o, args) },
	}
	o.addFlags(cmd.Flags())
	return cmd
}

func runVerify(ctx context.Context, g *globals, o verifyOptions, _ []string) error {
	cfg, err := loadConfig(g)
	if err != nil {
		return err
	}
	// Asking the service manager can take seconds (Task Scheduler is a
	// process start): "now" is taken after, or fresh evidence would look as
	// if it came from the future.
	rep := verifyNow(ctx, cfg)
	if o.json {
		if err := writeJSON(g.stdout, rep); err != nil {
			return err
		}
	} else {
		on := colourOn(g.stdout)
		for _, c := range rep.Checks {
			fmt.Fprintf(g.stdout, "%s  %-28s %s\n", paint(c.Status, checkColour(c.Status), on), c.Name, c.Evidence)
		}
	}
	if !rep.OK {
		return errSilent
	}
	return nil
}

// verifyNow is `svc-ctl verify`'s report. Asking the service manager can
// take seconds (Task Scheduler is a process start): "now" is taken after,
// or fresh evidence would look as if it came from the future.
func verifyNow(ctx context.Context, cfg *config.Config) *report.VerifyReport {
	inst := installInfo(cfg)
	env := report.VerifyEnv{Now: time.Now(), Install: inst}
	if bt, err := host.BootTime(); err == nil {
		env.BootTime = time.Unix(int64(bt), 0).UTC()
	}
	return report.Verify(ctx, cfg, env)
}

// startChecks is verify as the agent runs it once after it started
// (agent.Options.StartChecks): the FAIL lines, "name: evidence", except
//   - the checks of the running agent's own freshness (its heartbeat, its
//     cycles): the agent asking is alive, and a few seconds after its start
//     its first cycles may not have come yet;
//   - the checks whose news the agent sends as events of their own (missed
//     job slots, given-up services): paged once, not again at each start;
//   - "agent installed" for an agent a person runs in the foreground: they
//     chose how it runs (under another supervisor, or to try it).
func startChecks(cfg *config.Config, mode string) func(ctx context.Context) []string {
	return func(ctx context.Context) []string {
		var fails []string
		for _, c := range verifyNow(ctx, cfg).Checks {
			if c.Status != report.Fail || report.ChecksTheRunningAgent(c.Name) || report.ChecksAnEventSays(c.Name) ||
				(mode == "foreground" && c.Name == report.CheckInstalled) {
				continue
			}
			fails = append(fails, c.Name+": "+c.Evidence)
		}
		return fails
	}
}
