// Command agent-restart measures how fast the agent alone brings a service
// back:
//
//   - kill: SIGKILL the service; time until its /health answers 200 again
//     from a new instance. The agent spawned the service, so its exit
//     triggers a cycle at once (the fast path) and confirm is skipped.
//     Aim: < 40 ms for a service that starts in a few ms.
//
//   - hang: make /health hang (/control/hang); time until a new instance
//     answers, at interval 1s, probe timeout 2s, confirm 0s. Aim: < 2.7 s.
//
//     go run ./bench/agent-restart [-trials 5] [-scenario kill,hang] [-shape direct,shim,wrapper]
//
// -shape puts testsvc behind what real services are behind: "shim" is a
// pyenv-like script that does some work (a subshell) and then execs the
// server (same PID); "wrapper" is a script that runs the server and stays
// its parent (a tree of two). The kill always hits the server, found by
// its /pid, whatever the leader is.
//
// Each figure is split using the cycle's own records (run_trace row, pid
// file): failure -> the cycle began -> the new
// instance was spawned -> the agent's probe saw it healthy. The hangs are
// caused at evenly spaced moments of the interval, so the figure covers every
// phase.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"svcctl/bench/internal/benchkit"
	"svcctl/runtrace"
	"svcctl/state"
)

func main() {
	c := benchkit.CommonFlags()
	scenarios := flag.String("scenario", "kill,hang", "comma-separated: kill, hang")
	shapes := flag.String("shape", "direct", "comma-separated: direct, shim, wrapper")
	benchkit.Main("bench/agent-restart", c, func(ctx context.Context, k *benchkit.Kit) error {
		return run(ctx, k, strings.Split(*scenarios, ","), strings.Split(*shapes, ","))
	})
}

// shapeScripts are the launchers of -shape (the service under test; svc-ctl
// itself never runs a shell).
var shapeScripts = map[string]string{
	"direct":  "",
	"shim":    "#!/bin/sh\n# pyenv-like: look around, then exec the real program\nprog=$(basename \"$1\")\n[ -x \"$1\" ] || exit 127\nexport SHIM_PROG=\"$prog\"\nexec \"$@\"\n",
	"wrapper": "#!/bin/sh\n\"$@\"\necho wrapper: server ended with $?\n",
}

// launcher writes the shape's script and returns the argv to put in front
// of testsvc.
func launcher(k *benchkit.Kit, shape string) ([]string, error) {
	body, ok := shapeScripts[shape]
	if !ok {
		return nil, fmt.Errorf("-shape %q: want direct, shim or wrapper", shape)
	}
	if body == "" {
		return nil, nil
	}
	dir, err := k.SubDir("shape-" + shape)
	if err != nil {
		return nil, err
	}
	p := filepath.Join(dir, shape)
	if err := os.WriteFile(p, []byte(body), 0o700); err != nil {
		return nil, err
	}
	return []string{p}, nil
}

// scenario is one way of breaking the service.
type scenario struct {
	name, aim string
	svc       benchkit.Service
	// phase: break at evenly spaced moments within this long after the
	// last cycle, so the failures cover the whole interval rather than
	// falling just after a cycle.
	phase time.Duration
	// breakIt breaks the running instance and returns when the clock starts.
	breakIt func(ctx context.Context, addr string, old int) (time.Time, error)
}

var scenarios = map[string]scenario{
	"kill": {
		name: "SIGKILL -> /health 200 from a new instance (agent fast path)", aim: "< 40 ms",
		svc:     benchkit.Service{Name: "web", Interval: "1m", Timeout: "2s", Confirm: "1s"},
		breakIt: kill,
	},
	"hang": {
		name: "/health hangs -> a new instance answers (interval 1s, timeout 2s, confirm 0s)", aim: "< 2700 ms",
		svc:     benchkit.Service{Name: "web", Interval: "1s", Timeout: "2s", Confirm: "0s"},
		phase:   time.Second,
		breakIt: hang,
	},
}

