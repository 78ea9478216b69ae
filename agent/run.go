package agent

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/shirou/gopsutil/v4/host"

	"svcctl/agent/agentlog"
	"svcctl/agent/l2"
	"svcctl/agent/lean"
	"svcctl/agent/ledger"
	"svcctl/agent/selfping"
	"svcctl/agent/sleep"
	"svcctl/config"
	"svcctl/internal/child"
	"svcctl/internal/fsutil"
	"svcctl/internal/redact"
	"svcctl/jobs"
	"svcctl/metrics"
	"svcctl/notify"
	"svcctl/proc"
	"svcctl/runtrace"
	"svcctl/state"
	"svcctl/watchdog"
)

// Options configure one agent process.
type Options struct {
	Config  *config.Config
	Version string
	Mode    string   // service | user-service | foreground
	Stderr  *os.File // where a line no log destination took goes (a full disk); nil = none
	// Console gets a copy of every log line (a person's agent: cmd gives
	// it the human lines on a terminal, the JSON lines otherwise); nil =
	// none.
	Console io.Writer
	// LogWriter replaces the log's destinations (tests, demo); nil = the
	// config's log_destinations (agent.log via lumberjack by default).
	LogWriter io.Writer
	Clock     sleep.Clock
	// SleepTick is the period of the sleep detector (default 5s).
	SleepTick time.Duration
	// MaxStagger caps the random delay before each service's first cycle
	// (default min(interval, 30s)); negative means none (tests).
	MaxStagger time.Duration
	// CatchUpSpread spreads job catch-ups over this window (default 30s).
	CatchUpSpread time.Duration
	// Ready, when set, is closed once the agent runs its loops.
	Ready chan<- struct{}
	// LogCheckEvery is how often every service's runtime log is held to
	// its log_max between cycles (default: 5s for a log inotify
	// watches, 500ms for one nothing tells the agent of a write to; logcap).
	LogCheckEvery time.Duration
	// ReapEvery is the reaper's period (default ReapEvery: a minute).
	ReapEvery time.Duration
	// Reload delivers SIGHUP: a reload, with `svc-ctl reload`'s request
	// or with the defaults. Requests delivers the wake of the other
	// requests of the command line (SIGUSR1: `svc-ctl run`). nil = none
	// (on Windows the agent listens for its wake event itself). A request
	// never stops the agent (requests.go).
	Reload   <-chan struct{}
	Requests <-chan struct{}
	// Load re-reads the config file on a reload; nil = config.LoadToRun,
	// the load of everything that runs what the config names.
	Load func(path string) (*config.Config, error)
	// Cgroup is the cgroup v2 directory under which each service instance
	// gets a cgroup of its own; "" = the agent's own cgroup when systemd
	// delegated it (proc.DelegatedCgroup), else none ("-" = none at all).
	Cgroup string
	// Scope: where no cgroup is delegated to the agent, ask a reachable
	// systemd manager for a transient scope with Delegate=yes around the
	// agent (agent/scope). `svc-ctl agent` sets it when started by hand.
	Scope bool
	// NoSubreaper: the agent does not make itself a child subreaper even
	// where the OS can (Linux), so a daemon that double-forks out of a
	// service's tree goes to init, as on macOS. Tests of that mode set it.
	NoSubreaper bool
	// Lean: the process is the agent's own (`svc-ctl agent`): give back
	// start-up's memory once it is over (lean.go).
	Lean bool
	// StartChecks is `svc-ctl verify` as the agent runs it once, StartChecksAfter
	// (default 30s) after it started: one line per check that FAILs. The
	// command wires it (the checks live in report, above this package);
	// nil = none (tests, demo). startcheck.go.
	StartChecks      func(ctx context.Context) []string
	StartChecksAfter time.Duration
}

