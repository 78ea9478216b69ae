package watchdog

import (
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"svcctl/config"
	"svcctl/internal/redact"
	"svcctl/proc"
	"svcctl/state"
)

// The Supervisor: one per agent, shared by every cycle, holding the config
// in force and the seams a test swaps.

// Supervisor runs L3 cycles for the services of one configuration. The agent
// and the command line both use it; the per-service file lock keeps them from
// ever running two cycles of one service at once.
type Supervisor struct {
	Paths state.Paths
	Rec   Recorder
	Log   *slog.Logger
	Now   func() time.Time
	// OnSpawn, when set, is told of every instance this process spawned: the
	// agent's fast path waits on it.
	OnSpawn func(service string, c *proc.Child)
	// OnReplace, when set, is told of an instance this cycle is about to stop
	// and replace: its exit is not news (the agent's exit watch ignores it).
	OnReplace func(service string, id proc.Identity)
	// Cgroup is a delegated cgroup v2 directory (proc.DelegatedCgroup) under
	// which every instance this process spawns gets a cgroup of its own, so
	// that even a daemonizing service stays owned. Empty: the records (and
	// the subreaper, in an agent that is one) own the tree.
	Cgroup string
	// Scope: Cgroup is a transient scope systemd made around an agent
	// started by hand (the instances' mode says "scope").
	Scope bool
	// By names who acts by hand through this supervisor, for the record:
	// "ui" for the status page. It is the `by` of a manual run's detail and
	// of a pause sentinel. Empty: the person at the terminal (state.Who()
	// on a pause; nothing on a row).
	By string

	recErr   recordErrors
	book     bookkeeping                     // state.json, watchdog.last.json and pid files the disk refused
	wr       written                         // state.json and watchdog.last.json as last written or read (written.go)
	limits   limitTracker                    // what the samples of each service's tree have seen ([service.limits])
	cfg      atomic.Pointer[config.Config]   // the config in force (SetConfig on a reload)
	red      atomic.Pointer[redact.Redactor] // every secret of every config in force so far, scrubbed wherever the cycle writes
	inflight sync.Map                        // run id -> service name, for the drain
	logLocks sync.Map                        // service name -> *sync.Mutex: CapLog against the restart's rotation
	capErrs  sync.Map                        // service name -> last CapLog error ("" none), logged once
	capNotes sync.Map                        // service name -> *capNote: log.capped at most once a minute
	pins     logPins                         // each service's log directory, pinned (logdir.go)
	trackMu  sync.Mutex
	track    map[string]*trackState // service name -> when Track last scanned and wrote
}

// InFlight returns the run ids of the cycles running right now.
func (s *Supervisor) InFlight() map[int64]string {
	out := map[int64]string{}
	s.inflight.Range(func(k, v any) bool {
		out[k.(int64)] = v.(string)
		return true
	})
	return out
}

// NewSupervisor returns a supervisor for cfg that records to rec.
func NewSupervisor(cfg *config.Config, rec Recorder, log *slog.Logger) *Supervisor {
	if rec == nil {
		rec = NopRecorder{}
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	s := &Supervisor{Paths: state.PathsOf(cfg), Rec: rec, Log: log, Now: time.Now}
	s.cfg.Store(cfg)
	s.red.Store(redact.New(cfg.SecretValues()...))
	return s
}

// Config is the configuration in force.
func (s *Supervisor) Config() *config.Config { return s.cfg.Load() }

// SetConfig puts a reloaded configuration in force (its state dir is the
// same: the agent refuses a reload that moves it). A cycle in progress
// finishes with the service definition it began with; the next one reads
// cfg. The redactor keeps the secrets of every configuration so far: a
// process started under the old one may still print them.
func (s *Supervisor) SetConfig(cfg *config.Config) {
	old := s.cfg.Swap(cfg)
	s.pins.reset() // a reload checks and pins every log directory again
	s.red.Store(redact.New(append(old.SecretValues(), cfg.SecretValues()...)...))
}

func (s *Supervisor) now() time.Time { return s.Now().UTC() }