func run(ctx context.Context, k *benchkit.Kit, names, shapes []string) error {
	fmt.Println(benchkit.Machine())
	bins, err := k.Build(ctx)
	if err != nil {
		return err
	}
	base, err := benchkit.ServiceStarts(ctx, bins.TestSvc, k.Common.Trials)
	if err != nil {
		return err
	}
	benchkit.Figure("testsvc alone: fork to /health 200", base, "ms", 1, "")
	for _, shape := range shapes {
		shape = strings.TrimSpace(shape)
		argv, err := launcher(k, shape)
		if err != nil {
			return err
		}
		for _, n := range names {
			sc, ok := scenarios[strings.TrimSpace(n)]
			if !ok {
				return fmt.Errorf("-scenario %q: want kill or hang", n)
			}
			sc.svc.Launcher = argv
			sc.name = "[" + shape + "] " + sc.name
			if err := measure(ctx, k, bins, sc); err != nil {
				return fmt.Errorf("%s %s: %w", shape, n, err)
			}
		}
	}
	benchkit.PrintLoad()
	return nil
}

func measure(ctx context.Context, k *benchkit.Kit, bins benchkit.Binaries, sc scenario) error {
	addrs, err := benchkit.FreeAddrs(1)
	if err != nil {
		return err
	}
	svc := sc.svc
	svc.Addr = addrs[0]
	s, err := k.WriteConfig("agent-restart", bins.TestSvc, nil, []benchkit.Service{svc}, nil)
	if err != nil {
		return err
	}
	a, err := k.StartAgent(bins.SvcCtl, s, 100*time.Millisecond)
	if err != nil {
		return err
	}
	defer a.Stop(30 * time.Second)
	if _, err := settled(ctx, a, svc, time.Time{}); err != nil {
		return err
	}
	pid, err := benchkit.PIDOf(ctx, svc.Addr) // the server, whatever leads its tree
	if err != nil {
		return err
	}
	var totals, detect, toSpawn, healthy []float64
	for i := range k.Common.Trials {
		if err := phase(ctx, sc.phase, i, k.Common.Trials); err != nil {
			return err
		}
		t0, err := sc.breakIt(ctx, svc.Addr, pid)
		if err != nil {
			return err
		}
		newPID, at, err := benchkit.WaitNewInstance(ctx, svc.Addr, pid, 30*time.Second)
		if err != nil {
			return fmt.Errorf("%w (agent stderr: %s)", err, a.Stderr())
		}
		totals = append(totals, benchkit.Ms(at.Sub(t0)))
		run, err := settled(ctx, a, svc, t0)
		if err != nil {
			return err
		}
		id, err := benchkit.ServiceIdentity(s.State, svc.Name)
		if err != nil {
			return err
		}
		detect = append(detect, benchkit.Ms(run.row.StartedAt.Sub(t0)))
		toSpawn = append(toSpawn, benchkit.Ms(id.StartedAt.Sub(run.row.StartedAt)))
		healthy = append(healthy, float64(run.detail.HealthyAfterMS))
		pid = newPID
	}
	if err := countCycles(ctx, s, svc.Name); err != nil {
		return err
	}
	benchkit.Figure(sc.name, benchkit.Summarize(totals), "ms", 1, sc.aim)
	benchkit.Figure("  failure -> the agent's cycle began", benchkit.Summarize(detect), "ms", 1, "")
	benchkit.Figure("  cycle began -> new instance spawned", benchkit.Summarize(toSpawn), "ms", 1, "")
	benchkit.Figure("  spawn -> healthy, as the agent's probe saw it", benchkit.Summarize(healthy), "ms", 0, "")
	return nil
}