// Agent is the long-running supervisor: one loop per service, the fast path
// on exits, the sleep detector, the heartbeat, and the drain on stop.
type Agent struct {
	o   Options
	cur atomic.Pointer[config.Config] // the config in force: the one started with, or the last reloaded
	// loaded is the file behind it, for agent.status (status and verify
	// warn when the file on disk changed since).
	loaded atomic.Pointer[state.LoadedConfig]
	paths  state.Paths
	log    *slog.Logger
	// logLevel and logRed are the log's level and redactor: a reload sets
	// the new log_level and adds the new config's secrets.
	logLevel slog.LevelVar
	logRed   atomic.Pointer[redact.Redactor]
	sup      *watchdog.Supervisor
	// logSpawned tells the log cap loop that a service got a new instance,
	// and so a new log file to watch (logcap).
	logSpawned chan string
	store      *runtrace.Store // nil when the ledger is unavailable
	rec        watchdog.Recorder
	// ledger is the queue in front of store (rows a full disk refuses wait
	// there) and agent.status (agent/ledger).
	ledger ledger.Ledger
	// funnel is where every run result passes (rec, when the ledger is
	// usable); sender delivers the events it queues, pinger sends pings.
	funnel  *notify.Funnel
	deriver *notify.Deriver
	sender  *notify.Sender
	pinger  *notify.Pinger
	// self is the agent's own ping ([agent] ping); nil when none.
	self *selfping.Pinger
	// missingEvery is the period of the job.missing check (a minute; tests
	// shorten it through startAgentWith's tweak).
	missingEvery time.Duration
	instance     string
	started      time.Time
	boot         time.Time
	lock         *state.AgentLock
	// scope: the transient scope's cgroup the agent asked systemd for
	// (Options.Scope), "" if none.
	scope string
	// subreaper: this process is a child subreaper (Linux): orphans of the
	// services' trees are re-parented to it, and the orphans loop reaps them.
	subreaper bool
	closers   []io.Closer

	draining atomic.Bool
	// loopCtx and runCtx are the contexts of the loops and of the runs they
	// start (set by startLoops): a reload starts loops under them too.
	loopCtx, runCtx context.Context
	// loopMu guards the per-service loops and their trigger channels, which
	// a reload adds, restarts and removes.
	loopMu   sync.RWMutex
	svcLoops map[string]*loopHandle
	triggers map[string]chan watchdog.Request
	watched  sync.Map // service -> proc identity key being watched
	replaced sync.Map // identity keys a cycle stopped on purpose
	fatal    chan error
	jobs     *jobs.Runner
	metrics  *metrics.Counters
	// metricsHandler serves /metrics and /healthz; onExit is told when a
	// watched instance exits. Both are set in newAgent; a test may replace
	// them (before the loops start) to plant a fault.
	metricsHandler http.Handler
	onExit         func(name string, id proc.Identity, how string, gone bool)
	// net is the L2 net every goroutine of the agent starts under.
	net l2.Net
	// recMu guards the ledger against late writers: exit watchers outlive the
	// loops, and a process that exits after the agent stopped must not write
	// to a closed store.
	recMu  sync.RWMutex
	closed bool
	// acts counts the exit watchers' work in flight (see act): closeAll
	// waits for it, so nothing of this agent touches the state dir after it
	// has closed.
	acts sync.WaitGroup
}

// Run runs the agent until ctx is cancelled, then drains and returns. A nil
// error means a clean stop; anything else must end the process non-zero.
func Run(ctx context.Context, o Options) error {
	if o.Lean {
		lean.SetRuntime()
	}
	a, err := newAgent(o)
	if err != nil {
		return err
	}
	defer a.closeAll()
	return a.run(ctx)
}

