package proc

import (
	"context"
	"fmt"
	"strings"
	"time"
)

// StopResult says how Stop ended an instance's tree.
type StopResult struct {
	// AlreadyGone: no process of the instance was running; nothing was signalled.
	AlreadyGone bool `json:"already_gone,omitempty"`
	// Signal is what ended the leader: "SIGTERM" or "SIGKILL" on unix,
	// "TerminateProcess" on Windows; empty when the leader was already gone
	// (a launcher that exited while its tree lived on).
	Signal string `json:"signal,omitempty"`
	// KillMode is how the stop signal was sent: "tree" (every member) or
	// "main" (the main process only; SIGKILL for the rest at the timeout).
	KillMode string `json:"kill_mode,omitempty"`
	// KilledStragglers: members other than the leader outlived the stop
	// signal past the timeout and were killed.
	KilledStragglers bool `json:"killed_stragglers,omitempty"`
	// Command is how the stop_command ran, when there is one.
	Command *CommandEnd `json:"stop_command,omitempty"`
	// Members is every process the stop found, and how each ended.
	Members []MemberEnd `json:"members,omitempty"`
	// Elapsed is how long the stop took.
	Elapsed time.Duration `json:"elapsed_ns"`

	rec Instance // the record with every member the stop saw (Record)
}

// Record is the instance record with every member the stop saw, for the
// caller's look after it: a member found during the stop (forked, or left
// its parent meanwhile) is remembered there.
func (r StopResult) Record() Instance { return r.rec }

// MemberEnd is how one member of the tree ended.
type MemberEnd struct {
	PID    int32  `json:"pid"`
	Exe    string `json:"exe,omitempty"`
	Leader bool   `json:"leader,omitempty"`
	// Ended: the signal it ended after ("SIGTERM", "SIGINT": the stop
	// signal; "SIGKILL" at the timeout), "TerminateProcess" or "CTRL_BREAK"
	// (Windows), "stop_command" (during the stop command), or "gone" (ended
	// before it was signalled).
	Ended string `json:"ended"`
}

// StopOptions say how a tree is stopped: the service's stop_signal,
// kill_mode, stop_timeout and stop_command.
type StopOptions struct {
	// Timeout is how long the members have, from the first signal, before
	// whoever is left gets SIGKILL (stop_timeout).
	Timeout time.Duration
	// Signal is the stop signal's name ("SIGTERM", "SIGINT", ...); empty is
	// the OS's default (SIGTERM on unix; on Windows TerminateProcess, or
	// "SIGBREAK": CTRL_BREAK to the instance's console process group).
	Signal string
	// Main: the signal goes to the main process only (the instance's Main,
	// else the leader, else its oldest member), followed by SIGCONT; every
	// member left at the timeout gets SIGKILL (kill_mode = "main").
	Main bool
	// Command, when set, runs first (while a member lives): see StopCommand.
	Command *StopCommand
}

const (
	endGone    = "gone"
	endCommand = "stop_command"
	// pollInterval paces waits where the OS gives no exit notification.
	pollInterval = 25 * time.Millisecond
	// scanInterval bounds how long a stop waits between two listings of the
	// tree (to find processes forked meanwhile) when no member exits.
	scanInterval = 100 * time.Millisecond
	// killWait bounds the wait for a tree that was sent SIGKILL to disappear;
	// a process that is still there is stuck in the kernel.
	killWait = 5 * time.Second
)

