package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"svcctl/config"
	"svcctl/runtrace"
)

type runsOptions struct {
	job, since, until, outcome, reason string
	limit                              int
	json, utc, follow, hideRoutine     bool
}

func newRunsCommand(g *globals) *cobra.Command {
	var o runsOptions
	cmd := &cobra.Command{
		Use:         "runs",
		Annotations: trust(trustRead),
		Short:       "List run_trace: every cycle, job run and agent start, newest first",
		Long: `List the rows of run_trace, newest first. Job ids are watchdog:NAME (a service's
cycles), job:NAME (a job's runs) and agent (the agent's starts and wakes).
Times are local with their offset; --utc prints UTC.

--hide-routine leaves out the healthy cycles that found a service healthy
(ok/already-running): what is left is what happened. -f prints the rows and
then every row as it finishes, oldest first, until Ctrl-C (--json: one
object per line).`,
		Example: `  svc-ctl runs --job watchdog:proxy --since 24h
  svc-ctl runs --outcome failed --since 7d --json
  svc-ctl runs -f --hide-routine`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, args []string) error { return runRuns(cmd.Context(), g, o, args) },
	}
	o.addFlags(cmd.Flags())
	cmd.RegisterFlagCompletionFunc("job", completeFrom(g, func(cfg *config.Config) []string {
		return append(allNames(cfg), runtrace.AgentID)
	}))
	return cmd
}

func (o *runsOptions) addFlags(f *pflag.FlagSet) {
	f.StringVar(&o.job, "job", "", "only this job id (watchdog:NAME, job:NAME, agent); a bare service or job name works too")
	f.StringVar(&o.since, "since", "", "only runs started since: a duration back (24h, 40d) or a time")
	f.StringVar(&o.until, "until", "", "only runs started before this time")
	f.StringVar(&o.outcome, "outcome", "", "running | ok | skipped | failed")
	f.StringVar(&o.reason, "reason", "", "a reason code (see docs/runbook.md)")
	f.IntVarP(&o.limit, "limit", "n", 50, "at most this many rows (0 = all)")
	f.BoolVar(&o.json, "json", false, "print as JSON")
	f.BoolVar(&o.utc, "utc", false, "print times in UTC")
	f.BoolVarP(&o.follow, "follow", "f", false, "keep printing each row as it finishes, until Ctrl-C")
	f.BoolVar(&o.hideRoutine, "hide-routine", false, "leave out ok/already-running: healthy cycles that found nothing to do")
}

func runRuns(ctx context.Context, g *globals, o runsOptions, _ []string) error {
	now := time.Now()
	filter, err := runsFilter(o, now)
	if err != nil {
		return err
	}
	cfg, err := loadConfigOrState(ctx, g)
	if err != nil {
		return err
	}
	st, err := openLedgerForRead(cfg)
	filter.JobID = qualifyJob(ctx, cfg, st, filter.JobID)
	unknown := o.job != "" && !knownTarget(cfg, o.job)
	if unknown && (err != nil || !hasRows(ctx, st, filter.JobID)) {
		if st != nil {
			st.Close()
		}
		return unknownName(cfg, o.job)
	}
	if err != nil {
		return err
	}
	defer st.Close()
	if unknown {
		fmt.Fprintf(g.stderr, "svc-ctl: %s is no longer in the config (%s): its history\n", o.job, cfg.Path)
	}
	rows, err := st.Runs(ctx, filter)
	if err != nil {
		return fmt.Errorf("read %s: %w", st.Path(), err)
	}
	if o.follow {
		return followRuns(ctx, g, o, cfg, filter, rows)
	}
	if o.json {
		if rows == nil {
			rows = []runtrace.Run{}
		}
		return writeJSON(g.stdout, rows)
	}
	printRuns(g.stdout, rows, o.utc, time.Now(), true)
	return nil
}

func runsFilter(o runsOptions, now time.Time) (runtrace.Filter, error) {
	f := runtrace.Filter{JobID: o.job, Outcome: runtrace.Outcome(o.outcome), Reason: runtrace.Reason(o.reason), Limit: o.limit,
		HideRoutine: o.hideRoutine}
	var err error
	if f.Since, err = parseSince("since", o.since, now); err != nil {
		return f, err
	}
	if f.Until, err = parseTimeFlag("until", o.until); err != nil {
		return f, err
	}
	if f.Outcome != "" && f.Outcome != runtrace.OutcomeRunning && runtrace.Reasons[f.Outcome] == nil {
		return f, usageError{fmt.Errorf("--outcome %q: want running, ok, skipped or failed", o.outcome)}
	}
	if f.Reason != "" && !runtrace.KnownReason(f.Reason) {
		return f, usageError{fmt.Errorf("--reason %q: not a reason code; see docs/runbook.md", o.reason)}
	}
	if o.limit < 0 {
		return f, usageError{fmt.Errorf("-n %d: want 0 (all) or more", o.limit)}
	}
	return f, nil
}

// qualifyJob turns a bare service or job name into its job id: one of the
// config, else one the ledger has rows of (a service or job the config no
// longer has keeps its history under its old name).
func qualifyJob(ctx context.Context, cfg *config.Config, st *runtrace.Store, id string) string {
	if id == "" || id == runtrace.AgentID || strings.Contains(id, ":") {
		return id
	}
	if cfg.Service(id) != nil {
		return runtrace.WatchdogID(id)
	}
	if cfg.Job(id) != nil {
		return runtrace.JobID(id)
	}
	for _, q := range []string{runtrace.WatchdogID(id), runtrace.JobID(id)} {
		if st != nil && hasRows(ctx, st, q) {
			return q
		}
	}
	return id
}

