package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"svcctl/snapshot"
	"svcctl/state"
	"svcctl/watchdog"
)

func init() { addCommand(newSnapshotCommand) }

func newSnapshotCommand(g *globals) *cobra.Command {
	var (
		n           int
		asJSON, utc bool
	)
	cmd := &cobra.Command{
		Use:         "snapshot NAME",
		Annotations: trust(trustRead),
		Short:       "Show the recent pre-restart snapshots of a service, newest first",
		Args:        cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			cfg, err := loadConfig(g)
			if err != nil {
				return err
			}
			if cfg.Service(args[0]) == nil {
				return usageError{fmt.Errorf("%w: service %q", watchdog.ErrUnknownName, args[0])}
			}
			path := state.PathsOf(cfg).Snapshots(args[0])
			es, corrupt, err := snapshot.Read(path, n)
			if err != nil {
				return fmt.Errorf("read %s: %w", path, err)
			}
			if corrupt > 0 {
				fmt.Fprintf(g.stderr, "svc-ctl: warning: %d damaged line(s) in %s skipped\n", corrupt, path)
			}
			if asJSON {
				if es == nil {
					es = []snapshot.Entry{}
				}
				return writeJSON(g.stdout, es)
			}
			if len(es) == 0 {
				fmt.Fprintf(g.stdout, "%s: no snapshots (no restart yet) in %s\n", args[0], path)
				return nil
			}
			for _, e := range es {
				fmt.Fprintf(g.stdout, "%s  run #%d  reason %q  %d ms without a healthy verdict\n", fmtTime(e.Time, utc), e.RunID, e.Reason, e.NoProgressMS)
				for _, t := range e.Transitions {
					fmt.Fprintf(g.stdout, "    %s %s -> %s (%s)\n", fmtTime(t.At, utc), t.From, t.To, t.Why)
				}
				for _, l := range lastN(e.LogTail, 8) {
					fmt.Fprintf(g.stdout, "    | %s\n", strings.TrimRight(l, "\n"))
				}
			}
			return nil
		},
	}
	cmd.Flags().IntVarP(&n, "count", "n", 5, "how many snapshots")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print as JSON")
	cmd.Flags().BoolVar(&utc, "utc", false, "print times in UTC")
	return cmd
}