// String is how a stop ended, for people: "3 processes: 3 on SIGTERM, in
// 41ms", "already gone".
func (r StopResult) String() string {
	if r.AlreadyGone {
		return "already gone"
	}
	n := map[string]int{}
	var order []string
	for _, m := range r.Members {
		if n[m.Ended] == 0 {
			order = append(order, m.Ended)
		}
		n[m.Ended]++
	}
	parts := make([]string, 0, len(order))
	for _, how := range order {
		word := "on " + how
		switch how {
		case endGone:
			word = "gone before a signal"
		case endCommand:
			word = "ended by the stop_command"
		}
		parts = append(parts, fmt.Sprintf("%d %s", n[how], word))
	}
	s := fmt.Sprintf("%s: %s, in %s", plural(len(r.Members), "process", "processes"),
		strings.Join(parts, ", "), r.Elapsed.Round(time.Millisecond))
	if r.Command != nil {
		s += "; stop_command " + r.Command.Exit
	}
	return s
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// killer is the OS seam of Stop: it signals members whose identity it has
// just proven (Linux pins each with a pidfd first), and waits for them.
type killer interface {
	defaultSignal() string                                    // the stop signal when none is set: "SIGTERM"
	signal(m Member, sig string) error                        // send sig to m; ErrGone if it already ended
	resume(m Member)                                          // SIGCONT after the stop signal (unix), so a stopped member can act on it
	kill(m Member) error                                      // end m now; ErrGone if it already did
	killAll() bool                                            // end every member at once where the OS can (cgroup.kill, job)
	wait(ctx context.Context, live []Member, d time.Duration) // until one of live exits, d passes or ctx ends
	close()
}

// Stop ends every process of the tree id leads (see StopTree). It is
// StopTree for a record that names no cgroup or job.
func Stop(ctx context.Context, id Identity, timeout time.Duration) (StopResult, error) {
	return StopTree(ctx, Instance{Identity: id}, timeout)
}

// StopTree is StopWith the default options: SIGTERM (TerminateProcess on
// Windows) to every member, SIGKILL at timeout.
func StopTree(ctx context.Context, inst Instance, timeout time.Duration) (StopResult, error) {
	return StopWith(ctx, inst, StopOptions{Timeout: timeout})
}

// StopWith ends every process of inst's tree: each member's identity is
// proven right before it is signalled; the stop command runs first when
// there is one; the stop signal goes to every member (and to members forked
// meanwhile), or to the main process only with o.Main, followed by SIGCONT
// so that a stopped member acts on it; whoever is left at the timeout is
// killed (SIGKILL). No live process of the tree gives
// StopResult{AlreadyGone: true}, with no command run; a leader PID that now
// belongs to a stranger, with no tree left, gives ErrNotOurs, and nothing is
// signalled. If ctx ends first, StopWith returns ctx's error and members may
// still run. An instance cgroup is removed once empty.
func StopWith(ctx context.Context, inst Instance, o StopOptions) (StopResult, error) {
	start := time.Now()
	t, rec, err := Look(inst, Scan)
	if err != nil {
		return StopResult{}, fmt.Errorf("stop pid %d: %w", inst.PID, err)
	}
	if t.Len() == 0 {
		defer releaseTree(inst)
		if t.LeaderReused {
			return StopResult{rec: rec}, fmt.Errorf("stop pid %d: %w: nothing was signalled", inst.PID, ErrNotOurs)
		}
		return StopResult{AlreadyGone: true, Elapsed: time.Since(start), rec: rec}, nil
	}
	k, err := newKiller(inst)
	if err != nil {
		return StopResult{rec: rec}, fmt.Errorf("stop pid %d: %w", inst.PID, err)
	}
	defer k.close()
	s := &stopping{inst: rec, k: k, ends: map[int32]*MemberEnd{}, sent: map[int32]string{}, o: o}
	err = s.run(ctx, t, start.Add(o.Timeout))
	res := s.result(time.Since(start))
	res.rec = s.inst
	if err != nil {
		return res, fmt.Errorf("stop pid %d: %w", inst.PID, err)
	}
	releaseTree(inst)
	return res, nil
}

// Released is StopTree for an instance the caller saw end whole (every
// process of its tree exited, proven by an exit watch just before): nothing
// is listed or signalled; what the instance left behind (its cgroup) is
// removed, and the result says no process was left.
func Released(inst Instance) StopResult {
	releaseTree(inst)
	return StopResult{AlreadyGone: true, rec: inst}
}
