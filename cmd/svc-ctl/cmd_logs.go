package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"golang.org/x/term"

	"svcctl/config"
	"svcctl/internal/fsutil"
	"svcctl/internal/redact"
	"svcctl/report"
	"svcctl/watchdog"
)

type logsOptions struct {
	follow, prev, raw, utc, all bool
	lines                       int
	since                       string
}

func (o *logsOptions) addFlags(f *pflag.FlagSet) {
	f.BoolVarP(&o.follow, "follow", "f", false, "keep printing what is written, across rotations and restarts, until Ctrl-C")
	f.IntVarP(&o.lines, "lines", "n", 50, "print the last N lines first (0 = all)")
	f.BoolVar(&o.prev, "prev", false, "the previous file: runtime.prev.log (the instance before the last restart), last.prev.log")
	f.StringVar(&o.since, "since", "", "only lines stamped since: a duration back (30m, 2h) or a time")
	f.BoolVar(&o.raw, "raw", false, "print lines as written: agent.log's JSON even on a terminal; a service's or job's output unredacted (root or the agent's user only)")
	f.BoolVar(&o.utc, "utc", false, "agent: print times in UTC")
	f.BoolVar(&o.all, "all", false, "every service's and job's log and agent.log at once, each line prefixed with its name")
}

func newLogsCommand(g *globals) *cobra.Command {
	var o logsOptions
	cmd := &cobra.Command{
		Use:         "logs NAME|agent|--all [-f] [-n N] [--prev] [--since D]",
		Annotations: trust(trustRead),
		Short:       "Print a service's output (runtime.log), a job's last run (last.log) or agent.log",
		Long: `Print the end of a log:

  a service   its runtime.log (where its 'log' key puts it); --prev: runtime.prev.log,
              what the instance before the last restart wrote
  a job       last.log, the output of its last run; --prev: the run before
  agent       agent.log: one line per event, pretty on a terminal, the JSON
              lines as they are when piped (--raw on a terminal too)

-f follows the log as it grows, across a size rotation (log_max copies the
newest part to runtime.log.1 and truncates the live file), a restart (the log
moves to runtime.prev.log and the new instance starts a new one), a new job
run, and agent.log's own rotation. Notes about the file itself go to stderr.

--since keeps lines stamped since then: agent.log's times, and a service's own
timestamps where its lines start with one (RFC 3339, "2006-01-02 15:04:05" or
a JSON "time"); a log whose lines carry none is printed whole, and says so.

--all prints every service's runtime.log, every job's last.log and
agent.log at once, as 'pm2 logs' does: each line prefixed with its name,
the last N lines of each interleaved by their times (lines without a time of
their own follow the line before them), then with -f every new line as it
comes.

A service's or job's output is printed redacted, as the status page shows it
and as run_trace and snapshots keep it: every env and env_file value, URL
passwords, secret-looking flags and keys (docs/security.md, "Secrets").
--raw prints it as the service wrote it, for root or the agent's own user
only, and says so on stderr.`,
		Example: `  svc-ctl logs proxy -f
  svc-ctl logs proxy --prev -n 200
  svc-ctl logs agent --since 1h | jq -c 'select(.level=="WARN")'
  svc-ctl logs --all -f`,
		Args: usageArgs(func(cmd *cobra.Command, args []string) error {
			if o.all {
				if len(args) > 0 {
					return fmt.Errorf("--all and a name (%s) were both given: pass one or the other", strings.Join(args, " "))
				}
				return nil
			}
			return cobra.ExactArgs(1)(cmd, args)
		}),
		ValidArgsFunction: completeLogNames(g),
		RunE:              func(cmd *cobra.Command, args []string) error { return runLogs(cmd.Context(), g, o, args) },
	}
	o.addFlags(cmd.Flags())
	return cmd
}

