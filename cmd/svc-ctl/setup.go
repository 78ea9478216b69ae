package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"

	"svcctl/config"
	"svcctl/jobs"
	"svcctl/notify"
	"svcctl/proc"
	"svcctl/runtrace"
	"svcctl/state"
	"svcctl/watchdog"
)

// loadConfig resolves --config / $SVC_CTL_CONFIG / the platform default and
// loads it strictly, as the running command's trust level says (trust.go):
// a "run" command gets it only through config.LoadToRun and after its state
// dir passed state.Check. Any failure is a configuration error (exit 2).
func loadConfig(g *globals) (*config.Config, error) {
	if g.cfg != nil {
		return g.cfg, nil
	}
	cfg, err := loadConfigFresh(g)
	if err != nil {
		return nil, err
	}
	g.cfg = cfg
	return cfg, nil
}

// loadConfigFresh loads and checks the config as loadConfig does, every
// time: for a long-running command (ui) whose every action must pass the
// checks as they stand then, not as they stood when it started.
func loadConfigFresh(g *globals) (*config.Config, error) {
	path, source, err := config.Resolve(g.configPath)
	if err != nil {
		return nil, configError{err}
	}
	load := config.Load
	switch g.trust {
	case trustRun:
		load = config.LoadToRun
	case trustRead:
		load = config.LoadToRead // an env_file it may not read is no config error for a reader
		if g.fileItself {
			break // config check judges the file: it refuses what it cannot trust, below its load
		}
		if cfg, handled, err := untrustedRead(g, path); handled {
			return cfg, err
		}
	default:
		return nil, fmt.Errorf("internal error: a command of trust level %q loads the config", g.trust)
	}
	cfg, err := load(path)
	if err != nil {
		if errors.Is(err, fs.ErrPermission) {
			return nil, state.Denied(path, err) // exit 1: a check that could not be made
		}
		if errors.Is(err, fs.ErrNotExist) {
			return nil, configError{fmt.Errorf("no config file at %s (from %s): create one ('svc-ctl init' writes a starter there) or pass --config", path, source)}
		}
		return nil, configError{err}
	}
	if g.trust == trustRun {
		if err := state.Check(state.PathsOf(cfg), !config.UserMode()); err != nil {
			return nil, configError{err}
		}
	}
	return cfg, nil
}

// loadConfigToRun loads a config whose commands this process will run: the
// command must be declared trustRun.
func loadConfigToRun(g *globals) (*config.Config, error) {
	if g.trust != trustRun {
		return nil, fmt.Errorf("internal error: a command of trust level %q runs what the config names; declare it %q", g.trust, trustRun)
	}
	return loadConfig(g)
}

// loadConfigToRunFresh is loadConfigFresh for a command declared trustRun.
func loadConfigToRunFresh(g *globals) (*config.Config, error) {
	if g.trust != trustRun {
		return nil, fmt.Errorf("internal error: a command of trust level %q runs what the config names; declare it %q", g.trust, trustRun)
	}
	return loadConfigFresh(g)
}

