package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"slices"
	"strconv"
	"strings"
	"svcctl/internal/words"
	"text/tabwriter"
	"time"

	"svcctl/config"
	"svcctl/internal/svcenv"
	"svcctl/report"
	"svcctl/state"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

type statusOptions struct{ json, env, utc bool }

func (o *statusOptions) addFlags(f *pflag.FlagSet) {
	f.BoolVar(&o.json, "json", false, "print as JSON")
	f.BoolVar(&o.utc, "utc", false, "print times in UTC")
	f.BoolVar(&o.env, "env", false, "list the environment variable names a start of NAME gives it (values are never shown)")
}

func newStatusCommand(g *globals) *cobra.Command {
	var o statusOptions
	cmd := &cobra.Command{
		Use:         "status [NAME] [--env]",
		Annotations: trust(trustRead),
		Short:       "Show the agent, every service and every job, from the evidence on disk",
		Long: `Show the agent (running, stopped or stale, from its heartbeat and lock), the
ledger's health, and per service: state, last probe, last cycle, last restart
(the watchdog's or a person's), restarts in 24 h (the watchdog's), pause. Per
job: next slot, last run, missing slots in 7 days.

With --env, list the names of the variables a start of NAME gives it (the
base environment, then env_file, then env; values are never shown). It is
the same whoever starts it: the agent at boot or you from this shell.

Exit status: 0 when the agent runs, can write its ledger, and every service
that is not paused is healthy; 1 otherwise. It works when the agent is not
running (and says so), and when the disk is full (the agent's own report,
agent.status, says what waits to be written and why).`,
		ValidArgsFunction: completeName(g),
		Args: usageArgs(func(cmd *cobra.Command, args []string) error {
			if o.env && len(args) != 1 {
				return errors.New("--env needs the NAME of a service or job")
			}
			return cobra.MaximumNArgs(1)(cmd, args)
		}),
		RunE: func(cmd *cobra.Command, args []string) error { return runStatus(cmd.Context(), g, o, args) },
	}
	o.addFlags(cmd.Flags())
	return cmd
}

func runStatus(ctx context.Context, g *globals, o statusOptions, args []string) error {
	cfg, err := loadConfigOrState(ctx, g)
	if err != nil {
		return err
	}
	if o.env {
		return printEnv(g, cfg, args[0], o.json)
	}
	rep, err := report.BuildStatus(ctx, cfg, time.Now())
	if err != nil {
		return err
	}
	report.SampleCPU(ctx, rep, 250*time.Millisecond)
	info := installInfo(cfg)
	rep.Install = &info
	if g.broken != nil {
		rep.ConfigBroken = g.broken.Error()
	}
	if len(args) == 1 {
		if !narrow(rep, args[0]) {
			return unknownName(cfg, args[0])
		}
	}
	if o.json {
		if err := writeJSON(g.stdout, rep); err != nil {
			return err
		}
	} else {
		printStatus(g.stdout, rep, o.utc)
	}
	if !rep.Healthy() || rep.ConfigBroken != "" {
		return errSilent
	}
	return nil
}

// envVar is one variable a start gives, without its value.
type envVar struct {
	Name string `json:"name"`
	From string `json:"from"` // base | config (env_file and env)
}