func runLogs(ctx context.Context, g *globals, o logsOptions, args []string) error {
	if o.follow && o.prev {
		return usageError{errors.New("--prev is a finished file; -f follows the live one: use one of them")}
	}
	if o.lines < 0 {
		return usageError{fmt.Errorf("-n %d: want 0 (all) or more", o.lines)}
	}
	since, err := parseSince("since", o.since, time.Now())
	if err != nil {
		return err
	}
	cfg, err := loadConfigOrState(ctx, g)
	if err != nil {
		return err
	}
	if o.all {
		return allLogs(ctx, g, o, cfg, since)
	}
	l, err := report.LogOf(cfg, args[0], o.prev)
	if errors.Is(err, watchdog.ErrUnknownName) {
		return unknownLogName(cfg, args[0])
	}
	if err != nil {
		return usageError{err}
	}
	defer l.Close()
	scrub, err := logScrubber(g, cfg, l, o.raw)
	if err != nil {
		return err
	}
	pretty := l.Kind == report.LogAgent && !o.raw && isTerminal(g.stdout)
	print := func(line report.LogLine) {
		switch {
		case line.Note:
			fmt.Fprintf(g.stderr, "svc-ctl logs: %s\n", line.Text)
		case pretty:
			fmt.Fprintln(g.stdout, prettyAgentLine(line.Text, o.utc))
		default:
			fmt.Fprintln(g.stdout, scrub(line.Text))
		}
	}
	res, err := report.TailLog(l, report.TailOptions{Lines: o.lines, Since: since, Stamp: report.LineTime})
	switch {
	case errors.Is(err, fs.ErrNotExist) && o.follow:
		res = &report.TailResult{}
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("no log at %s yet: %s", l.Path, noLogYet(l))
	case err != nil:
		return fmt.Errorf("read %s: %w", l.Path, err)
	}
	if !since.IsZero() && !res.Stamped && len(res.Lines) > 0 {
		fmt.Fprintf(g.stderr, "svc-ctl logs: --since: no line of %s starts with a time svc-ctl can read; printing the last lines regardless\n", l.Path)
	}
	for _, line := range res.Lines {
		print(report.LogLine{Text: line})
	}
	if !o.follow {
		return nil
	}
	return report.FollowLog(ctx, l, res, 250*time.Millisecond, print)
}

// logScrubber is how the lines of l are printed: a service's or job's
// output with the page's one rule set (internal/redact and the config's
// secret values: a service prints its own secrets), agent.log as written
// (it is redacted when written). raw prints the output as the service wrote
// it: for an administrator only (root, or the user the state dir belongs
// to), said on stderr.
func logScrubber(g *globals, cfg *config.Config, l report.Log, raw bool) (func(string) string, error) {
	if l.Kind == report.LogAgent {
		return func(s string) string { return s }, nil
	}
	if raw {
		if !stateAdmin(cfg) {
			return nil, usageError{fmt.Errorf("--raw prints %s's output with its secrets: only root or the agent's own user may; without --raw it is printed redacted", l.Name)}
		}
		fmt.Fprintf(g.stderr, "svc-ctl logs: --raw: %s as written, secrets included (without --raw, and on the status page, they are redacted)\n", l.Path)
		return func(s string) string { return s }, nil
	}
	return redact.New(cfg.SecretValues()...).String, nil
}

// unknownLogName is unknownName for logs, which takes `agent` too.
func unknownLogName(cfg *config.Config, name string) error {
	return usageError{&watchdog.UnknownNameError{Name: name, What: "service or job", Known: append(allNames(cfg), "agent")}}
}

func noLogYet(l report.Log) string {
	switch {
	case l.Kind == report.LogAgent:
		return "the agent has not run with this state dir"
	case !l.Live:
		return "there was no restart (or job run) before the current one"
	case l.Kind == report.LogJob:
		return "the job has not run yet (`svc-ctl schedule next " + l.Name + "`)"
	}
	for _, m := range l.Moved {
		if found, _ := filepath.Glob(m); len(found) > 0 {
			// Stopped, and nothing started since (a crash loop's stop, a
			// given-up service): its output moved with the stop.
			return "no instance of " + l.Name + " has run since the last one stopped; its output is in " +
				found[0] + " (`svc-ctl logs " + l.Name + " --prev`)"
		}
	}
	return "svc-ctl has not started " + l.Name + " with this state dir (`svc-ctl start " + l.Name + "`)"
}

