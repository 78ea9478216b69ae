package proc

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// A stop in steps: stop_command or the stop signal (to the main process,
// or to every member), the wait for the tree to end, then the force on
// whoever is left, each member checked to be the very process before it is
// signalled.

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
	if err == nil {
		err = ctx.Err() // a stop called off while it waited sends nothing more
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
