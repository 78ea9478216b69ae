package report

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"runtime"
	"strings"
	"time"

	"svcctl/proc"
	"svcctl/state"
)

// The checks of the services' state: no forgotten pause, no given-up or
// removed service still running, no stranger on a health port, every
// instance owned, no unread crash.log.

func (v *verifier) pauses() {
	bad := ""
	unread := ""
	check := func(kind, name, path string) {
		p, err := state.ReadPause(path)
		if errors.Is(err, fs.ErrPermission) {
			unread += couldNotRead(path, err) + "; "
			return
		}
		if p != nil && p.Until == nil && v.env.Now.Sub(p.At) > 24*time.Hour {
			bad += fmt.Sprintf("%s %s paused %s ago without expiry (reason %q, by %s); ", kind, name, v.env.Now.Sub(p.At).Round(time.Hour), p.Reason, p.By)
		}
	}
	for _, s := range v.cfg.Services {
		check("service", s.Name, v.p.Paused(s.Name))
	}
	for _, j := range v.cfg.Jobs {
		check("job", j.Name, v.p.JobPaused(j.Name))
	}
	if unread != "" {
		v.add("no forgotten pause", Fail, unread)
		return
	}
	if bad != "" {
		v.add("no forgotten pause", Warn, bad+"resume or pause again with --for")
		return
	}
	v.add("no forgotten pause", Pass, "no pause older than 24 h without an expiry")
}

func (v *verifier) givenUp() {
	bad := ""
	for _, s := range v.cfg.Services {
		st, err := state.LoadService(v.p.StateFile(s.Name))
		if errors.Is(err, fs.ErrPermission) {
			v.add("no given-up service", Fail, couldNotRead(v.p.StateFile(s.Name), err))
			return
		}
		if st.State == state.GivenUp {
			bad += fmt.Sprintf("%s gave up after %d failed starts; ", s.Name, st.Failures)
		}
	}
	if bad != "" {
		v.add("no given-up service", Fail, bad+"see 'svc-ctl why', fix, then 'svc-ctl resume'")
		return
	}
	v.add("no given-up service", Pass, "none")
}

// removedRunning WARNs of a service a reload removed from the config while
// its processes were kept: it runs unsupervised, and nothing else says so.
func (v *verifier) removedRunning() {
	bad := ""
	for _, r := range removedServices(v.p, v.env.Now) {
		if r.Processes > 0 && v.cfg.Service(r.Name) == nil {
			bad += fmt.Sprintf("%s (pid %d) was removed from the config by a reload at %s and still runs, unsupervised; ",
				r.Name, r.PID, r.At.Format(time.RFC3339))
		}
	}
	if bad != "" {
		v.add("no unsupervised leftovers", Warn, bad+"'svc-ctl stop NAME' stops it")
		return
	}
	v.add("no unsupervised leftovers", Pass, "no removed service left running")
}

// checkStrangers is the name of the check that no service's health check
// was last answered by a process that is not the service (watchdog,
// stranger.go).
const checkStrangers = "no stranger on a health port"

// strangers FAILs a service whose last passing probe a stranger answered:
// its clients talk to another program.
func (v *verifier) strangers() {
	bad := ""
	for _, s := range v.cfg.Services {
		st, err := state.LoadService(v.p.StateFile(s.Name))
		if errors.Is(err, fs.ErrPermission) {
			v.add(checkStrangers, Fail, couldNotRead(v.p.StateFile(s.Name), err))
			return
		}
		if st.AnsweredBy != "" {
			bad += fmt.Sprintf("%s: its health check passes, but %s; ", s.Name, st.AnsweredBy)
		}
	}
	if bad != "" {
		v.add(checkStrangers, Fail, bad+"stop that process, then 'svc-ctl start NAME'")
		return
	}
	v.add(checkStrangers, Pass, "every passing health check was answered by its own service (or one svc-ctl never started)")
}

const checkOwnership = "every instance owned"

// ownership says, per service with a recorded instance, what owns its tree
// (its mode): a cgroup, the agent as subreaper, a job object, or the record
// alone ("plain": an instance a person started with no agent running, or
// any on macOS), and WARNs where ownership is weaker than this host allows:
// a plain instance on Linux, or a record of an older svc-ctl that remembers
// no members. docs/architecture.md says what each mode can see.
func (v *verifier) ownership() {
	var parts, weak []string
	for _, s := range v.cfg.Services {
		inst, err := proc.ReadInstance(v.p.Pid(s.Name))
		if err != nil {
			continue
		}
		switch mode := inst.Mode; {
		case mode == "":
			weak = append(weak, s.Name+": a record of an older svc-ctl (its session alone): 'svc-ctl restart "+s.Name+"' records its members")
		case mode == proc.ModePlain && runtime.GOOS == "linux":
			weak = append(weak, s.Name+": plain (started with no agent running, or by an agent that is no subreaper): "+
				"a daemon that leaves its tree and writes over its environment is not seen; restart it while the agent runs")
		default:
			parts = append(parts, s.Name+": "+mode)
		}
	}
	switch {
	case len(weak) > 0:
		v.add(checkOwnership, Warn, strings.Join(append(weak, parts...), "; "))
	case len(parts) > 0:
		v.add(checkOwnership, Pass, strings.Join(parts, "; "))
	}
}

func (v *verifier) crashLog() {
	st, err := os.Stat(v.p.CrashLog())
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		v.add("no unread crash.log", Fail, couldNotRead(v.p.CrashLog(), err))
		return
	}
	if err == nil && st.Size() > 0 {
		v.add("no unread crash.log", Fail, fmt.Sprintf("%s holds a fatal crash of the agent (%s); the next agent start reports it", v.p.CrashLog(), st.ModTime().UTC().Format(time.RFC3339)))
		return
	}
	v.add("no unread crash.log", Pass, "none")
}