// printEnv lists what `svc-ctl start NAME` (or the agent) gives NAME: the
// base environment (internal/svcenv) and the config's env_file and env.
func printEnv(g *globals, cfg *config.Config, name string, asJSON bool) error {
	var env map[string]string
	var runAs config.RunAs
	var envFile string
	switch {
	case cfg.Service(name) != nil:
		env, runAs, envFile = cfg.Service(name).Env, cfg.Service(name).RunAs, cfg.Service(name).EnvFile
	case cfg.Job(name) != nil:
		env, runAs, envFile = cfg.Job(name).Env, cfg.Job(name).RunAs, cfg.Job(name).EnvFile
	default:
		return unknownName(cfg, name)
	}
	if envFile != "" && slices.Contains(cfg.UnreadEnvFiles, envFile) {
		return state.Denied(envFile, fs.ErrPermission) // its names are unknown to this process
	}
	id, err := runAs.Identity()
	if err != nil {
		return fmt.Errorf("%s runs as %s: %w", name, runAs.User, err)
	}
	var vars []envVar
	for _, n := range svcenv.Names(id, env) {
		from := "base"
		if _, ok := env[n]; ok {
			from = "config"
		}
		vars = append(vars, envVar{Name: n, From: from})
	}
	if asJSON {
		return writeJSON(g.stdout, map[string]any{"name": name, "env": vars})
	}
	fmt.Fprintf(g.stdout, "%s gets these variables, whoever starts it (values not shown):\n", name)
	w := tabwriter.NewWriter(g.stdout, 0, 4, 2, ' ', 0)
	for _, v := range vars {
		fmt.Fprintf(w, "  %s\t%s\n", v.Name, v.From)
	}
	return w.Flush()
}

// narrow keeps the one service or job named; false when there is none.
func narrow(rep *report.StatusReport, name string) bool {
	for _, s := range rep.Services {
		if s.Name == name {
			rep.Services, rep.Jobs = []report.ServiceStatus{s}, nil
			return true
		}
	}
	for _, j := range rep.Jobs {
		if j.Name == name {
			rep.Services, rep.Jobs = nil, []report.JobStatus{j}
			return true
		}
	}
	return false
}

func printStatus(w io.Writer, r *report.StatusReport, utc bool) {
	printAgent(w, r.Agent)
	if i := r.Install; i != nil && i.Known {
		switch {
		case !i.Installed:
			fmt.Fprintf(w, "autostart: NOT installed (%s): nothing starts the agent after a reboot; 'svc-ctl install'\n", i.Platform)
		case i.Enabled != nil && !*i.Enabled:
			fmt.Fprintf(w, "autostart: installed as %s (%s) but NOT enabled: it will not start after a reboot\n", i.Mode, i.Platform)
		default:
			fmt.Fprintf(w, "autostart: installed as %s (%s)\n", i.Mode, i.Platform)
		}
	}
	if r.ConfigBroken != "" {
		line, _, _ := strings.Cut(r.ConfigBroken, "\n")
		fmt.Fprintf(w, "config: BROKEN: %s (what follows is from the state dir alone; the next agent start refuses the file)\n", line)
	}
	if d := r.ConfigDrift; d != nil {
		fmt.Fprintf(w, "config: WARN: %s\n", d.Words)
	}
	if bt := r.Agent.BootTime; !bt.IsZero() {
		fmt.Fprintf(w, "host:   booted %s\n", when(bt, r.Now, utc))
	}
	printLedger(w, r, utc)
	if len(r.Services) > 0 {
		fmt.Fprintln(w)
		printServices(w, r, utc)
	}
	if len(r.Jobs) > 0 {
		fmt.Fprintln(w)
		printJobs(w, r, utc)
	}
	for _, rm := range r.Removed {
		if rm.Processes > 0 {
			fmt.Fprintf(w, "\n%s: removed from the config by a reload at %s, still running unsupervised (pid %d, %s): 'svc-ctl stop %s'\n",
				rm.Name, fmtTime(rm.At, utc), rm.PID, processes(rm.Processes), rm.Name)
		}
	}
	if len(r.Channels) > 0 {
		fmt.Fprintln(w)
		printChannels(w, r)
	}
}

func printChannels(w io.Writer, r *report.StatusReport) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "CHANNEL	KIND	LAST DELIVERY	WAITING	LAST ERROR")
	for _, c := range r.Channels {
		last := "never"
		if !c.LastOK.IsZero() {
			last = ago(c.LastOK, r.Now)
		}
		errText := "-"
		switch {
		case c.LastError != "" && !c.FailingSince.IsZero():
			errText = fmt.Sprintf("%s (failing since %s)", c.LastError, ago(c.FailingSince, r.Now))
		case c.LastError != "":
			errText = fmt.Sprintf("%s (%s; delivered since)", c.LastError, ago(c.LastErrorAt, r.Now))
		}
		waiting := strconv.Itoa(c.Pending)
		if c.Held > 0 {
			waiting += fmt.Sprintf(" (%d held: min_interval %s, next at %s)", c.Held, config.FormatDuration(c.MinInterval), fmtTime(c.HeldUntil, false))
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", c.Name, c.Kind, last, waiting, errText)
	}
	tw.Flush()
}