// cliLogger writes warnings and errors to stderr as text: the command line is
// for people; the agent's JSON log is for the agent.
func cliLogger(g *globals) *slog.Logger {
	return slog.New(slog.NewTextHandler(g.stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
}

// ledger is what a command that writes runs records them through: a
// cycle's rows (watchdog.Recorder) and a job's (jobs.Ledger).
type ledger interface {
	watchdog.Recorder
	jobs.Ledger
}

// openLedger opens run_trace for a command that writes runs. Its runs pass
// the same funnel as the agent's: the events a verdict raises are queued in
// the outbox with the row (the agent delivers them), and pings go out before
// the command exits. A ledger that cannot be opened does not stop the
// command: the cycle still runs, the failure to record is printed, and the
// result is kept in watchdog.last.json.
func openLedger(g *globals, cfg *config.Config) (ledger, func()) {
	st, err := runtrace.Open(state.PathsOf(cfg).DB(), runtrace.Options{Logger: cliLogger(g), Boot: proc.BootID()}) // its INFO (migrated) is no news at a terminal
	if err != nil {
		fmt.Fprintf(g.stderr, "svc-ctl: warning: %v\nsvc-ctl: warning: runs will not be recorded in run_trace; results are kept in watchdog.last.json\n", err)
		return watchdog.NopRecorder{Why: err}, func() {}
	}
	// Rows the ledger refuses (a full disk) wait in the queue; at the end
	// they go to a spill file, which the agent writes into the ledger.
	q := runtrace.NewQueue(st, runtrace.QueueOptions{})
	host, _ := os.Hostname()
	f := notify.NewFunnel(st, notify.NewDeriver(cfg, host, time.Local)).Through(q)
	pinger := notify.NewPinger(cfg, st, cliLogger(g))
	f.Observe(pinger)
	return f, func() {
		if !pinger.WaitFor(5 * time.Second) {
			fmt.Fprintln(g.stderr, "svc-ctl: warning: a ping was still unanswered after 5s; not waiting longer")
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		res := q.Close(ctx)
		switch {
		case res.SpillPath != "":
			fmt.Fprintf(g.stderr, "svc-ctl: warning: %d run_trace rows could not be written (%s): kept in %s; the agent writes them into the ledger when it takes writes again\n",
				res.Rows, res.Health.Summary(), res.SpillPath)
		case res.Lost > 0:
			fmt.Fprintf(g.stderr, "svc-ctl: error: %d run_trace rows could not be written (%s) nor kept anywhere: %v\n",
				res.Lost, res.Health.Summary(), res.Err)
		}
		st.Close()
	}
}

// newSupervisor is the common setup of the commands that run cycles.
func newSupervisor(g *globals) (*watchdog.Supervisor, func(), error) {
	cfg, err := loadConfigToRun(g)
	if err != nil {
		return nil, nil, err
	}
	if err := readableState(cfg); err != nil {
		return nil, nil, err
	}
	rec, closeRec := openLedger(g, cfg)
	return cliSupervisor(g, cfg, rec), closeRec, nil
}

// cliSupervisor is the supervisor of a command (or a status page action)
// that runs cycles. A service it spawns gets a cgroup of its own beside the
// running agent's instances when that agent has a delegated cgroup (Linux,
// under the unit svc-ctl installs): a service a person starts from a shell
// is then owned as the agent's are, and a daemon that leaves its session
// cannot escape `svc-ctl stop`. With no agent, or none with a delegated
// cgroup, the instance is owned by its session, as before.
func cliSupervisor(g *globals, cfg *config.Config, rec watchdog.Recorder) *watchdog.Supervisor {
	sup := watchdog.NewSupervisor(cfg, rec, cliLogger(g))
	sup.Cgroup = agentCgroup(state.PathsOf(cfg))
	// The scope systemd made around an agent started by hand (agent/scope).
	base := filepath.Base(sup.Cgroup)
	sup.Scope = strings.HasPrefix(base, "svc-ctl-agent-") && strings.HasSuffix(base, ".scope")
	return sup
}

// agentCgroup is the running agent's delegated cgroup ("" when no agent
// runs or it has none).
func agentCgroup(p state.Paths) string {
	if held, err := state.AgentLockHeld(p); err != nil || !held {
		return ""
	}
	pid, err := state.ReadAgentPID(p)
	if err != nil {
		return ""
	}
	dir, ok, _ := proc.DelegatedCgroupOf(int32(pid))
	if !ok {
		return ""
	}
	return dir
}

// readableState is the one answer to a person who runs start, stop, pause,
// resume, restart or drill against a state dir they may not read (a root
// agent's, without sudo): "permission denied reading X: run as root or as
// the agent's user" (exit 1), before any cycle runs — not a failed cycle
// with a ledger it "cannot create" and "the agent is unknown". `exec` does
// not ask: the command it wraps runs, recorded or not.
func readableState(cfg *config.Config) error {
	return state.Readable(state.PathsOf(cfg))
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
