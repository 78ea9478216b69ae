package main

import (
	"fmt"
	"io"
	"strings"
	"time"

	"svcctl/report"
	"svcctl/state"
)

// A service's instance in `svc-ctl status`: its process tree, who owns
// each member, and who serves its health port.

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
