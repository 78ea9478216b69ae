package main

import (
	"context"
	"fmt"
	"strings"
	"svcctl/internal/words"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"svcctl/snapshot"
	"svcctl/state"
)

type snapshotOptions struct {
	n         int
	json, utc bool
}

func (o *snapshotOptions) addFlags(f *pflag.FlagSet) {
	f.IntVarP(&o.n, "count", "n", 5, "how many snapshots")
	f.BoolVar(&o.json, "json", false, "print as JSON")
	f.BoolVar(&o.utc, "utc", false, "print times in UTC")
}

func newSnapshotCommand(g *globals) *cobra.Command {
	var o snapshotOptions
	cmd := &cobra.Command{
		Use:               "snapshot NAME",
		Annotations:       trust(trustRead),
		Short:             "Show the recent pre-restart snapshots of a service, newest first",
		ValidArgsFunction: completeService(g),
		Args:              usageArgs(cobra.ExactArgs(1)),
		RunE:              func(cmd *cobra.Command, args []string) error { return runSnapshot(cmd.Context(), g, o, args) },
	}
	o.addFlags(cmd.Flags())
	return cmd
}

func runSnapshot(ctx context.Context, g *globals, o snapshotOptions, args []string) error {
	cfg, err := loadConfigOrState(ctx, g)
	if err != nil {
		return err
	}
	if cfg.Service(args[0]) == nil {
		return unknownService(cfg, args[0])
	}
	path := state.PathsOf(cfg).Snapshots(args[0])
	if err := state.Readable(state.PathsOf(cfg)); err != nil {
		return err // "permission denied reading ...", never "no snapshots"
	}
	es, corrupt, err := snapshot.Read(path, o.n)
	if err != nil {
		return fmt.Errorf("read %s: %w", path, state.Denied(path, err))
	}
	if corrupt > 0 {
		fmt.Fprintf(g.stderr, "svc-ctl: warning: %s in %s skipped\n", words.Count(corrupt, "damaged line", "damaged lines"), path)
	}
	if o.json {
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
		fmt.Fprintf(g.stdout, "%s  run #%d  reason %q  %s\n", fmtTime(e.Time, o.utc), e.RunID, e.Reason, noProgress(e.NoProgressMS))
		for _, t := range e.Transitions {
			fmt.Fprintf(g.stdout, "    %s %s -> %s (%s)\n", fmtTime(t.At, o.utc), t.From, t.To, t.Why)
		}
		for _, l := range lastN(e.LogTail, 8) {
			fmt.Fprintf(g.stdout, "    | %s\n", strings.TrimRight(l, "\n"))
		}
	}
	return nil
}

// noProgress says how long the service had gone without a healthy verdict
// when its snapshot was taken; -1 is "never healthy as far as svc-ctl knows"
// (a first start, or state that was lost), never "-1 ms".
func noProgress(ms int64) string {
	if ms < 0 {
		return "no healthy verdict recorded before it"
	}
	return (time.Duration(ms) * time.Millisecond).Round(time.Second).String() + " since its last healthy verdict"
}
