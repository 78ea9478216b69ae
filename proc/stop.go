package proc

import (
	"context"
	"errors"
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

// stopping is one StopWith in progress: what was found, and how each ended.
type stopping struct {
	inst    Instance
	k       killer
	o       StopOptions
	command *CommandEnd
	ends    map[int32]*MemberEnd
	order   []int32
	sent    map[int32]string // the last signal sent to each member
	// sendErr is the last signal that failed for a reason other than the
	// member being gone (EPERM, say): it explains a tree that will not end.
	sendErr error
}

func (s *stopping) run(ctx context.Context, t Tree, deadline time.Time) error {
	if s.o.Command != nil {
		for _, m := range t.Members {
			s.note(m)
		}
		var err error
		if t, err = s.runCommand(ctx, deadline); err != nil || t.Len() == 0 {
			return err
		}
	}
	sig := s.o.Signal
	if sig == "" {
		sig = s.k.defaultSignal()
	}
	s.askStop(t, sig)
	for t.Len() > 0 && time.Now().Before(deadline) {
		if err := ctx.Err(); err != nil {
			return err
		}
		s.k.wait(ctx, t.Members, min(scanInterval, time.Until(deadline)))
		next, err := s.rescan()
		if err != nil {
			return err
		}
		t = next
		if !s.o.Main {
			s.askStop(t, sig) // newcomers forked since the last look
		}
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if t.Len() == 0 {
		return nil
	}
	return s.force(ctx, t)
}

// runCommand runs the stop command, for at most half the stop timeout (the
// other half is the signals'), and looks again: a member that ended
// meanwhile ended by it.
func (s *stopping) runCommand(ctx context.Context, deadline time.Time) (Tree, error) {
	limit := min(time.Until(deadline), s.o.Timeout/2)
	until := time.Now().Add(limit)
	end := runStopCommand(ctx, *s.o.Command, limit)
	s.command = &end
	t, err := s.rescan()
	// A stop command that succeeded has often only asked (`nginx -s quit`,
	// `kill -INT`, a control tool that does not wait): the members get the
	// rest of its half to end by it before a signal follows.
	for err == nil && t.Len() > 0 && end.ExitCode != nil && *end.ExitCode == 0 &&
		time.Now().Before(until) && ctx.Err() == nil {
		s.k.wait(ctx, t.Members, min(scanInterval, time.Until(until)))
		t, err = s.rescan()
	}
	if err != nil {
		return Tree{}, err
	}
	for pid, e := range s.ends {
		if !t.Has(pid) && e.Ended == "" {
			e.Ended = endCommand
		}
	}
	return t, nil
}

// askStop sends the stop signal: to every member not yet sent it, or with
// kill_mode main to the main process only; SIGCONT follows it.
func (s *stopping) askStop(t Tree, sig string) {
	targets := t
	if s.o.Main {
		targets = Tree{}
		if m, ok := mainMember(s.inst, t); ok {
			targets.Members = []Member{m}
		}
		for _, m := range t.Members {
			s.note(m) // the others are listed; they get SIGKILL at the timeout
		}
	}
	for _, m := range targets.Members {
		if s.sent[m.PID] != "" {
			continue
		}
		if s.send(m, sig, func(m Member) error { return s.k.signal(m, sig) }) {
			s.k.resume(m)
		}
	}
}

// mainMember is the process kill_mode "main" signals: the instance's main
// process (its pid_file's, or the one that served its port), else the
// leader, else the oldest member (a launcher's server, with no record of
// which one serves).
func mainMember(inst Instance, t Tree) (Member, bool) {
	if inst.Main != nil {
		if m, ok := t.Member(inst.Main.PID); ok && m.Start == inst.Main.Start {
			return m, true
		}
	}
	if len(t.Members) == 0 {
		return Member{}, false
	}
	return t.Members[0], true // the leader while it lives, else the oldest
}

// force kills whoever is left at the deadline and waits for them to go.
func (s *stopping) force(ctx context.Context, t Tree) error {
	if s.k.killAll() {
		// Every member alive at the last look was killed with the cgroup
		// (or job) at once; one may be reaped before ask gets to it.
		for _, m := range t.Members {
			s.note(m).Ended, s.sent[m.PID] = "SIGKILL", "SIGKILL"
		}
	}
	s.ask(t, "SIGKILL", s.k.kill)
	until := time.Now().Add(killWait)
	for time.Now().Before(until) {
		next, err := s.rescan()
		if err != nil {
			return err
		}
		if next.Len() == 0 {
			return nil
		}
		s.ask(next, "SIGKILL", s.k.kill)
		s.k.wait(ctx, next.Members, pollInterval)
		if err := ctx.Err(); err != nil {
			return err
		}
	}
	t, _ = s.rescan()
	if s.sendErr != nil {
		return fmt.Errorf("%s still running %s after SIGKILL: %w", plural(t.Len(), "process", "processes"), killWait, s.sendErr)
	}
	return fmt.Errorf("%s still running %s after SIGKILL (stuck in the kernel?)", plural(t.Len(), "process", "processes"), killWait)
}

// ask sends sig (through send) to every member not yet sent it. A member
// found for the first time is recorded.
func (s *stopping) ask(t Tree, sig string, send func(Member) error) {
	for _, m := range t.Members {
		if s.sent[m.PID] == sig {
			s.note(m)
			continue
		}
		s.send(m, sig, send)
	}
}

// send sends sig to m through fn and records it; false when it was not
// sent (m ended first, or the OS refused).
func (s *stopping) send(m Member, sig string, fn func(Member) error) bool {
	e := s.note(m)
	if err := fn(m); err != nil {
		switch {
		case errors.Is(err, ErrGone):
			if e.Ended == "" {
				e.Ended = endGone
			}
		case !errors.Is(err, ErrNotOurs): // a PID reused between the look and the signal is left alone
			s.sendErr = err
		}
		return false
	}
	s.sent[m.PID] = sig
	e.Ended = sig
	return true
}

func (s *stopping) note(m Member) *MemberEnd {
	if e, ok := s.ends[m.PID]; ok {
		return e
	}
	e := &MemberEnd{PID: m.PID, Exe: m.Exe, Leader: m.Leader}
	s.ends[m.PID] = e
	s.order = append(s.order, m.PID)
	return e
}

// rescan looks again, with every proof: a member may have forked, or left
// its parent, since the last look. What it finds is remembered for the
// next one, so a member whose leader ends meanwhile stays one.
func (s *stopping) rescan() (Tree, error) {
	t, rec, err := Look(s.inst, Scan)
	if err != nil {
		return Tree{}, err
	}
	s.inst = rec
	return t, nil
}

func (s *stopping) result(elapsed time.Duration) StopResult {
	res := StopResult{Elapsed: elapsed, Command: s.command, KillMode: "tree"}
	if s.o.Main {
		res.KillMode = "main"
	}
	for _, pid := range s.order {
		e := *s.ends[pid]
		if e.Ended == "" {
			e.Ended = endGone
		}
		if e.Leader && e.Ended != endGone && e.Ended != endCommand {
			res.Signal = e.Ended
		}
		if !e.Leader && e.Ended == "SIGKILL" {
			res.KilledStragglers = true
		}
		res.Members = append(res.Members, e)
	}
	return res
}

// Kill ends id's tree at once (see KillTree).
func Kill(id Identity) error { return KillTree(Instance{Identity: id}) }

// KillTree ends every process of inst's tree at once (SIGKILL on unix,
// TerminateJobObject/TerminateProcess on Windows), with the same proofs as
// StopTree. No live process gives ErrGone.
func KillTree(inst Instance) error {
	t, rec, err := Look(inst, Scan)
	if err != nil {
		return fmt.Errorf("kill pid %d: %w", inst.PID, err)
	}
	if t.Len() == 0 {
		if t.LeaderReused {
			return fmt.Errorf("kill pid %d: %w: nothing was signalled", inst.PID, ErrNotOurs)
		}
		return fmt.Errorf("kill pid %d: %w", inst.PID, ErrGone)
	}
	k, err := newKiller(inst)
	if err != nil {
		return fmt.Errorf("kill pid %d: %w", inst.PID, err)
	}
	defer k.close()
	s := &stopping{inst: rec, k: k, ends: map[int32]*MemberEnd{}, sent: map[int32]string{}}
	if err := s.force(context.Background(), t); err != nil {
		return fmt.Errorf("kill pid %d: %w", inst.PID, err)
	}
	return nil
}

// KillMember ends one member of inst's tree at once (SIGKILL,
// TerminateProcess), its identity proven first: `svc-ctl drill` kills the
// process that serves, as a crash would.
func KillMember(inst Instance, m Member) error {
	k, err := newKiller(inst)
	if err != nil {
		return fmt.Errorf("kill pid %d: %w", m.PID, err)
	}
	defer k.close()
	if err := k.kill(m); err != nil {
		return fmt.Errorf("kill pid %d: %w", m.PID, err)
	}
	return nil
}

// stillOurs is a poll condition: a read error counts as still running, so
// an unreadable moment never passes for an exit.
func stillOurs(id Identity) bool {
	st, err := inspect(id)
	return err != nil || st == stateOurs
}
