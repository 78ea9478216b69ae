// Command cli-restart measures how long `svc-ctl start NAME` takes to bring
// back a service that was just killed: SIGKILL the recorded instance, run the
// real CLI at once, and time from the kill until the command returns with the
// service healthy again. It also times the service's own start (testsvc
// alone), so svc-ctl's share can be read off.
//
//	go run ./bench/cli-restart [-trials 5] [-confirm 0s,1s]
//
// Aim: recovery bounded by the service's own start time plus under 100 ms
// of svc-ctl. A manual start takes the configured second look (confirm), so
// the figure is printed for each confirm value given.
package main

import (
	"context"
	"flag"
	"fmt"
	"strings"
	"time"

	"svcctl/bench/internal/benchkit"
)

func main() {
	c := benchkit.CommonFlags()
	confirms := flag.String("confirm", "0s,1s", "comma-separated health.confirm values to measure")
	benchkit.Main("bench/cli-restart", c, func(ctx context.Context, k *benchkit.Kit) error {
		return run(ctx, k, strings.Split(*confirms, ","))
	})
}

func run(ctx context.Context, k *benchkit.Kit, confirms []string) error {
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
	for _, confirm := range confirms {
		if err := measure(ctx, k, bins, strings.TrimSpace(confirm), base); err != nil {
			return err
		}
	}
	benchkit.PrintLoad()
	return nil
}

// trial is one kill-and-start.
type trial struct {
	total   time.Duration // SIGKILL sent -> CLI returned, service healthy
	cli     benchkit.CLIRun
	healthy time.Duration // svc-ctl's own "healthy after" for the new instance
}

func measure(ctx context.Context, k *benchkit.Kit, bins benchkit.Binaries, confirm string, base benchkit.Summary) error {
	addrs, err := benchkit.FreeAddrs(1)
	if err != nil {
		return err
	}
	svc := benchkit.Service{Name: "web", Addr: addrs[0], Interval: "10m", Timeout: "2s", Confirm: confirm}
	s, err := k.WriteConfig("cli-restart", bins.TestSvc, nil, []benchkit.Service{svc}, nil)
	if err != nil {
		return err
	}
	// The first start creates the ledger and the state; it is not measured.
	if _, err := start(ctx, bins.SvcCtl, s, svc); err != nil {
		return err
	}
	var totals, walls, cpus, own []float64
	for range k.Common.Trials {
		t, err := killAndStart(ctx, bins.SvcCtl, s, svc)
		if err != nil {
			return err
		}
		totals = append(totals, benchkit.Ms(t.total))
		walls = append(walls, benchkit.Ms(t.cli.Wall))
		cpus = append(cpus, benchkit.Ms(t.cli.CPU()))
		own = append(own, benchkit.Ms(t.healthy))
	}
	tot := benchkit.Summarize(totals)
	benchkit.Figure(fmt.Sprintf("confirm=%s: SIGKILL -> `start` returned, healthy", confirm), tot, "ms", 1,
		fmt.Sprintf("< %.1f ms (service start + 100 ms)", base.Median+100))
	benchkit.Figure(fmt.Sprintf("confirm=%s:   of which the `start` process (wall)", confirm), benchkit.Summarize(walls), "ms", 1, "")
	benchkit.Figure(fmt.Sprintf("confirm=%s:   `start` user+sys CPU", confirm), benchkit.Summarize(cpus), "ms", 1, "")
	benchkit.Figure(fmt.Sprintf("confirm=%s:   spawn -> healthy as svc-ctl saw it", confirm), benchkit.Summarize(own), "ms", 0, "")
	fmt.Printf("confirm=%s: svc-ctl's share (median recovery - median service start): %.1f ms\n", confirm, tot.Median-base.Median)
	return nil
}

// killAndStart SIGKILLs the recorded instance, then runs `svc-ctl start`.
// The clock starts before the kill; waiting for the old process to be gone
// (microseconds) is inside it, so the CLI never sees a dying instance answer.
func killAndStart(ctx context.Context, svcctl string, s benchkit.Setup, svc benchkit.Service) (trial, error) {
	id, err := benchkit.ServiceIdentity(s.State, svc.Name)
	if err != nil {
		return trial{}, err
	}
	t0 := time.Now()
	if err := benchkit.KillIdentity(id, 5*time.Second); err != nil {
		return trial{}, err
	}
	r, err := start(ctx, svcctl, s, svc)
	if err != nil {
		return trial{}, err
	}
	t := trial{total: time.Since(t0), cli: r}
	if !benchkit.Healthy(ctx, svc.Addr, time.Second) {
		return t, fmt.Errorf("`svc-ctl start` returned but %s is not healthy", svc.Addr)
	}
	pid, err := benchkit.PIDOf(ctx, svc.Addr)
	if err != nil || int32(pid) == id.PID {
		return t, fmt.Errorf("after the restart %s answers as pid %d (old pid %d): %v", svc.Addr, pid, id.PID, err)
	}
	// "web: started (pid 4242, healthy after 12ms)"
	t.healthy, _ = time.ParseDuration(strings.TrimSuffix(strings.TrimSpace(after(r.Stdout, "healthy after ")), ")"))
	return t, nil
}

// start runs `svc-ctl start NAME` and checks it printed started or
// already-running and exited 0.
func start(ctx context.Context, svcctl string, s benchkit.Setup, svc benchkit.Service) (benchkit.CLIRun, error) {
	r, err := benchkit.RunCLI(ctx, 30*time.Second, svcctl, "--config", s.Config, "start", svc.Name)
	if err != nil {
		return r, err
	}
	if r.Code != 0 || !strings.HasPrefix(r.Stdout, svc.Name+": started") {
		return r, fmt.Errorf("svc-ctl start %s: exit %d: %s%s", svc.Name, r.Code, r.Stdout, r.Stderr)
	}
	return r, nil
}

func after(s, marker string) string {
	_, rest, _ := strings.Cut(s, marker)
	rest, _, _ = strings.Cut(rest, "\n")
	return rest
}