// phase waits until trial i of n falls at its own evenly spaced moment of
// the interval d after the last cycle, (i+0.5)/n of the way: with few
// trials this samples every phase, where random moments could cluster.
func phase(ctx context.Context, d time.Duration, i, n int) error {
	if d <= 0 {
		return nil
	}
	t := time.NewTimer(time.Duration((float64(i) + 0.5) / float64(n) * float64(d)))
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// kill SIGKILLs the instance (not waiting for it to be gone: noticing that
// is the agent's job).
func kill(ctx context.Context, addr string, old int) (time.Time, error) {
	id, err := benchkit.IdentityOfPID(old)
	if err != nil {
		return time.Time{}, err
	}
	t0 := time.Now()
	signalled, err := benchkit.SignalKill(id)
	if err == nil && !signalled {
		err = fmt.Errorf("pid %d was gone before the kill", old)
	}
	return t0, err
}

// hang makes /health stop answering; the clock starts when the service
// confirmed it.
func hang(ctx context.Context, addr string, old int) (time.Time, error) {
	if err := benchkit.Control(ctx, addr, "hang"); err != nil {
		return time.Time{}, err
	}
	return time.Now(), nil
}

// startedRun is the run row of the cycle that started an instance.
type startedRun struct {
	row    runtrace.Run
	detail struct {
		PID            int   `json:"pid"`
		HealthyAfterMS int64 `json:"healthy_after_ms"`
	}
}

// settled waits until run_trace holds a finished ok/started cycle begun
// after since (any, when since is zero) and the service answers, so the next
// trial starts with the agent's exit watch armed. It
// reads run_trace, not watchdog.last.json: another cycle may follow at once
// and overwrite the latter (see the doc: the agent runs an "event" cycle for
// the instance it stopped itself).
func settled(ctx context.Context, a *benchkit.Agent, svc benchkit.Service, since time.Time) (startedRun, error) {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	var got startedRun
	var st *runtrace.Store
	defer func() {
		if st != nil {
			st.Close()
		}
	}()
	err := benchkit.PollUntil(ctx, 5*time.Millisecond, "the agent's cycle to finish as started", func() bool {
		if st == nil {
			var err error
			if st, err = runtrace.Open(state.Paths{State: a.Setup.State}.DB(), runtrace.Options{ReadOnly: true, Logger: quiet}); err != nil {
				st = nil
				return false
			}
		}
		runs, err := st.Runs(ctx, runtrace.Filter{JobID: runtrace.WatchdogID(svc.Name), Outcome: runtrace.OutcomeOK, Limit: 20})
		if err != nil {
			return false
		}
		for _, r := range runs {
			if r.Reason != runtrace.ReasonStarted {
				continue
			}
			got = startedRun{row: r}
			// The ledger keeps milliseconds: a cycle begun within the
			// millisecond of since reads as before it unless since is cut
			// to the same precision.
			if json.Unmarshal(r.Detail, &got.detail) != nil || r.StartedAt.Before(since.Truncate(time.Millisecond)) {
				continue
			}
			return benchkit.Healthy(ctx, svc.Addr, time.Second)
		}
		return false
	})
	if err != nil && a.Exited() {
		err = fmt.Errorf("%w: the agent exited: %s", err, a.Stderr())
	}
	return got, err
}

// countCycles prints the service's cycles by trigger and verdict: a restart
// should cost one cycle; any other is work the agent did on top.
func countCycles(ctx context.Context, s benchkit.Setup, name string) error {
	st, err := runtrace.Open(state.Paths{State: s.State}.DB(), runtrace.Options{ReadOnly: true, Logger: quiet})
	if err != nil {
		return err
	}
	defer st.Close()
	runs, err := st.Runs(ctx, runtrace.Filter{JobID: runtrace.WatchdogID(name)})
	if err != nil {
		return err
	}
	n := map[string]int{}
	var keys []string
	for _, r := range runs {
		key := string(r.Trigger) + " " + r.Verdict()
		if n[key] == 0 {
			keys = append(keys, key)
		}
		n[key]++
	}
	slices.Sort(keys)
	fmt.Print("cycles recorded:")
	for _, key := range keys {
		fmt.Printf(" %s ×%d;", key, n[key])
	}
	fmt.Println()
	return nil
}

var quiet = slog.New(slog.DiscardHandler)
