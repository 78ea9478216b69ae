package watchdog

import (
	"os"
	"reflect"
	"slices"
	"sync"
	"time"

	"svcctl/state"
)

// A healthy cycle of a healthy service changes nothing in state.json and
// watchdog.last.json but times (when it looked, its latency) and the run id
// of its row. Rewriting both files every cycle was an eighth of an idle
// agent's CPU at a 1 s interval, so such a cycle keeps them in memory
// (written) and writes neither: the files are written when something else
// changes, by every cycle that must be durable (mustSync: a cycle that acts,
// a change of state), and at least every refreshEvery. Readers take "last
// checked" from agent.status, which the agent renews from Checked at each
// heartbeat. The durability rules of docs/architecture.md are unchanged: a
// cycle that acts still writes before it acts, and what is kept in memory is
// only ever a healthy verdict repeated.
//
// Every other writer (a person's `svc-ctl start`, `resume`) writes the files
// under the same lock, by rename: a file that is no longer the one this
// process wrote or read (another inode, size or modification time) is read
// again.

// refreshEvery bounds how old the times in the files may grow while nothing
// changes (what a reader of the files alone, or the next agent after a
// crash, sees).
const refreshEvery = 5 * time.Minute

// written is what this process last wrote to or read from each service's
// state.json and watchdog.last.json entry.
type written struct {
	mu    sync.Mutex
	state map[string]writtenState
	last  map[string]writtenLast
}

type writtenState struct {
	st      state.Service // the newest, also when only its times moved since the write
	onDisk  state.Service // as the file has it
	fi      os.FileInfo   // the file after the write or read
	savedAt time.Time
}

type writtenLast struct {
	r       *state.LastResult // as the file has it
	fi      os.FileInfo
	savedAt time.Time
}

// sameFile reports whether path is still the file fi described: every
// writer replaces by rename, so another writer's file is another inode (or,
// reused, another size or time).
func sameFile(path string, fi os.FileInfo) bool {
	now, err := os.Lstat(path)
	return err == nil && fi != nil && os.SameFile(fi, now) && fi.Size() == now.Size() && fi.ModTime().Equal(now.ModTime())
}

// keptState is the state this process knows to be current: the one it
// wrote or read, when the file is still that one.
func (s *Supervisor) keptState(name, path string) (state.Service, bool) {
	s.wr.mu.Lock()
	w, ok := s.wr.state[name]
	s.wr.mu.Unlock()
	if !ok || !sameFile(path, w.fi) {
		return state.Service{}, false
	}
	return cloneState(w.st), true
}

// rememberState notes st as the file's content (just written or read).
func (s *Supervisor) rememberState(name, path string, st state.Service) {
	fi, err := os.Lstat(path)
	s.wr.mu.Lock()
	defer s.wr.mu.Unlock()
	if err != nil {
		delete(s.wr.state, name)
		return
	}
	if s.wr.state == nil {
		s.wr.state = map[string]writtenState{}
	}
	s.wr.state[name] = writtenState{st: cloneState(st), onDisk: cloneState(st), fi: fi, savedAt: s.now()}
}

// skipState keeps st in memory instead of writing it, when the file is
// still the one this process wrote or read, differs from st only in its
// times, and is younger than refreshEvery. The caller decided the cycle
// need not be durable.
func (s *Supervisor) skipState(name, path string, st state.Service) bool {
	s.wr.mu.Lock()
	w, ok := s.wr.state[name]
	s.wr.mu.Unlock()
	if !ok || s.now().Sub(w.savedAt) >= refreshEvery || !sameFacts(w.onDisk, st) || !sameFile(path, w.fi) {
		return false
	}
	s.wr.mu.Lock()
	w.st = cloneState(st)
	s.wr.state[name] = w
	s.wr.mu.Unlock()
	return true
}

// sameFacts reports whether a and b differ at most in what every healthy
// cycle moves: when it looked and what the look measured, when the service
// was last healthy (whether it ever was, and whether its instance was, are
// facts).
func sameFacts(a, b state.Service) bool {
	return slices.Equal(verdicts(a), verdicts(b)) && reflect.DeepEqual(factsOf(a), factsOf(b))
}

// verdicts are the last look's verdicts, check by check: facts, where its
// latencies are not.
func verdicts(st state.Service) []bool {
	out := make([]bool, len(st.LastProbe))
	for i, r := range st.LastProbe {
		out[i] = r.Healthy
	}
	return out
}

func factsOf(st state.Service) state.Service {
	healthy, instance := !st.LastHealthy.IsZero(), !st.InstanceHealthyAt.IsZero()
	st.LastCycle, st.LastProbeAt, st.LastHealthy, st.InstanceHealthyAt = time.Time{}, time.Time{}, time.Time{}, time.Time{}
	st.LastProbe = nil
	if healthy {
		st.LastHealthy = time.Unix(1, 0)
	}
	if instance {
		st.InstanceHealthyAt = time.Unix(1, 0)
	}
	return st
}

func cloneState(st state.Service) state.Service {
	st.LastProbe = slices.Clone(st.LastProbe)
	st.RecentStarts = slices.Clone(st.RecentStarts)
	st.Transitions = slices.Clone(st.Transitions)
	return st
}

// skipLast keeps r in memory instead of writing watchdog.last.json, on the
// same terms as skipState: the entry written last says the same (trigger,
// outcome, reason, message, no recording error) and is younger than
// refreshEvery, and the file is the one this process wrote.
func (s *Supervisor) skipLast(name, path string, r *state.LastResult) bool {
	s.wr.mu.Lock()
	w, ok := s.wr.last[name]
	s.wr.mu.Unlock()
	if !ok || s.now().Sub(w.savedAt) >= refreshEvery || r.RecordError != "" || w.r.RecordError != "" ||
		r.Trigger != w.r.Trigger || r.Outcome != w.r.Outcome || r.Reason != w.r.Reason || r.Message != w.r.Message {
		return false
	}
	return sameFile(path, w.fi)
}

// rememberLast notes the entries just written to watchdog.last.json.
func (s *Supervisor) rememberLast(path string, rs map[string]*state.LastResult) {
	fi, err := os.Lstat(path)
	s.wr.mu.Lock()
	defer s.wr.mu.Unlock()
	if s.wr.last == nil {
		s.wr.last = map[string]writtenLast{}
	}
	for name, r := range rs {
		if err != nil {
			delete(s.wr.last, name)
			continue
		}
		s.wr.last[name] = writtenLast{r: r, fi: fi, savedAt: s.now()}
	}
	// The file changed: what was remembered of the others' entries is
	// still what the file holds (UpdateLastAll keeps them), under its new
	// identity.
	for name, w := range s.wr.last {
		if _, ok := rs[name]; !ok && err == nil {
			w.fi = fi
			s.wr.last[name] = w
		}
	}
}

// Checked is, per service this process has cycled, when its health was
// last looked at, as this process knows it: newer than the files say while
// healthy cycles keep them in memory. The agent renews agent.status with it.
func (s *Supervisor) Checked() map[string]time.Time {
	s.wr.mu.Lock()
	defer s.wr.mu.Unlock()
	out := make(map[string]time.Time, len(s.wr.state))
	for name, w := range s.wr.state {
		if w.st.LastProbeAt.After(w.onDisk.LastProbeAt) {
			out[name] = w.st.LastProbeAt
		}
	}
	return out
}