// isTerminal reports whether w is a terminal a person reads.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// prettyAgentLine turns one of agent.log's JSON lines into one line for
// people: time, level, event, then the other keys in the order written.
// A line that is not JSON is printed as it is.
func prettyAgentLine(line string, utc bool) string {
	dec := json.NewDecoder(strings.NewReader(line))
	dec.UseNumber()
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return line
	}
	var when, level, msg string
	var rest strings.Builder
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			return line
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return line
		}
		key, _ := k.(string)
		val := plainValue(v)
		switch key {
		case "time":
			if t, err := time.Parse(time.RFC3339Nano, val); err == nil {
				val = fmtTime(t, utc)
			}
			when = val
		case "level":
			level = val
		case "msg":
			msg = val
		case "pid":
		default:
			fmt.Fprintf(&rest, " %s=%s", key, val)
		}
	}
	return fmt.Sprintf("%s %-5s %s%s", when, level, msg, rest.String())
}

// plainValue prints a JSON value for people: strings bare (quoted only when
// they hold spaces), everything else compact.
func plainValue(v json.RawMessage) string {
	var s string
	if json.Unmarshal(v, &s) == nil {
		if strings.ContainsAny(s, " \t\n\"") {
			b, _ := json.Marshal(s)
			return string(b)
		}
		return s
	}
	var b bytes.Buffer
	if json.Compact(&b, v) != nil {
		return string(v)
	}
	return b.String()
}

// allLogs is `logs --all`: every log at once, each line prefixed with its
// name; the tails interleaved by their lines' times, then -f follows them
// all.
func allLogs(ctx context.Context, g *globals, o logsOptions, cfg *config.Config, since time.Time) error {
	var logs []report.Log
	scrubs := map[string]func(string) string{}
	for _, n := range append(allNames(cfg), report.LogAgent) {
		l, err := report.LogOf(cfg, n, o.prev)
		if err != nil {
			continue // agent has no --prev
		}
		defer l.Close()
		scrub, err := logScrubber(g, cfg, l, o.raw)
		if err != nil {
			return err
		}
		logs, scrubs[l.Kind+":"+l.Name] = append(logs, l), scrub
	}
	width := 0
	for _, l := range logs {
		width = max(width, len(l.Name))
	}
	on := colourOn(g.stdout)
	var mu sync.Mutex
	prefix := func(l report.Log) string {
		return paint(fmt.Sprintf("%-*s |", width, l.Name), cyan, on) + " "
	}
	text := func(l report.Log, line string) string {
		if l.Kind == report.LogAgent && !o.raw {
			return paintLogLine(prettyAgentLine(line, o.utc), on)
		}
		return scrubs[l.Kind+":"+l.Name](line)
	}
	type stamped struct {
		at   time.Time
		seq  int
		line string
	}
	var all []stamped
	results := make([]*report.TailResult, len(logs))
	seq := 0
	for i, l := range logs {
		res, err := report.TailLog(l, report.TailOptions{Lines: o.lines, Since: since, Stamp: report.LineTime})
		if err != nil {
			results[i] = &report.TailResult{}
			continue
		}
		results[i] = res
		var at time.Time // a line without a time follows the one before it
		for _, line := range res.Lines {
			if t, ok := report.LineTime([]byte(line)); ok {
				at = t
			}
			all = append(all, stamped{at: at, seq: seq, line: prefix(l) + text(l, line)})
			seq++
		}
	}
	slices.SortStableFunc(all, func(a, b stamped) int { return a.at.Compare(b.at) })
	for _, s := range all {
		fmt.Fprintln(g.stdout, s.line)
	}
	if !o.follow {
		return nil
	}
	var wg sync.WaitGroup
	for i, l := range logs {
		wg.Go(func() {
			report.FollowLog(ctx, l, results[i], 250*time.Millisecond, func(line report.LogLine) {
				mu.Lock()
				defer mu.Unlock()
				if line.Note {
					if !strings.HasPrefix(line.Text, "waiting for ") {
						fmt.Fprintf(g.stderr, "svc-ctl logs: %s: %s\n", l.Name, line.Text)
					}
					return
				}
				fmt.Fprintln(g.stdout, prefix(l)+text(l, line.Text))
			})
		})
	}
	wg.Wait()
	return nil
}

// stateAdmin reports whether this process administers the agent of cfg:
// root (an elevated administrator), or the user its state dir belongs to
// (a per-user agent's own user).
func stateAdmin(cfg *config.Config) bool {
	if !config.UserMode() {
		return true
	}
	fi, err := os.Stat(cfg.Agent.StateDir)
	if err != nil {
		return false
	}
	owner, ok := fsutil.Owner(fi)
	return !ok || owner == os.Geteuid()
}