func newAgent(o Options) (*Agent, error) {
	if o.Clock == nil {
		o.Clock = sleep.RealClock{Start: time.Now()}
	}
	if o.SleepTick <= 0 {
		o.SleepTick = 5 * time.Second
	}
	if o.ReapEvery <= 0 {
		o.ReapEvery = ReapEvery
	}
	if o.CatchUpSpread <= 0 {
		o.CatchUpSpread = 30 * time.Second
	}
	if o.Mode == "" {
		o.Mode = "foreground"
	}
	cfg := o.Config
	a := &Agent{o: o, paths: state.PathsOf(cfg), started: time.Now().UTC(),
		instance: randomID(), triggers: map[string]chan watchdog.Request{}, svcLoops: map[string]*loopHandle{}, fatal: make(chan error, 1),
		missingEvery: missingEvery, logSpawned: make(chan string, 16)}
	a.cur.Store(cfg)
	a.loaded.Store(&state.LoadedConfig{Path: cfg.Path, Digest: cfg.Digest, ModTime: cfg.ModTime, LoadedAt: a.started})
	if err := fsutil.EnsureDir(cfg.Agent.StateDir); err != nil {
		return nil, fmt.Errorf("state dir %s: %w", cfg.Agent.StateDir, err)
	}
	lock, err := state.LockAgent(a.paths)
	if err != nil {
		return nil, err
	}
	a.lock = lock
	a.setupLog()
	a.net = l2.Net{Log: a.log, Fatal: a.fatal, Exit: func() bool { return a.config().Agent.OnPanic == "exit" }}
	a.ledger.Paths, a.ledger.Log = a.paths, a.log
	a.setIdentity()
	a.metrics = metrics.New(a.started, a.ledger.Health)
	a.ledger.OpenStatus()
	a.openLedger()
	a.writeReport()
	a.sup = watchdog.NewSupervisor(cfg, a.rec, a.log)
	a.sup.OnSpawn = a.onSpawn
	a.sup.OnReplace = func(name string, id proc.Identity) { a.replaced.Store(idKey(id), true) }
	a.sup.Cgroup = a.cgroup()
	a.sup.Scope = a.scope != "" && a.scope == a.sup.Cgroup
	a.subreaper = a.becomeSubreaper()
	a.metricsHandler = metrics.Handler(a.metrics, a.draining.Load)
	a.onExit = a.exited
	a.jobs = a.newJobs()
	if bt, err := host.BootTime(); err == nil {
		a.boot = time.Unix(int64(bt), 0).UTC()
	}
	a.deriver.SetBootTime(a.boot) // the first start after a boot is not an outage
	return a, nil
}

// setIdentity makes (the first time) and reads the ids an otlp channel
// sends as its resource: service.instance.id and, where the OS has no
// machine id, host.id, both kept in the state dir (docs/fleet.md).
func (a *Agent) setIdentity() {
	id, err := notify.IdentityOf(a.paths, a.o.Version, true)
	if err != nil {
		a.log.Warn("identity.incomplete", "err", err, "hint", "otlp exports go without the ids named")
	}
	notify.SetIdentity(id)
}

// config is the configuration in force. A reload replaces it; whoever
// needs several of its values at once reads it once.
func (a *Agent) config() *config.Config { return a.cur.Load() }

func (a *Agent) setupLog() {
	w := a.o.LogWriter
	var unavailable []error
	if w == nil {
		f, errs := agentlog.Open(a.config().Agent, a.paths.AgentLog(), a.o.Stderr, a.o.Console)
		w, unavailable = f, errs
		a.closers = append(a.closers, f)
	}
	a.logLevel.Set(agentlog.Level(a.config().Agent.LogLevel))
	a.logRed.Store(redact.New(a.config().SecretValues()...))
	a.log = agentlog.NewLive(w, &a.logLevel, &a.logRed)
	for _, err := range unavailable {
		a.log.Error("log.destination_unavailable", "err", err, "destinations", a.config().Agent.LogDestinations)
	}
}

func (a *Agent) closeAll() {
	a.recMu.Lock()
	a.closed = true
	a.recMu.Unlock()
	a.acts.Wait()
	a.closeLedger()
	if a.ledger.Status != nil {
		a.ledger.Status.Close()
	}
	if a.store != nil {
		if err := a.store.Close(); err != nil {
			a.log.Error("ledger.close_failed", "err", err)
		}
	}
	for _, c := range a.closers {
		c.Close()
	}
	a.lock.Release()
}

func randomID() string {
	b := make([]byte, 8)
	rand.Read(b)
	return hex.EncodeToString(b)
}

