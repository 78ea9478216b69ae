//go:build linux

// Command ownership measures what owning a service's whole tree costs and
// gives, in each ownership mode (docs/architecture.md, "What an instance
// is"):
//
//   - kill: SIGKILL the process that serves a daemon (a launcher that starts
//     it with setsid and exits at once) and time until /health answers 200
//     from a new process, under the agent; beside it the same for a service
//     the agent spawns directly (a foreground server). Aim: the daemon
//     within 10 ms of the direct one.
//
//   - stop: `svc-ctl stop` (the supervisor's Stop, in this process) of a
//     daemon with 5 setsid workers that obey SIGTERM. Aim: < 100 ms.
//
//   - idle (-trials pairs, interleaved): the CPU an agent spends over -idle (default 10 minutes) with one
//     service of 6 processes (a server and 5 setsid workers) at a 1 s
//     interval, as the sum of /proc/PID/task/*/schedstat (every thread: the
//     Go runtime's work runs on other threads than the main one); with
//     -baseline, the same with that svc-ctl binary (one without member
//     tracking), and the difference per minute. Aim: < 5 ms per minute.
//
//     go run ./bench/ownership [-scenario kill,stop,idle] [-modes cgroup,subreaper,plain] [-trials 5]
//     [-idle 10m] [-baseline /path/to/old/svc-ctl]
//
// kill and stop run the agent as a child process of this program (in the
// mode asked: "plain" is an agent that is no subreaper, as on macOS;
// "cgroup" needs root and cgroup v2, and gets a cgroup this program makes).
// idle runs `svc-ctl agent` binaries, as installed.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"svcctl/agent"
	"svcctl/bench/internal/benchkit"
	"svcctl/config"
	"svcctl/proc"
	"svcctl/runtrace"
	"svcctl/state"
	"svcctl/watchdog"
)

const (
	envAgent = "BENCH_OWNERSHIP_AGENT"      // config path: be the agent
	envMode  = "BENCH_OWNERSHIP_AGENT_MODE" // subreaper | plain | cgroup:DIR
)

func main() {
	if path := os.Getenv(envAgent); path != "" {
		os.Exit(runAgent(path, os.Getenv(envMode)))
	}
	c := benchkit.CommonFlags()
	scenarios := flag.String("scenario", "kill,stop,idle", "comma-separated: kill, stop, idle")
	modes := flag.String("modes", "cgroup,subreaper,plain", "comma-separated ownership modes for kill and stop")
	idle := flag.Duration("idle", 10*time.Minute, "how long the idle figure measures")
	baseline := flag.String("baseline", "", "idle: an svc-ctl binary to compare with (one without member tracking)")
	benchkit.Main("bench/ownership", c, func(ctx context.Context, k *benchkit.Kit) error {
		bins, err := k.Build(ctx)
		if err != nil {
			return err
		}
		fmt.Println(benchkit.Host())
		fmt.Println(benchkit.Machine())
		for _, s := range strings.Split(*scenarios, ",") {
			switch s {
			case "kill", "stop":
				for _, m := range strings.Split(*modes, ",") {
					if err := runMode(ctx, k, bins, s, m); err != nil {
						return fmt.Errorf("%s in %s mode: %w", s, m, err)
					}
				}
			case "idle":
				if err := idleCPU(ctx, k, bins, *idle, *baseline); err != nil {
					return fmt.Errorf("idle: %w", err)
				}
			default:
				return fmt.Errorf("-scenario %q: want kill, stop or idle", s)
			}
		}
		benchkit.PrintLoad()
		return nil
	})
}

// runAgent is the agent process of kill and stop.
func runAgent(path, mode string) int {
	cfg, err := config.Load(path)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	o := agent.Options{Config: cfg, Version: "bench", MaxStagger: 20 * time.Millisecond, Cgroup: "-", LogWriter: io.Discard}
	switch {
	case mode == "plain":
		o.NoSubreaper = true
	case strings.HasPrefix(mode, "cgroup:"):
		o.Cgroup = strings.TrimPrefix(mode, "cgroup:")
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM)
	defer stop()
	if err := agent.Run(ctx, o); err != nil {
		fmt.Fprintln(os.Stderr, "agent:", err)
		return 1
	}
	return 0
}

// env is one service under one agent process of this program.
type env struct {
	addr  string
	cfg   *config.Config
	agent *exec.Cmd
}

