package main

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"svcctl/config"
	"svcctl/internal/words"
	"svcctl/report"
	"svcctl/state"
)

// How `svc-ctl status` prints its report for a person: the agent, the
// ledger, the channels, each service and job, in words and columns.

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
