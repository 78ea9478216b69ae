package report

import (
	"context"
	"errors"
	"time"

	"svcctl/config"
	"svcctl/proc"
	"svcctl/state"
	"svcctl/watchdog"
)

// An instance as a report sees it: its record, its process tree now, who
// serves its health port, and its CPU use over a short window.

// removedServices lists the services a reload left running, as their
// records and process trees say now.
func removedServices(p state.Paths, now time.Time) []RemovedService {
	var out []RemovedService
	for _, name := range state.RemovedServices(p) {
		rec, err := state.ReadRemoved(p, name)
		if err != nil || rec == nil {
			continue
		}
		r := RemovedService{Name: name, PID: rec.PID, At: rec.At}
		if in := instanceOf(context.Background(), p, name, nil, now); in != nil {
			r.Processes = in.Processes
		}
		out = append(out, r)
	}
	return out
}

// instanceOf reads the recorded instance of name and its tree now, with
// every proof (the record is not written: a report changes nothing); with
// svc (a configured service), also the process its pid_file names when it
// may be adopted, and who serves its health port.
func instanceOf(ctx context.Context, p state.Paths, name string, svc *config.Service, now time.Time) *Instance {
	inst, err := proc.ReadInstance(p.Pid(name))
	if err != nil {
		return nil
	}
	in := &Instance{LeaderPID: inst.PID, StartedAt: inst.StartedAt, Cgroup: inst.Cgroup, Job: inst.Job, Mode: inst.Mode}
	if svc != nil && svc.PidFile != "" && (inst.Main == nil || !alive(*inst.Main)) {
		if id, err := proc.AdoptPidFile(svc.PidFile, inst); err == nil {
			inst.Main, inst.MainVia = &id, "pid_file"
		}
	}
	t, rec, err := proc.Look(inst, proc.Scan)
	if err != nil {
		in.Error = err.Error()
		return in
	}
	if svc != nil {
		in.serving(ctx, svc, t)
	}
	tf, err := proc.FactsOfTree(rec, t, false)
	switch {
	case errors.Is(err, proc.ErrGone):
		return in
	case err != nil:
		in.Error = err.Error()
		return in
	}
	in.LeaderAlive, in.Processes, in.RSSBytes, in.CPUSeconds, in.Via = tf.LeaderAlive, tf.Count, tf.RSSBytes, tf.CPUSeconds, tf.Via
	for _, m := range t.Members {
		in.PIDs = append(in.PIDs, m.PID)
		main := (rec.Main != nil && rec.Main.PID == m.PID) || (rec.Main == nil && m.Leader)
		in.Members = append(in.Members, Member{PID: m.PID, PPID: m.PPID, Exe: m.Exe, User: proc.UserOf(m.PID), Via: m.Via,
			Leader: m.Leader, Main: main, Stopped: m.Stopped})
	}
	if !inst.StartedAt.IsZero() {
		in.UptimeS = int64(now.Sub(inst.StartedAt).Seconds())
	}
	return in
}

// serving names who holds the service's local health port: the member
// that listens there, else whoever does (found among every process's
// sockets), which is no member.
func (in *Instance) serving(ctx context.Context, svc *config.Service, t proc.Tree) {
	addr, port, ok := watchdog.HealthPort(svc.Health)
	if !ok {
		return
	}
	for _, m := range t.Members {
		if proc.Listens(m, port) {
			in.Serving = &Serving{Port: port, PID: m.PID, Exe: m.Exe, User: proc.UserOf(m.PID), Member: true}
			return
		}
	}
	if !watchdog.PortHeld(ctx, addr) {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	h, err := proc.PortHolder(ctx, port)
	switch {
	case err != nil:
		in.Serving = &Serving{Port: port}
	case h != nil:
		in.Serving = &Serving{Port: port, PID: h.PID, Exe: h.Exe, User: h.User, Member: t.Has(h.PID)}
	}
}

func alive(id proc.Identity) bool {
	ok, _ := proc.Match(id)
	return ok
}

// SampleCPU measures each live instance's CPU use over wait (as `top`
// does: the CPU time its tree used in that window), so that a one-shot
// `status` can show CPU% beside RSS.
func SampleCPU(ctx context.Context, r *StatusReport, wait time.Duration) {
	p := state.Paths{State: r.StateDir}
	before := map[string]float64{}
	for _, s := range r.Services {
		if s.Instance.Readable() {
			before[s.Name] = s.Instance.CPUSeconds
		}
	}
	if len(before) == 0 {
		return
	}
	start := time.Now()
	select {
	case <-ctx.Done():
		return
	case <-time.After(wait):
	}
	took := time.Since(start).Seconds()
	for i := range r.Services {
		s := &r.Services[i]
		cpu0, ok := before[s.Name]
		if !ok {
			continue
		}
		now := instanceOf(ctx, p, s.Name, nil, time.Now())
		if !now.Readable() || now.LeaderPID != s.Instance.LeaderPID || now.CPUSeconds < cpu0 {
			continue
		}
		pct := (now.CPUSeconds - cpu0) / took * 100
		s.Instance.CPUPercent = &pct
	}
}
