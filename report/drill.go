package report

import (
	"context"
	"fmt"
	"time"

	"svcctl/config"
	"svcctl/probe"
	"svcctl/proc"
	"svcctl/runtrace"
	"svcctl/snapshot"
	"svcctl/state"
	"svcctl/watchdog"
)

// DrillReport is the rehearsal's evidence: how long the agent took to bring
// the killed service back, and the run row and snapshot that prove it.
type DrillReport struct {
	Service string        `json:"service"`
	Killed  proc.Identity `json:"killed"` // the member killed: the one that serves
	// Serving says why that member: "the health port", "its pid_file",
	// "the leader", "the oldest member".
	Serving  string          `json:"serving,omitempty"`
	Leader   int32           `json:"leader_pid,omitempty"` // the instance's leader
	Members  int             `json:"members,omitempty"`    // processes of its tree when it was killed
	KilledAt time.Time       `json:"killed_at"`
	Restored bool            `json:"restored"`
	TookMS   int64           `json:"took_ms,omitempty"`
	Row      *runtrace.Run   `json:"row,omitempty"`
	Snapshot *snapshot.Entry `json:"snapshot,omitempty"`
	NewPID   int32           `json:"new_pid,omitempty"`
	Why      string          `json:"why,omitempty"`
}

// Drill kills the member of the service's recorded instance that serves
// (SIGKILL, identity-checked), as a crash would, and waits for the agent —
// not this process — to bring it back healthy. The member that serves is
// the one listening on a local health port, else the main process its
// pid_file names, else the leader while it lives, else the oldest member.
func Drill(ctx context.Context, cfg *config.Config, name string, timeout time.Duration) (*DrillReport, error) {
	svc := cfg.Service(name)
	if svc == nil {
		return nil, fmt.Errorf("%w: service %q", watchdog.ErrUnknownName, name)
	}
	p := state.PathsOf(cfg)
	rep := &DrillReport{Service: name}
	if a := agentStatusQuick(ctx, cfg, p); a != "running" {
		return nil, fmt.Errorf("the agent is %s: the drill rehearses the agent bringing a service back; start it first ('svc-ctl install' or 'svc-ctl agent')", a)
	}
	inst, err := proc.ReadInstance(p.Pid(name))
	if err != nil {
		return nil, fmt.Errorf("no recorded instance of %s to kill (%w): is it running? 'svc-ctl start %s'", name, err, name)
	}
	if svc.PidFile != "" && (inst.Main == nil || !alive(*inst.Main)) {
		if id, err := proc.AdoptPidFile(svc.PidFile, inst); err == nil {
			inst.Main, inst.MainVia = &id, "pid_file"
		}
	}
	tree, rec, err := proc.Look(inst, proc.Scan)
	if err != nil {
		return nil, fmt.Errorf("the recorded instance of %s (pid %d): %w", name, inst.PID, err)
	}
	if tree.Len() == 0 {
		return nil, fmt.Errorf("no process of the recorded instance of %s (pid %d) is running: nothing to kill", name, inst.PID)
	}
	target, why := servingMember(svc, rec, tree)
	store, err := openForRead(p.DB())
	if err != nil {
		return nil, fmt.Errorf("the drill reads its evidence from run_trace: %w", err)
	}
	defer store.Close()
	// The restore is a row newer than every row before the kill: a drill
	// right after another must never take the first one's row for its own.
	var before int64
	if rs, err := store.Runs(ctx, runtrace.Filter{JobID: runtrace.WatchdogID(name), Limit: 1}); err == nil && len(rs) > 0 {
		before = rs[0].ID
	}
	rep.Killed, rep.Serving, rep.Leader, rep.Members, rep.KilledAt = target.Identity, why, inst.PID, tree.Len(), time.Now().UTC()
	if err := proc.KillMember(rec, target); err != nil {
		return nil, fmt.Errorf("kill pid %d: %w", target.PID, err)
	}
	rep.Restored = waitRestored(ctx, store, svc, p, rep, before, timeout)
	if !rep.Restored && rep.Why == "" {
		rep.Why = fmt.Sprintf("not back within %s", timeout)
	}
	return rep, nil
}

func agentStatusQuick(ctx context.Context, cfg *config.Config, p state.Paths) string {
	store, err := openForRead(p.DB())
	if store != nil {
		defer store.Close()
	}
	if err != nil {
		store = nil
	}
	now := time.Now()
	return agentStatus(ctx, cfg, p, store, liveReport(cfg, p, now), now).State
}

// waitRestored polls run_trace for a cycle recorded after the kill (a row
// newer than before) by the agent (not a manual start) that started the
// service, and checks health itself.
func waitRestored(ctx context.Context, store *runtrace.Store, svc *config.Service, p state.Paths, rep *DrillReport, before int64, timeout time.Duration) bool {
	deadline := time.Now().Add(timeout)
	killedMS := rep.KilledAt.Truncate(time.Millisecond) // rows keep milliseconds
	for time.Now().Before(deadline) && ctx.Err() == nil {
		rs, err := store.Runs(ctx, runtrace.Filter{JobID: runtrace.WatchdogID(svc.Name), Since: killedMS, Reason: runtrace.ReasonStarted, Limit: 5})
		if err == nil {
			for i := range rs {
				r := rs[i]
				if r.ID <= before || r.Trigger == runtrace.TriggerManual {
					continue
				}
				hs := probe.RunAll(ctx, probe.Stamp(probe.HealthSpecs(svc.Health, svc.Env, svc.Dir, svc.SearchPath), svc.RunAs, nil))
				if !probe.Healthy(hs) {
					continue
				}
				rep.Row = &r
				rep.TookMS = max(0, r.FinishedAt.Sub(killedMS).Milliseconds())
				if id, err := proc.ReadPidFile(p.Pid(svc.Name)); err == nil {
					rep.NewPID = id.PID
				}
				rep.Snapshot = snapshotFor(p.Snapshots(svc.Name), r.ID)
				return true
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	return false
}

// servingMember is the member a crash of the service is: the one that
// listens on its local health port, else its main process (pid_file), else
// the leader while it lives, else the oldest member.
func servingMember(svc *config.Service, inst proc.Instance, t proc.Tree) (proc.Member, string) {
	if _, port, ok := watchdog.HealthPort(svc.Health); ok {
		for _, m := range t.Members {
			if proc.Listens(m, port) {
				return m, "the health port"
			}
		}
	}
	if inst.Main != nil {
		if m, ok := t.Member(inst.Main.PID); ok && m.Start == inst.Main.Start {
			return m, map[string]string{"pid_file": "its pid_file"}[inst.MainVia] + map[string]string{"port": "the health port"}[inst.MainVia]
		}
	}
	if t.LeaderAlive() {
		return t.Members[0], "the leader"
	}
	return t.Members[0], "the oldest member"
}