func (a *Agent) run(ctx context.Context) error {
	a.ledger.ImportSpills(ctx)
	a.recordStartup()
	a.ledger.RecordPreviousLoss()
	crashed := a.net.OpenCrashLog(a.paths, func(at time.Time, tail []string) {
		a.record(runtrace.AgentID, runtrace.TriggerStartup, runtrace.OutcomeFailed, runtrace.ReasonPanic, map[string]any{
			"previous_agent_crashed": true, "crash_log_at": at, "tail": tail,
		})
	})
	if r := a.reaper(); r != nil {
		r.DeadAgents(ctx, a.ledger.Prev, a.boot, crashed, func(detail map[string]any) {
			a.record(runtrace.AgentID, runtrace.TriggerStartup, runtrace.OutcomeFailed, runtrace.ReasonAgentDied, detail)
		})
		r.ForgetDeadAgents(ctx)
	}
	a.housekeeping(ctx)
	loopCtx, stopLoops := context.WithCancel(ctx)
	defer stopLoops()
	// Runs get their own context: on stop they may finish, up to drain_timeout.
	runCtx, cancelRuns := context.WithCancelCause(context.WithoutCancel(ctx))
	defer cancelRuns(nil)
	a.startLoops(loopCtx, runCtx)
	if a.o.Ready != nil {
		close(a.o.Ready)
	}
	var fatal error
	select {
	case <-ctx.Done():
	case fatal = <-a.fatal:
	}
	stopLoops()
	err := a.drain(cancelRuns)
	return errors.Join(fatal, err)
}

func (a *Agent) startLoops(loopCtx, runCtx context.Context) {
	a.loopCtx, a.runCtx = loopCtx, runCtx
	a.jobs.Bind(loopCtx, runCtx)
	cfg := a.config()
	for i := range cfg.Services {
		a.startService(&cfg.Services[i], nil)
	}
	a.net.GoSafe(loopCtx, "heartbeat", a.heartbeatLoop)
	if q := a.ledger.Queue; q != nil {
		a.net.GoSafe(loopCtx, "ledger-retry", q.Run)
		// what a command (svc-ctl start, exec) spilled while the disk was full
		a.net.GoSafe(loopCtx, "ledger-spills", func(ctx context.Context) { every(ctx, time.Minute, a.ledger.ImportSpills) })
	}
	// The detector reads the clocks now, before Ready: a jump after Ready is seen.
	det := sleep.NewDetector(a.o.Clock, a.o.SleepTick)
	a.net.GoSafe(loopCtx, "sleep-detector", func(ctx context.Context) { a.sleepLoop(ctx, det) })
	a.net.GoSafe(loopCtx, "reaper", a.reapLoop)
	if a.subreaper {
		a.net.GoSafe(loopCtx, "orphans", func(ctx context.Context) { child.Reap(ctx, a.orphanReaped) })
	}
	// The log cap and the coverage run even with no service or job yet: a
	// reload may add some.
	a.net.GoSafe(loopCtx, "log-cap", a.logCap().Run)
	a.net.GoSafe(loopCtx, "prune", a.pruneLoop)
	a.net.GoSafe(loopCtx, "requests", a.requestServer().Run)
	if a.o.Lean {
		a.net.GoSafe(loopCtx, "trim", a.trimLoop)
	}
	a.net.GoSafe(loopCtx, "coverage", a.coverageLoop)
	if a.o.StartChecks != nil {
		a.net.GoSafe(loopCtx, "verify-at-start", a.verifyAtStart)
	}
	a.startNotify(loopCtx)
	a.startSelfPing(loopCtx)
	a.jobs.StartAll(a.config().Jobs)
	if a.config().Agent.MetricsListen != "" {
		a.net.GoSafe(loopCtx, "metrics", func(ctx context.Context) {
			if err := a.serveMetrics(ctx); err != nil {
				a.log.Error("metrics.failed", "err", err)
			}
		})
	}
	a.log.Info("agent.running", "services", len(a.config().Services), "jobs", len(a.config().Jobs), "instance", a.instance)
}