func printRuns(w io.Writer, rows []runtrace.Run, utc bool, now time.Time, header bool) {
	if len(rows) == 0 {
		if header {
			fmt.Fprintln(w, "no runs match")
		}
		return
	}
	on := colourOn(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	if header {
		fmt.Fprintln(tw, "ID\tJOB\tTRIGGER\tSTARTED\tDURATION\tOUTCOME\tCAUSE\tSLOT\tDETAIL")
	}
	for _, r := range rows {
		dur := r.Duration.Round(time.Millisecond).String()
		if r.FinishedAt.IsZero() {
			dur = "running for " + now.Sub(r.StartedAt).Round(time.Second).String()
		}
		slot := "-"
		if !r.ScheduledAt.IsZero() {
			slot = fmtTime(r.ScheduledAt, utc)
		}
		// The cause is never cut: it is the answer to "why was it restarted".
		cause := detailCause(r.Detail)
		if w := restartWords(r); w != "" {
			cause = strings.TrimSpace(cause + " (" + w + ")")
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", r.ID, r.JobID, r.Trigger, fmtTime(r.StartedAt, utc), dur,
			paint(r.Verdict(), outcomeColour(r.Outcome), on), dash(cause), slot, shortDetail(r))
	}
	tw.Flush()
}

// detailCause is a row's cause (why a service was stopped and started).
func detailCause(raw json.RawMessage) string {
	var d struct {
		Cause string `json:"cause"`
	}
	json.Unmarshal(raw, &d)
	return d.Cause
}

// shortDetail picks the most telling field of a row's detail for one line.
func shortDetail(r runtrace.Run) string {
	var m map[string]any
	if json.Unmarshal(r.Detail, &m) != nil {
		return ""
	}
	if r.Reason == runtrace.ReasonTimeout {
		if t, ok := m["timeout"].(string); ok {
			what := "its process tree killed"
			if k, ok := m["killed"].(string); ok && k != "" {
				what = "its " + k + " killed"
			}
			return fmt.Sprintf("ran past its timeout %s: %s", t, what)
		}
	}
	for _, k := range []string{"message", "why", "error", "result_error", "old_instance"} {
		if s, ok := m[k].(string); ok && s != "" {
			return clip(s, 80)
		}
	}
	if c, ok := m["exit_code"]; ok {
		return fmt.Sprintf("exit code %v", c)
	}
	if v, ok := m["version"]; ok {
		return fmt.Sprintf("version %v, mode %v", v, m["mode"])
	}
	return ""
}

func clip(s string, n int) string {
	s = strings.ReplaceAll(s, "\n", " ")
	if len(s) <= n {
		return s
	}
	return s[:n-1] + "…"
}

// hasRows reports whether the ledger has rows of id: a service or job the
// config no longer names still has its history.
func hasRows(ctx context.Context, st *runtrace.Store, id string) bool {
	n, err := st.Count(ctx, runtrace.Filter{JobID: id})
	return err == nil && n > 0
}

// followRuns prints the rows (oldest first) and then, every half second,
// the rows that finished since, in the order they started; a row seen
// running is printed once it has its verdict. The ledger is opened again
// for each look: a reader of a ledger no writer had open reads it as it
// was (runtrace, quiescent), and would never see a new row.
func followRuns(ctx context.Context, g *globals, o runsOptions, cfg *config.Config, f runtrace.Filter, rows []runtrace.Run) error {
	slices.Reverse(rows)
	var last int64
	open := map[int64]bool{} // ids printed as running, or not printed yet because running
	header := true
	emit := func(rs []runtrace.Run) {
		var done []runtrace.Run
		for _, r := range rs {
			last = max(last, r.ID)
			if r.Outcome == runtrace.OutcomeRunning {
				open[r.ID] = true
				continue
			}
			delete(open, r.ID)
			done = append(done, r)
		}
		if len(done) == 0 {
			return
		}
		if o.json {
			for _, r := range done {
				b, _ := json.Marshal(r)
				fmt.Fprintln(g.stdout, string(b))
			}
			return
		}
		printRuns(g.stdout, done, o.utc, time.Now(), header)
		header = false
	}
	emit(rows)
	f.Limit, f.Since, f.Until = 0, time.Time{}, time.Time{}
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(500 * time.Millisecond):
		}
		next := f
		next.AfterID = last
		st, err := openLedgerForRead(cfg)
		if err != nil {
			continue
		}
		rs, err := st.Runs(ctx, next)
		if err != nil && ctx.Err() == nil {
			fmt.Fprintf(g.stderr, "svc-ctl: %v (trying again)\n", err)
			st.Close()
			continue
		}
		for id := range open {
			if r, err := st.RunByID(ctx, id); err == nil && r != nil && r.Outcome != runtrace.OutcomeRunning {
				rs = append(rs, *r)
			}
		}
		st.Close()
		slices.SortFunc(rs, func(a, b runtrace.Run) int { return a.StartedAt.Compare(b.StartedAt) })
		emit(rs)
	}
}