// printAgent prints the agent line: "running (pid 123, up 5m, ...) — why";
// a running agent that cannot do all its work says so first:
// "running (cannot renew its heartbeat: disk full; pid 123, ...)".
func printAgent(w io.Writer, a report.AgentStatus) {
	var in []string
	if a.Condition != "" {
		in = append(in, a.Condition)
	}
	if a.PID > 0 {
		p := fmt.Sprintf("pid %d", a.PID)
		if a.UptimeS > 0 {
			p += ", up " + (time.Duration(a.UptimeS) * time.Second).String()
		}
		if a.Version != "" {
			p += fmt.Sprintf(", version %s, %s", a.Version, a.Mode)
		}
		in = append(in, p)
	}
	agentColour := red
	if a.State == "running" && a.Condition == "" {
		agentColour = green
	}
	fmt.Fprintf(w, "agent:  %s", paint(a.State, agentColour, colourOn(w)))
	if len(in) > 0 {
		fmt.Fprintf(w, " (%s)", strings.Join(in, "; "))
	}
	fmt.Fprintf(w, " — %s\n", a.Why)
}

// printLedger prints whether run_trace can be read and, as the running
// agent says, written: "ledger: WRITE FAILING since 2026-12-01 03:01:38+00:00: disk full
// (0 B free on /var/lib/svc-ctl), 14 rows waiting".
func printLedger(w io.Writer, r *report.StatusReport, utc bool) {
	l := r.Ledger
	switch {
	case l.WriteFailing():
		h := l.Writes
		fmt.Fprintf(w, "ledger: WRITE FAILING since %s: %s\n", fmtTime(h.Since, utc), h.Summary())
		fmt.Fprintf(w, "        %s\n", h.Cause.Fix())
	case l.OK:
		fmt.Fprintf(w, "ledger: ok (%s)\n", l.Path)
	default:
		fmt.Fprintf(w, "ledger: UNAVAILABLE: %s\n", l.Error)
	}
	if h := l.Writes; h != nil && h.Up && h.Lost > 0 && r.Now.Sub(h.RecoveredAt) < 24*time.Hour {
		fmt.Fprintf(w, "        writes failed %s (%s) until %s: %d rows written late, %d lost\n",
			fmtTime(h.Since, utc), h.Cause.Words(), fmtTime(h.RecoveredAt, utc), h.WrittenLate, h.Lost)
	}
}

func printServices(w io.Writer, r *report.StatusReport, utc bool) {
	on := colourOn(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "SERVICE\tSTATE\tHEALTH\tCPU\tRSS\tRESTARTS 24H\tLAST RESTART\tLAST CYCLE\tPAUSE")
	for _, s := range r.Services {
		cycle := "-"
		if c := s.LastCycle; c != nil {
			cycle = fmt.Sprintf("%s/%s %s", c.Outcome, c.Reason, ago(c.At, r.Now))
		}
		restart := "-"
		if !s.LastRestart.IsZero() {
			restart = ago(s.LastRestart, r.Now)
			if s.LastRestartBy != "" {
				restart += " (" + s.LastRestartBy + ")"
			}
		}
		restarts := strconv.Itoa(s.Restarts24h)
		if s.RequestedRestarts24h > 0 {
			restarts += fmt.Sprintf(" (+%d asked for)", s.RequestedRestarts24h)
		}
		pause := "-"
		if p := s.Pause; p != nil {
			pause = p.Reason
			if p.Until != nil {
				pause += " until " + fmtTime(*p.Until, utc)
			}
		}
		health := dash(s.Health)
		if s.Health != "" && !s.HealthAt.IsZero() {
			health += ", " + ago(s.HealthAt, r.Now)
		}
		cycleColour := noColor
		if c := s.LastCycle; c != nil {
			cycleColour = outcomeColour(c.Outcome)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", s.Name, paint(stateWords(s, r.Now), stateColour(s.State), on), health,
			cpuWords(s.Instance), rssWords(s.Instance), restarts, restart, paint(cycle, cycleColour, on), pause)
	}
	tw.Flush()
	if r.Ledger.WriteFailing() {
		fmt.Fprintf(w, "(the agent supervises on; these lines are what the disk last took, before %s)\n", fmtTime(r.Ledger.Writes.Since, utc))
	}
	if len(r.Services) == 1 {
		printInstance(w, r.Services[0], r.Now, utc)
	}
	for _, s := range r.Services {
		if s.RecordedError != "" {
			fmt.Fprintf(w, "%s: last cycle not recorded in run_trace: %s\n", s.Name, s.RecordedError)
		}
	}
}

