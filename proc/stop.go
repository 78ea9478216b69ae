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
	// KilledStragglers: members other than the leader outlived SIGTERM past
	// the timeout and were killed.
	KilledStragglers bool `json:"killed_stragglers,omitempty"`
	// Members is every process the stop found, and how each ended.
	Members []MemberEnd `json:"members,omitempty"`
	// Elapsed is how long the stop took.
	Elapsed time.Duration `json:"elapsed_ns"`
}

// MemberEnd is how one member of the tree ended.
type MemberEnd struct {
	PID    int32  `json:"pid"`
	Exe    string `json:"exe,omitempty"`
	Leader bool   `json:"leader,omitempty"`
	// Ended: "SIGTERM" (ended after it), "SIGKILL" (killed at the timeout),
	// "TerminateProcess" (Windows), or "gone" (ended before it was signalled).
	Ended string `json:"ended"`
}

const (
	endGone = "gone"
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
		if how == endGone {
			word = "gone before a signal"
		}
		parts = append(parts, fmt.Sprintf("%d %s", n[how], word))
	}
	return fmt.Sprintf("%s: %s, in %s", plural(len(r.Members), "process", "processes"),
		strings.Join(parts, ", "), r.Elapsed.Round(time.Millisecond))
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
	graceful() string                                         // the name of the polite signal: "SIGTERM"
	term(m Member) error                                      // ask m to end; ErrGone if it already did
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

// StopTree ends every process of inst's tree: each member's identity is
// proven right before it is signalled, every member is asked to end
// (SIGTERM), members forked meanwhile are asked too, and whoever is left at
// timeout is killed (SIGKILL). No live process of the tree gives
// StopResult{AlreadyGone: true}; a leader PID that now belongs to a
// stranger, with no tree left, gives ErrNotOurs, and nothing is signalled.
// If ctx ends first, StopTree returns ctx's error and members may still run.
// An instance cgroup is removed once empty.
func StopTree(ctx context.Context, inst Instance, timeout time.Duration) (StopResult, error) {
	start := time.Now()
	t, err := Members(inst)
	if err != nil {
		return StopResult{}, fmt.Errorf("stop pid %d: %w", inst.PID, err)
	}
	if t.Len() == 0 {
		defer releaseTree(inst)
		if t.LeaderReused {
			return StopResult{}, fmt.Errorf("stop pid %d: %w: nothing was signalled", inst.PID, ErrNotOurs)
		}
		return StopResult{AlreadyGone: true, Elapsed: time.Since(start)}, nil
	}
	k, err := newKiller(inst)
	if err != nil {
		return StopResult{}, fmt.Errorf("stop pid %d: %w", inst.PID, err)
	}
	defer k.close()
	s := &stopping{inst: inst, k: k, ends: map[int32]*MemberEnd{}}
	err = s.run(ctx, t, start.Add(timeout))
	res := s.result(time.Since(start))
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
	return StopResult{AlreadyGone: true}
}

// stopping is one StopTree in progress: what was found, and how each ended.
type stopping struct {
	inst  Instance
	k     killer
	ends  map[int32]*MemberEnd
	order []int32
	sent  map[int32]string // the last signal sent to each member
	// sendErr is the last signal that failed for a reason other than the
	// member being gone (EPERM, say): it explains a tree that will not end.
	sendErr error
}

func (s *stopping) run(ctx context.Context, t Tree, deadline time.Time) error {
	s.sent = map[int32]string{}
	s.ask(t, s.k.graceful(), s.k.term)
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
		s.ask(t, s.k.graceful(), s.k.term) // newcomers forked since the last look
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if t.Len() == 0 {
		return nil
	}
	return s.force(ctx, t)
}

// force kills whoever is left at the deadline and waits for them to go.
func (s *stopping) force(ctx context.Context, t Tree) error {
	s.k.killAll()
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
		e := s.note(m)
		if s.sent[m.PID] == sig {
			continue
		}
		if err := send(m); err != nil {
			switch {
			case errors.Is(err, ErrGone):
				if e.Ended == "" {
					e.Ended = endGone
				}
			case !errors.Is(err, ErrNotOurs): // a PID reused between the look and the signal is left alone
				s.sendErr = err
			}
			continue
		}
		s.sent[m.PID] = sig
		e.Ended = sig
	}
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

func (s *stopping) rescan() (Tree, error) {
	t, err := scanTree(s.inst)
	if err != nil {
		return Tree{}, err
	}
	return t, nil
}

func (s *stopping) result(elapsed time.Duration) StopResult {
	res := StopResult{Elapsed: elapsed}
	for _, pid := range s.order {
		e := *s.ends[pid]
		if e.Ended == "" {
			e.Ended = endGone
		}
		if e.Leader && e.Ended != endGone {
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
// StopTree. `svc-ctl drill` uses it to rehearse a sudden death. No live
// process gives ErrGone.
func KillTree(inst Instance) error {
	t, err := Members(inst)
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
	s := &stopping{inst: inst, k: k, ends: map[int32]*MemberEnd{}, sent: map[int32]string{}}
	if err := s.force(context.Background(), t); err != nil {
		return fmt.Errorf("kill pid %d: %w", inst.PID, err)
	}
	return nil
}

// stillOurs is a poll condition: a read error counts as still running, so
// an unreadable moment never passes for an exit.
func stillOurs(id Identity) bool {
	st, err := inspect(id)
	return err != nil || st == stateOurs
}