// start writes a config for one service (command after testsvc's path),
// starts the agent on it in mode, and waits for the service to answer.
func start(ctx context.Context, k *benchkit.Kit, bins benchkit.Binaries, mode, name string, args ...string) (*env, error) {
	addrs, err := benchkit.FreeAddrs(1)
	if err != nil {
		return nil, err
	}
	e := &env{addr: addrs[0]}
	argv := []string{bins.TestSvc}
	for _, a := range args {
		argv = append(argv, strings.ReplaceAll(a, "ADDR", e.addr))
	}
	dir, err := k.SubDir(name + "-" + mode)
	if err != nil {
		return nil, err
	}
	q := make([]string, len(argv))
	for i, a := range argv {
		q[i] = strconv.Quote(a)
	}
	body := fmt.Sprintf("[agent]\nstate_dir = %q\n\n[[service]]\nname = \"web\"\ncommand = [%s]\ninterval = \"10s\"\nstart_timeout = \"8s\"\nstop_timeout = \"5s\"\n"+
		"[service.health]\nhttp = \"http://%s/health\"\ntimeout = \"1s\"\nconfirm = \"0s\"\n[service.restart]\nloop_restarts = 0\n",
		filepath.Join(dir, "state"), strings.Join(q, ", "), e.addr)
	path := filepath.Join(dir, "svc-ctl.toml")
	if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
		return nil, err
	}
	if e.cfg, err = config.Load(path); err != nil {
		return nil, err
	}
	k.Defer(func() { benchkit.KillRecorded(e.cfg.Agent.StateDir) })
	agentMode := mode
	if mode == "cgroup" {
		parent, err := cgroupParent(k)
		if err != nil {
			return nil, err
		}
		agentMode = "cgroup:" + parent
	}
	self, _ := os.Executable()
	e.agent = exec.Command(self)
	e.agent.Env = append(os.Environ(), envAgent+"="+path, envMode+"="+agentMode)
	e.agent.Stderr = os.Stderr
	if err := e.agent.Start(); err != nil {
		return nil, err
	}
	k.Defer(func() { e.agent.Process.Signal(syscall.SIGTERM); e.agent.Wait() })
	if _, err := benchkit.WaitHealthy(ctx, e.addr, 5*time.Millisecond, time.Second); err != nil {
		return nil, err
	}
	return e, nil
}

// cgroupParent makes a cgroup v2 directory for the agent's instances, as
// systemd delegates one.
func cgroupParent(k *benchkit.Kit) (string, error) {
	mnt, ok := proc.Cgroup2Mount()
	if !ok {
		return "", fmt.Errorf("no cgroup v2 mounted")
	}
	dir := filepath.Join(mnt, fmt.Sprintf("svcctl-bench-%d-%d", os.Getpid(), time.Now().UnixNano()))
	if err := os.Mkdir(dir, 0o755); err != nil {
		return "", fmt.Errorf("create a cgroup (root and cgroup v2 needed): %w", err)
	}
	k.Defer(func() {
		os.WriteFile(filepath.Join(dir, "cgroup.kill"), []byte("1"), 0)
		kids, _ := os.ReadDir(dir)
		for range 100 {
			for _, c := range kids {
				syscall.Rmdir(filepath.Join(dir, c.Name()))
			}
			if syscall.Rmdir(dir) == nil {
				return
			}
			time.Sleep(50 * time.Millisecond)
		}
	})
	return dir, nil
}

func runMode(ctx context.Context, k *benchkit.Kit, bins benchkit.Binaries, scenario, mode string) error {
	if scenario == "kill" {
		direct, err := killFigure(ctx, k, bins, mode, "direct", "--addr", "ADDR")
		if err != nil {
			return err
		}
		daemon, err := killFigure(ctx, k, bins, mode, "daemon", "--launch", "at-once", "--", "--addr", "ADDR")
		if err != nil {
			return err
		}
		benchkit.Figure(fmt.Sprintf("%s: SIGKILL of a directly spawned server -> 200", mode), direct, "ms", 1, "")
		benchkit.Figure(fmt.Sprintf("%s: SIGKILL of a setsid daemon's server -> 200", mode), daemon, "ms", 1,
			fmt.Sprintf("<= direct + 10 ms (%.1f): %s", direct.Median+10, met(daemon.Median <= direct.Median+10)))
		return nil
	}
	return stopFigure(ctx, k, bins, mode)
}

func met(ok bool) string {
	if ok {
		return "met"
	}
	return "missed"
}

// killFigure: -trials kills of the serving process, each timed to the new
// instance's first 200.
func killFigure(ctx context.Context, k *benchkit.Kit, bins benchkit.Binaries, mode, shape string, args ...string) (benchkit.Summary, error) {
	e, err := start(ctx, k, bins, mode, "kill-"+shape, args...)
	if err != nil {
		return benchkit.Summary{}, err
	}
	defer func() { e.agent.Process.Signal(syscall.SIGTERM); e.agent.Wait() }()
	var xs []float64
	for range k.Common.Trials {
		time.Sleep(300 * time.Millisecond) // the start's verdict written, the watch in place
		pid, err := benchkit.PIDOf(ctx, e.addr)
		if err != nil {
			return benchkit.Summary{}, err
		}
		at := time.Now()
		syscall.Kill(pid, syscall.SIGKILL)
		_, healthy, err := benchkit.WaitNewInstance(ctx, e.addr, pid, 20*time.Second)
		if err != nil {
			return benchkit.Summary{}, err
		}
		xs = append(xs, benchkit.Ms(healthy.Sub(at)))
	}
	return benchkit.Summarize(xs), nil
}