// stateWords is a service's state as people read it: "starting (first
// check in ~12s)" for one the running agent has not checked yet.
func stateWords(s report.ServiceStatus, now time.Time) string {
	if s.State != state.Starting || s.FirstCheckBy.IsZero() {
		return s.State
	}
	if d := s.FirstCheckBy.Sub(now); d > time.Second {
		return fmt.Sprintf("starting (first check in ~%s)", d.Round(time.Second))
	}
	return "starting (first check now)"
}

// cpuWords and rssWords are the tree's resource use: "-" where there is no
// live instance or the OS does not let this user read it.
func cpuWords(in *report.Instance) string {
	if !in.Readable() || in.CPUPercent == nil {
		return "-"
	}
	return fmt.Sprintf("%.1f%%", *in.CPUPercent)
}

func rssWords(in *report.Instance) string {
	if !in.Readable() {
		return "-"
	}
	return humanBytes(in.RSSBytes)
}

// humanBytes is a size in binary units: "812 KiB", "12.4 MiB".
func humanBytes(n uint64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := uint64(unit), 0
	for m := n / unit; m >= unit; m /= unit {
		div *= unit
		exp++
	}
	v := float64(n) / float64(div)
	if v >= 100 {
		return fmt.Sprintf("%.0f %ciB", v, "KMGTPE"[exp])
	}
	return fmt.Sprintf("%.1f %ciB", v, "KMGTPE"[exp])
}

