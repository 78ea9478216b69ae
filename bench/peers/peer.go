package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"svcctl/bench/internal/benchkit"
	"svcctl/proc"
)

// peer is one supervisor under test.
type peer interface {
	name() string
	// prepare finds (or installs) the supervisor and returns its version.
	prepare(ctx context.Context, e *env) (string, error)
	// settings says how it is configured, for the table.
	settings() string
	// start runs the supervisor with one testsvc on addr and returns once
	// the supervisor itself runs (not necessarily the service yet).
	start(ctx context.Context, e *env, addr string) (*instance, error)
	// armed is how long after a new service instance answers before the
	// supervisor can judge the next failure (monit pauses its connection
	// tests while a process starts; supervisord and PM2 count a process
	// that dies within 1 s of its start as a failed start).
	armed() time.Duration
}

// instance is one running supervisor.
type instance struct {
	addr string
	// pids are the supervisor's own processes: what is measured.
	pids []int
	// stop ends the supervisor and every process it started; safe to call
	// more than once.
	stop func() error
}

// env is what every peer shares in one run.
type env struct {
	k       *benchkit.Kit
	bins    benchkit.Binaries
	install bool
	svcs    *tracker
}

func newEnv(ctx context.Context, k *benchkit.Kit, install bool) (*env, error) {
	bins, err := k.Build(ctx)
	if err != nil {
		return nil, err
	}
	t := &tracker{exe: bins.TestSvc, ids: map[int32]proc.Identity{}}
	if exe, err := filepath.EvalSymlinks(bins.TestSvc); err == nil {
		t.exe = exe
	}
	// Registered first, so it runs last: after every supervisor is stopped,
	// no instance it started can be respawned any more.
	k.Defer(t.killAll)
	return &env{k: k, bins: bins, install: install, svcs: t}, nil
}

// newInstance wraps a stop function so that it runs once, also at the end of
// the program, and stops the instance's service afterwards.
func (e *env) newInstance(addr string, pids []int, stopSupervisor func() error) *instance {
	var once sync.Once
	var err error
	in := &instance{addr: addr, pids: pids}
	in.stop = func() error {
		once.Do(func() {
			e.svcs.see(addr)
			err = stopSupervisor()
			e.svcs.sweep(addr)
			e.svcs.killAll()
		})
		return err
	}
	e.k.Defer(func() { in.stop() })
	return in
}

func choose(names []string) ([]peer, error) {
	all := map[string]func() peer{
		"monit":       func() peer { return &monit{} },
		"supervisord": func() peer { return &supervisord{} },
		"pm2":         func() peer { return &pm2{} },
		"svc-ctl":     func() peer { return &svcctl{} },
	}
	var out []peer
	for _, n := range names {
		f, ok := all[n]
		if !ok {
			return nil, fmt.Errorf("-peers %q: want monit, supervisord, pm2 or svc-ctl", n)
		}
		out = append(out, f())
	}
	return out, nil
}

// tracker remembers every testsvc instance the bench has seen answer, so
// that each can be stopped by its PID at the end whoever started it (monit
// and PM2 start services that are not the bench's children).
type tracker struct {
	exe string // the testsvc binary: only processes running it are ours
	mu  sync.Mutex
	ids map[int32]proc.Identity
}

// add records pid if it runs testsvc.
func (t *tracker) add(pid int) (proc.Identity, error) {
	id, err := benchkit.IdentityOfPID(pid)
	if err != nil {
		return id, err
	}
	if !t.ours(id) {
		return id, fmt.Errorf("pid %d answering on the service's port runs %s, not %s", pid, id.Exe, t.exe)
	}
	t.mu.Lock()
	t.ids[id.PID] = id
	t.mu.Unlock()
	return id, nil
}

func (t *tracker) ours(id proc.Identity) bool {
	exe := strings.TrimSuffix(id.Exe, " (deleted)")
	return exe == t.exe
}

// see records whatever instance answers on addr now, if any.
func (t *tracker) see(addr string) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if pid, err := benchkit.PIDOf(ctx, addr); err == nil {
		t.add(pid)
	}
}

// sweep stops whatever testsvc instance still answers on addr: one its
// supervisor left behind (monit does not stop services when it exits).
func (t *tracker) sweep(addr string) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	pid, err := benchkit.PIDOf(ctx, addr)
	if err != nil {
		return
	}
	if id, err := t.add(pid); err == nil {
		benchkit.StopIdentity(id, 2*time.Second)
	}
}

// killAll stops every recorded instance that is still the process recorded.
func (t *tracker) killAll() {
	t.mu.Lock()
	ids := make([]proc.Identity, 0, len(t.ids))
	for _, id := range t.ids {
		ids = append(ids, id)
	}
	t.ids = map[int32]proc.Identity{}
	t.mu.Unlock()
	for _, id := range ids {
		benchkit.KillIdentity(id, 5*time.Second)
	}
}

// child is a supervisor the bench runs in the foreground as its own child.
type child struct {
	id   proc.Identity
	done chan struct{}
	log  string
}

// startChild starts argv with its output in logPath, in dir.
func startChild(dir, logPath string, env []string, argv ...string) (*child, error) {
	out, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", logPath, err)
	}
	cmd := command(argv...)
	cmd.Dir, cmd.Stdout, cmd.Stderr = dir, out, out
	if env != nil {
		cmd.Env = append(os.Environ(), env...)
	}
	if err := cmd.Start(); err != nil {
		out.Close()
		return nil, fmt.Errorf("start %s: %w", argv[0], err)
	}
	c := &child{done: make(chan struct{}), log: logPath}
	go func() { cmd.Wait(); out.Close(); close(c.done) }()
	c.id, err = benchkit.IdentityOfPID(cmd.Process.Pid)
	if err != nil {
		cmd.Process.Kill()
		<-c.done
		return nil, fmt.Errorf("%s exited at once (see %s): %w", argv[0], logPath, err)
	}
	return c, nil
}

// stop sends SIGTERM, waits up to grace, then SIGKILLs; it reaps the child.
func (c *child) stop(grace time.Duration) error {
	select {
	case <-c.done:
		return nil
	default:
	}
	err := benchkit.StopIdentity(c.id, grace)
	select {
	case <-c.done:
	case <-time.After(5 * time.Second):
		return fmt.Errorf("pid %d not reaped 5 s after it was stopped", c.id.PID)
	}
	return err
}

// procID is a process's proven identity.
type procID = proc.Identity