// stopFigure: -trials stops of a daemon with 5 setsid workers (each timed
// as the supervisor's Stop, in this process, as `svc-ctl stop` runs it),
// each followed by a start by hand.
func stopFigure(ctx context.Context, k *benchkit.Kit, bins benchkit.Binaries, mode string) error {
	e, err := start(ctx, k, bins, mode, "stop", "--launch", "at-once", "--", "--addr", "ADDR", "--setsid-workers", "5")
	if err != nil {
		return err
	}
	defer func() { e.agent.Process.Signal(syscall.SIGTERM); e.agent.Wait() }()
	store, err := runtrace.Open(state.PathsOf(e.cfg).DB(), runtrace.Options{})
	if err != nil {
		return err
	}
	defer store.Close()
	sup := watchdog.NewSupervisor(e.cfg, store, slog.New(slog.DiscardHandler))
	var xs []float64
	members := 0
	for range k.Common.Trials {
		if err := benchkit.PollUntil(ctx, 10*time.Millisecond, "6 members", func() bool {
			inst, err := proc.ReadInstance(state.PathsOf(e.cfg).Pid("web"))
			if err != nil {
				return false
			}
			t, _ := proc.Members(inst)
			return t.Len() == 6
		}); err != nil {
			return err
		}
		at := time.Now()
		rep, err := sup.Stop(ctx, "web")
		took := time.Since(at)
		if err != nil || !rep.Stopped() {
			return fmt.Errorf("stop: %+v, %v", rep, err)
		}
		members = len(rep.Members)
		xs = append(xs, benchkit.Ms(took))
		if r, err := sup.Ensure(ctx, "web", watchdog.Request{Trigger: runtrace.TriggerManual, Manual: true}); err != nil || r.Outcome != runtrace.OutcomeOK {
			return fmt.Errorf("start again: %s %v", r.Message, err)
		}
	}
	benchkit.Figure(fmt.Sprintf("%s: stop of a daemon with 5 setsid workers (%d processes)", mode, members), benchkit.Summarize(xs), "ms", 1, "< 100 ms")
	return nil
}

// idleCPU: the agent's CPU over d with one service of 6 processes at 1 s.
func idleCPU(ctx context.Context, k *benchkit.Kit, bins benchkit.Binaries, d time.Duration, baseline string) error {
	run := func(label, svcctl string, args ...string) (float64, error) {
		addrs, err := benchkit.FreeAddrs(1)
		if err != nil {
			return 0, err
		}
		extra := append([]string{}, args...)
		s, err := k.WriteConfig("idle-"+label, bins.TestSvc, []string{`heartbeat = "30s"`},
			[]benchkit.Service{{Name: "web", Addr: addrs[0], Interval: "1s", Extra: extra}}, nil)
		if err != nil {
			return 0, err
		}
		a, err := k.StartAgent(svcctl, s, 10*time.Millisecond)
		if err != nil {
			return 0, err
		}
		defer a.Stop(10 * time.Second)
		if _, err := benchkit.WaitHealthy(ctx, addrs[0], 10*time.Millisecond, time.Second); err != nil {
			return 0, err
		}
		time.Sleep(10 * time.Second) // the start and its first cycles over
		before, err := schedstat(a.PID)
		if err != nil {
			return 0, err
		}
		select {
		case <-ctx.Done():
			return 0, ctx.Err()
		case <-time.After(d):
		}
		after, err := schedstat(a.PID)
		if err != nil {
			return 0, err
		}
		perMin := benchkit.Ms(after-before) / d.Minutes()
		fmt.Printf("idle %-40s %8.1f ms CPU over %s = %.2f ms per minute\n", label+":", benchkit.Ms(after-before), d, perMin)
		return perMin, nil
	}
	workers := []string{"--setsid-workers", "5"}
	var diffs []float64
	for i := range k.Common.Trials {
		now, err := run(fmt.Sprintf("#%d this svc-ctl, server + 5 setsid workers", i+1), bins.SvcCtl, workers...)
		if err != nil {
			return err
		}
		if baseline == "" {
			continue
		}
		// Interleaved, so that the host's own drift over the runs falls on
		// both sides.
		before, err := run(fmt.Sprintf("#%d baseline svc-ctl, same service", i+1), baseline, workers...)
		if err != nil {
			return err
		}
		diffs = append(diffs, now-before)
	}
	if len(diffs) > 0 {
		s := benchkit.Summarize(diffs)
		benchkit.Figure("idle: member tracking adds, per service (ms per minute)", s, "ms/min", 2, "< 5 ms/min: "+met(s.Median < 5))
	}
	return nil
}

// schedstat sums the time on CPU of every thread of pid
// (/proc/PID/task/*/schedstat, first field, ns).
func schedstat(pid int) (time.Duration, error) {
	tasks, err := os.ReadDir(fmt.Sprintf("/proc/%d/task", pid))
	if err != nil {
		return 0, err
	}
	var sum time.Duration
	for _, t := range tasks {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/task/%s/schedstat", pid, t.Name()))
		if err != nil {
			continue // the thread ended
		}
		f := strings.Fields(string(b))
		if len(f) == 0 {
			continue
		}
		n, err := strconv.ParseInt(f[0], 10, 64)
		if err == nil {
			sum += time.Duration(n)
		}
	}
	return sum, nil
}