func printJobs(w io.Writer, r *report.StatusReport, utc bool) {
	on := colourOn(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "JOB\tSCHEDULE\tNEXT\tLAST RUN\tMISSING 7D")
	for _, j := range r.Jobs {
		next := fmtTime(j.NextSlot, utc) // in the job's own zone: 'svc-ctl schedule next JOB'

		last, lastColour := "never", noColor
		if l := j.LastRun; l != nil {
			last, lastColour = fmt.Sprintf("%s/%s %s", l.Outcome, l.Reason, ago(l.At, r.Now)), outcomeColour(l.Outcome)
		}
		last = paint(last, lastColour, on)
		sched := j.Schedule + " " + j.Timezone
		if j.External {
			sched += " (external)"
		}
		if j.Paused != nil {
			sched += " [paused]"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\n", j.Name, sched, next, last, j.Missing7d)
	}
	tw.Flush()
	if len(r.Jobs) == 1 {
		fmt.Fprintf(w, "\nlog: %s (the last run's output: 'svc-ctl logs %s')\n", r.Jobs[0].Log, r.Jobs[0].Name)
	}
}

// processes says a count of processes in words: "1 process", "2 processes".
func processes(n int) string { return words.Count(n, "process", "processes") }

func dash(s string) string {
	if strings.TrimSpace(s) == "" {
		return "-"
	}
	return s
}

func ago(t, now time.Time) string {
	if t.IsZero() {
		return "-"
	}
	d := now.Sub(t)
	if d < 0 {
		return "in " + (-d).Round(time.Second).String()
	}
	return d.Round(time.Second).String() + " ago"
}

func when(t, now time.Time, utc bool) string {
	return fmt.Sprintf("%s (%s)", fmtTime(t, utc), ago(t, now))
}

// printInstance is `status NAME`'s view of the instance as it is now: the
// tree read from the OS, and the health verdict with its age.
func printInstance(w io.Writer, s report.ServiceStatus, now time.Time, utc bool) {
	in := s.Instance
	fmt.Fprintln(w)
	switch {
	case in == nil:
		fmt.Fprintln(w, "instance: none recorded")
	case in.Error != "":
		fmt.Fprintf(w, "instance: pid %d: %s\n", in.LeaderPID, in.Error)
	case in.Processes == 0:
		fmt.Fprintf(w, "instance: pid %d: no process of it is running\n", in.LeaderPID)
	default:
		leader := "running"
		if !in.LeaderAlive {
			leader = "exited, its tree lives on"
		}
		fmt.Fprintf(w, "instance: leader pid %d (%s), %s %v\n", in.LeaderPID, leader, processes(in.Processes), in.PIDs)
		if in.UptimeS > 0 {
			fmt.Fprintf(w, "uptime:   %s (started %s)\n", (time.Duration(in.UptimeS) * time.Second).String(), fmtTime(in.StartedAt, utc))
		}
		fmt.Fprintf(w, "tree:     RSS %.1f MiB, CPU %.1f s, owned by %s\n", float64(in.RSSBytes)/(1<<20), in.CPUSeconds, ownedBy(in))
		for _, m := range in.Members {
			fmt.Fprintf(w, "  pid %-7d %s\n", m.PID, memberLine(m))
		}
	}
	if in != nil && in.Serving != nil {
		fmt.Fprintf(w, "serving:  %s\n", servingLine(in.Serving))
	}
	switch {
	case s.State == state.Stopped:
		fmt.Fprintf(w, "health:   %s ('svc-ctl start %s' starts it again)\n", s.Health, s.Name)
	case s.Health != "":
		fmt.Fprintf(w, "health:   %s, %s (the last probe's verdict, not probed now)\n", s.Health, ago(s.HealthAt, now))
	}
	fmt.Fprintf(w, "log:      %s ('svc-ctl logs %s [-f]')\n", s.Log, s.Name)
	fmt.Fprintf(w, "prev log: %s (the instance before the last restart: 'svc-ctl logs %s --prev')\n", s.PrevLog, s.Name)
}

// ownedBy is what owns the tree, for people: the mode, then the proofs.
func ownedBy(in *report.Instance) string {
	mode := in.Mode
	if mode == "" {
		mode = "session (a record of an older svc-ctl)"
	}
	if len(in.Via) == 0 {
		return mode
	}
	return mode + " (" + strings.Join(in.Via, ", ") + ")"
}

// memberLine is one member of `status NAME`'s list: its program, user and
// what proves it a member.
func memberLine(m report.Member) string {
	var tags []string
	if m.Leader {
		tags = append(tags, "leader")
	}
	if m.Main {
		tags = append(tags, "main")
	}
	if m.Stopped {
		tags = append(tags, "STOPPED (hung)")
	}
	s := dash(m.Exe)
	if m.User != "" {
		s += " user " + m.User
	}
	s += ", via " + m.Via
	if len(tags) > 0 {
		s += " [" + strings.Join(tags, ", ") + "]"
	}
	return s
}

// servingLine says who holds the health port, and whether it is a member.
func servingLine(sv *report.Serving) string {
	if sv.PID == 0 {
		return fmt.Sprintf("port %d is held by a process svc-ctl cannot name (another user's?)", sv.Port)
	}
	s := fmt.Sprintf("port %d by pid %d %s", sv.Port, sv.PID, dash(sv.Exe))
	if sv.User != "" {
		s += " (user " + sv.User + ")"
	}
	if sv.Member {
		return s + ", a member of the instance"
	}
	return s + ", NOT a member of the instance: svc-ctl will not stop or replace it"
}
