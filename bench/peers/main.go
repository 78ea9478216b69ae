// Command peers runs the same scenarios against monit, supervisord, PM2 and
// svc-ctl, in one run on one machine, and writes the table to
// docs/benchmarks.md with the date, the machine, the commit and the load:
//
//   - idle: each supervisor runs one healthy testsvc (monit and svc-ctl:
//     a 1 s cycle with an HTTP check of /health, timeout 2 s; supervisord
//     and PM2 have no health check). After -settle, its CPU time over -idle
//     (60 s) is read as deltas of /proc/PID/stat, and its VmRSS at the end.
//     Only the supervisor's own processes count, never the service.
//
//   - kill: SIGKILL the service; the time until /health answers 200 from a
//     new instance.
//
//   - hang: make /health hang (testsvc /control/hang); the time until a new
//     instance answers. A peer that has not replaced the hung instance
//     within -hang-window is recorded as "not replaced" for that trial, and
//     the bench kills the hung instance itself so the next trial starts
//     healthy. supervisord and PM2 have no health check: they never
//     replace a hung service, and the table says so from these trials.
//
//   - steady: the floor program (bench/memfloor) and every peer, each with
//     one healthy service, all at once for -steady-window (10 minutes):
//     RssAnon, RssFile, RssShmem and PSS at steady state (the median of the
//     last minute's samples), CPU from the threads' schedstat over the
//     window, and each peer's ratios to the floor.
//
//     go run ./bench/peers [-quick] [-trials 5] [-peers monit,supervisord,pm2,svc-ctl]
//     [-scenario idle,kill,hang] [-idle 60s] [-doc docs/benchmarks.md] [-no-install]
//
// Each figure is the median and range of -trials trials (5). Idle trials
// take turns between the peers (trial 1 of each, then trial 2 of each, ...)
// so that a change in the machine's load falls on all of them; each idle
// trial is a fresh supervisor. -quick is for trying the program: 2 trials,
// 10 s idle windows, a 6 s hang window, and docs/benchmarks.md is left alone
// unless -doc is given.
//
// Missing peers are installed first: monit and supervisor from Debian's
// packages (apt-get, as root), PM2 from npm (npm install -g pm2@7).
// -no-install fails instead. A system daemon that a package's install starts
// is stopped again by its PID.
//
// Everything listens and probes on 127.0.0.1 only. Every process the program
// starts (the supervisors, their services, PM2's daemon) is stopped by its
// PID, after its identity is proven, also on an error or Ctrl-C. Needs
// Linux: the figures come from /proc.
package main

import (
	"context"
	"flag"
	"fmt"
	"runtime"
	"strings"
	"time"

	"svcctl/bench/internal/benchkit"
)

// options are the flags.
type options struct {
	quick                      bool
	peers, scenarios           []string
	idle, settle, hangWindow   time.Duration
	steadyWindow               time.Duration
	doc                        string
	docSet, noInstall, noWrite bool
}

func main() {
	c := benchkit.CommonFlags()
	var o options
	peers := flag.String("peers", "monit,supervisord,pm2,svc-ctl", "comma-separated: monit, supervisord, pm2, svc-ctl")
	scen := flag.String("scenario", "idle,kill,hang", "comma-separated: idle, kill, hang, steady")
	flag.DurationVar(&o.steadyWindow, "steady-window", 10*time.Minute, "steady: how long every peer and the floor run side by side")
	flag.BoolVar(&o.quick, "quick", false, "a quick try: 2 trials, 10s idle windows, 6s hang window, no doc unless -doc")
	flag.DurationVar(&o.idle, "idle", 60*time.Second, "idle CPU window (RSS is read at its end)")
	flag.DurationVar(&o.settle, "settle", 5*time.Second, "wait after the service first answers before an idle window")
	flag.DurationVar(&o.hangWindow, "hang-window", 10*time.Second, "how long a peer gets to replace a hung instance")
	flag.StringVar(&o.doc, "doc", "", "write the table into this file between the bench/peers markers (default: the module's docs/benchmarks.md; none with -quick)")
	flag.BoolVar(&o.noWrite, "no-doc", false, "print the table only")
	flag.BoolVar(&o.noInstall, "no-install", false, "fail on a missing peer instead of installing it")
	benchkit.Main("bench/peers", c, func(ctx context.Context, k *benchkit.Kit) error {
		set := map[string]bool{}
		flag.Visit(func(f *flag.Flag) { set[f.Name] = true })
		if o.quick {
			if !set["trials"] {
				c.Trials = 2
			}
			if !set["idle"] {
				o.idle = 10 * time.Second
			}
			if !set["settle"] {
				o.settle = 3 * time.Second
			}
			if !set["hang-window"] {
				o.hangWindow = 6 * time.Second
			}
			if !set["steady-window"] {
				o.steadyWindow = time.Minute
			}
		}
		o.docSet = set["doc"]
		o.peers, o.scenarios = split(*peers), split(*scen)
		return run(ctx, k, o)
	})
}

