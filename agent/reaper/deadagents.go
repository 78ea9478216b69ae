package reaper

import (
	"context"
	"fmt"
	"time"

	"svcctl/proc"
	"svcctl/runtrace"
	"svcctl/state"
)

// Agents that did not stop cleanly: their heartbeat rows are still there.

// bootSlack is how far two readings of one boot time may differ (the OS
// reports it to the second, computed from uptime).
const bootSlack = 5 * time.Second

// DeadAgents tells died, at start, of each previous agent of this state dir
// whose heartbeat is still there (prev is agent.status as the previous agent left
// it, boot this host's boot time): it did not stop cleanly (a clean stop
// deletes it), and this agent holds the lock, so it is gone. In the same
// boot that is an agent that died — killed (kill -9, the OOM killer) or
// crashed — and it is recorded failed/agent-died with its pid and last
// heartbeat, which raises an `agent` event. In an earlier boot it is the
// host that went down (a laptop's power-off, a reset): not an agent crash,
// no event. Neither is an agent stopped during its drain (a second signal
// ends it at once) nor one whose crash was reported from crash.log.
func (r *Reaper) DeadAgents(ctx context.Context, prev *state.AgentReport, boot time.Time, crashed bool, died func(detail map[string]any)) {
	hbs, err := r.Store.Heartbeats(ctx)
	if err != nil {
		r.Log.Warn("heartbeat.read_failed", "err", err)
		return
	}
	for _, h := range hbs {
		if h.InstanceID == r.Self {
			continue
		}
		detail := map[string]any{"pid": h.PID, "instance": h.InstanceID, "version": h.Version, "started_at": h.StartedAt,
			"last_heartbeat": h.BeatAt, "mode": h.Mode}
		last := prev
		if last != nil && last.Instance != h.InstanceID {
			last = nil // agent.status was another agent's
		}
		drained := last != nil && last.Draining
		switch {
		case anotherBoot(h, last, boot):
			r.Log.Info("agent.previous_host_down", "previous_pid", h.PID, "last_heartbeat", h.BeatAt, "previous_boot", h.BootTime, "boot", boot,
				"hint", "the host went down (powered off, reset) while the previous agent ran: not an agent crash")
		case drained:
			r.Log.Info("agent.previous_stopped_draining", "previous_pid", h.PID, "last_heartbeat", h.BeatAt)
		case crashed:
			// crash.log told it already, with its output.
		default:
			detail["why"] = fmt.Sprintf("the previous agent (pid %d, started %s) ended without a clean stop: its last heartbeat was at %s; "+
				"it was killed (kill -9, the OOM killer: journalctl -k) or crashed, and nothing supervised the services meanwhile",
				h.PID, h.StartedAt.Format(time.RFC3339), h.BeatAt.Format(time.RFC3339))
			r.Log.Error("agent.previous_died", "previous_pid", h.PID, "last_heartbeat", h.BeatAt)
			died(detail)
		}
	}
}

// anotherBoot reports whether the previous agent of heartbeat h ran in
// another boot than this one: by the boot id its agent.status named (a
// clock step at boot cannot fool it), else by the host's boot time.
func anotherBoot(h runtrace.Heartbeat, prev *state.AgentReport, boot time.Time) bool {
	if now := proc.BootID(); prev != nil && prev.Boot != "" && now != "" {
		return prev.Boot != now
	}
	return !h.BootTime.IsZero() && !boot.IsZero() && (h.BootTime.Sub(boot) > bootSlack || boot.Sub(h.BootTime) > bootSlack)
}

// ForgetDeadAgents deletes, at start, the heartbeats of agents that stopped
// without a clean stop (killed, a power loss): this agent holds the agent
// lock, so no other agent of this state dir runs, and it has not beaten yet
// (it is called before the heartbeat loop starts), so every row there is is
// a dead one's. The reaper prunes them too, but only once they are older
// than 3 heartbeats: after a quick restart, status would say "stale" (not
// "stopped" after this agent's own clean stop) meanwhile.
func (r *Reaper) ForgetDeadAgents(ctx context.Context) {
	// Rows are kept in milliseconds: one beaten in this very millisecond is
	// included.
	n, err := r.Store.PruneHeartbeats(ctx, time.Now().Add(time.Millisecond))
	if err != nil {
		r.Log.Warn("heartbeat.prune_failed", "err", err)
	} else if n > 0 {
		r.Log.Info("heartbeat.pruned", "dead_agents", n)
	}
}