func split(s string) []string {
	var out []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}

func run(ctx context.Context, k *benchkit.Kit, o options) error {
	if runtime.GOOS != "linux" {
		return fmt.Errorf("bench/peers needs Linux: CPU and memory figures come from /proc, monit and supervisor from Debian's packages")
	}
	peers, err := choose(o.peers)
	if err != nil {
		return err
	}
	scen, err := scenarios(o.scenarios)
	if err != nil {
		return err
	}
	if err := adoptOrphans(ctx); err != nil {
		return err
	}
	fmt.Println(benchkit.Machine())
	load := startLoadSampler(ctx, 5*time.Second)
	rec := &record{started: time.Now().UTC(), host: benchkit.Host(), commit: benchkit.Commit(), loadStart: benchkit.LoadAvg(), opts: o, trials: k.Common.Trials}
	e, err := newEnv(ctx, k, !o.noInstall)
	if err != nil {
		return err
	}
	for _, p := range peers {
		v, err := p.prepare(ctx, e)
		if err != nil {
			return fmt.Errorf("%s: %w", p.name(), err)
		}
		rec.add(p, v)
		fmt.Printf("%s: %s; %s\n", p.name(), v, p.settings())
	}
	base, err := benchkit.ServiceStarts(ctx, e.bins.TestSvc, k.Common.Trials)
	if err != nil {
		return err
	}
	rec.baseline = base
	benchkit.Figure("testsvc alone: fork to /health 200", base, "ms", 1, "")
	if err := measure(ctx, e, o, scen, peers, rec); err != nil {
		return err
	}
	rec.finished, rec.loadEnd, rec.load = time.Now().UTC(), benchkit.LoadAvg(), load()
	md := rec.markdown()
	fmt.Println()
	fmt.Print(md)
	return writeDoc(ctx, o, md)
}

// measure runs the scenarios: idle trials take turns between the peers;
// kill and hang run peer by peer on one supervisor each.
func measure(ctx context.Context, e *env, o options, scen map[string]bool, peers []peer, rec *record) error {
	if scen["steady"] {
		st, err := steadyRun(ctx, e, o, peers)
		if err != nil {
			return fmt.Errorf("steady: %w", err)
		}
		rec.steady = st
		fmt.Print(benchkit.SteadyTable(st, o.steadyWindow))
	}
	if scen["idle"] {
		for i := range e.k.Common.Trials {
			for _, p := range peers {
				f, err := idleTrial(ctx, e, p, o)
				if err != nil {
					return fmt.Errorf("%s: idle trial %d: %w", p.name(), i+1, err)
				}
				rec.of(p).idle = append(rec.of(p).idle, f)
				fmt.Printf("%s idle trial %d: RSS %.1f MiB, CPU %.0f ms per 60 s\n", p.name(), i+1, f.rssMiB, f.cpuMsPer60s)
			}
		}
	}
	for _, p := range peers {
		if scen["kill"] {
			xs, err := killTrials(ctx, e, p)
			if err != nil {
				return fmt.Errorf("%s: kill: %w", p.name(), err)
			}
			rec.of(p).kill = xs
			benchkit.Figure(p.name()+": SIGKILL -> /health 200 from a new instance", benchkit.Summarize(xs), "ms", 1, "")
		}
		if scen["hang"] {
			h, err := hangTrials(ctx, e, p, o)
			if err != nil {
				return fmt.Errorf("%s: hang: %w", p.name(), err)
			}
			rec.of(p).hang = h
			fmt.Printf("%s: /health hangs -> a new instance answers: %s\n", p.name(), h.text(o.hangWindow))
		}
	}
	return nil
}

func scenarios(names []string) (map[string]bool, error) {
	out := map[string]bool{}
	for _, n := range names {
		switch n {
		case "idle", "kill", "hang", "steady":
			out[n] = true
		default:
			return nil, fmt.Errorf("-scenario %q: want idle, kill, hang or steady", n)
		}
	}
	return out, nil
}
