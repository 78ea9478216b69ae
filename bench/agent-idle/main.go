// Command agent-idle measures what a quiet agent costs, on a real `svc-ctl
// agent` process whose services are all healthy:
//
//   - rss:   resident memory (VmRSS, /proc/PID/status) after -idle (30 s)
//     supervising 1 and 10 services. Aim ≤ 10 MiB.
//
//   - cpu:   CPU time (utime+stime deltas of /proc/PID/stat) over -duration
//     (60 s) with one service at interval 1s and at 10s. Aims ≤ 200 ms and
//     ≤ 20 ms.
//
//   - jobs:  the same CPU figure with 50 jobs scheduled and none due in the
//     window (25 "@every 1h", 25 daily cron), no service.
//
//   - floor: the same with no service and no job: heartbeat, sleep
//     detector and housekeeping alone, to read the others against.
//
//   - notify: the floor, and 1 service at 10s, each with one [[notify]]
//     webhook channel configured and nothing to send (read against floor and
//     cpu: the aim is no change).
//
//   - fleet: 1 service at 10s, RSS after -idle and CPU over -duration,
//     without and with what a fleet adds: one otlp channel (its metrics
//     every 60 s) and the agent's own ping (every minute), both answered by
//     a loopback receiver in this process.
//
//     go run ./bench/agent-idle [-trials 5] [-scenario rss,cpu,jobs,floor] [-duration 60s] [-idle 30s]
//
// Every trial is a fresh agent with a fresh state dir; its services are
// stopped by PID at the end of the trial. /proc/PID/stat counts in 10 ms
// steps, so figures near 20 ms are coarse.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"runtime"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"svcctl/bench/internal/benchkit"
	"svcctl/runtrace"
	"svcctl/state"
)

type options struct {
	duration, idle, rssInterval time.Duration
	memProfile, cpuProfile      string
}

func main() {
	c := benchkit.CommonFlags()
	var o options
	scen := flag.String("scenario", "rss,cpu,jobs,floor", "comma-separated: rss, cpu, jobs, floor, notify")
	flag.DurationVar(&o.duration, "duration", 60*time.Second, "CPU measurement window")
	flag.DurationVar(&o.idle, "idle", 30*time.Second, "idle time before reading VmRSS")
	flag.DurationVar(&o.rssInterval, "rss-interval", 10*time.Second, "service interval in the rss scenario")
	flag.StringVar(&o.memProfile, "memprofile", "", "rss scenario: also run the agent in-process with 10 services for -idle and write its heap profile here")
	flag.StringVar(&o.cpuProfile, "cpuprofile", "", "cpu scenario: also run the agent in-process with 1 service at 1s for -duration and write its CPU profile here")
	benchkit.Main("bench/agent-idle", c, func(ctx context.Context, k *benchkit.Kit) error {
		if o.memProfile != "" {
			// The default rate (one sample per 512 KiB) says nothing about a
			// heap of a few MiB.
			runtime.MemProfileRate = 4096
		}
		return run(ctx, k, o, strings.Split(*scen, ","))
	})
}

func run(ctx context.Context, k *benchkit.Kit, o options, scenarios []string) error {
	fmt.Println(benchkit.Machine())
	bins, err := k.Build(ctx)
	if err != nil {
		return err
	}
	for _, sc := range scenarios {
		switch strings.TrimSpace(sc) {
		case "rss":
			err = rss(ctx, k, bins, o)
		case "cpu":
			err = cpu(ctx, k, bins, o)
		case "jobs":
			err = jobsCPU(ctx, k, bins, o)
		case "floor":
			err = floorCPU(ctx, k, bins, o)
		case "notify":
			err = notifyCPU(ctx, k, bins, o)
		case "fleet":
			err = fleet(ctx, k, bins, o)
		default:
			err = fmt.Errorf("-scenario %q: want rss, cpu, jobs, floor, notify or fleet", sc)
		}
		if err != nil {
			return fmt.Errorf("%s: %w", strings.TrimSpace(sc), err)
		}
	}
	benchkit.PrintLoad()
	return nil
}

// setup is what one trial's agent supervises.
type setup struct {
	services int
	interval string
	jobs     int
	notify   bool // one webhook channel, nothing to send
	// fleet: an otlp channel and [agent] ping to this URL (a receiver that
	// answers every request).
	fleet string
}

// running is one trial's agent with everything healthy.
type running struct {
	agent *benchkit.Agent
	s     benchkit.Setup
}

func (r *running) stop() {
	r.agent.Stop(30 * time.Second)
	benchkit.KillRecorded(r.s.State)
}

// start writes the config, starts the agent and waits until it has started
// every service and written the verdicts down.
func start(ctx context.Context, k *benchkit.Kit, bins benchkit.Binaries, su setup) (*running, error) {
	addrs, err := benchkit.FreeAddrs(su.services)
	if err != nil {
		return nil, err
	}
	svcs := make([]benchkit.Service, su.services)
	for i := range svcs {
		svcs[i] = benchkit.Service{Name: fmt.Sprintf("web%02d", i), Addr: addrs[i], Interval: su.interval, Timeout: "2s", Confirm: "1s"}
	}
	var extra []string
	if su.fleet != "" {
		extra = []string{fmt.Sprintf("ping = %q", su.fleet+"/ping/bench"), `ping_every = "1m"`}
	}
	s, err := k.WriteConfig("agent-idle", bins.TestSvc, extra, svcs, jobs(su.jobs, bins.TestSvc))
	if err != nil {
		return nil, err
	}
	if su.fleet != "" {
		if err := appendText(s.Config, fmt.Sprintf("\n[[notify]]\nname = \"otel\"\nkind = \"otlp\"\nurl = %q\n", su.fleet)); err != nil {
			return nil, err
		}
	}
	if su.notify {
		if err := appendChannel(s.Config); err != nil {
			return nil, err
		}
	}
	a, err := k.StartAgent(bins.SvcCtl, s, 100*time.Millisecond)
	if err != nil {
		return nil, err
	}
	r := &running{agent: a, s: s}
	if err := benchkit.WaitAllHealthy(ctx, addrs, 60*time.Second); err != nil {
		r.stop()
		return nil, fmt.Errorf("%w (agent stderr: %s)", err, a.Stderr())
	}
	if err := allStarted(ctx, s, svcs); err != nil {
		r.stop()
		return nil, err
	}
	if err := ready(ctx, s, su.jobs); err != nil {
		r.stop()
		return nil, fmt.Errorf("%w (agent stderr: %s)", err, a.Stderr())
	}
	return r, nil
}

// ready waits until the agent logged agent.running and every job is
// registered in the ledger: its start-up is over.
func ready(ctx context.Context, s benchkit.Setup, jobs int) error {
	ctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	p := state.Paths{State: s.State}
	err := benchkit.PollUntil(ctx, 20*time.Millisecond, "agent.running in agent.log", func() bool {
		b, err := os.ReadFile(p.AgentLog())
		return err == nil && strings.Contains(string(b), `"msg":"agent.running"`)
	})
	if err != nil || jobs == 0 {
		return err
	}
	st, err := runtrace.Open(p.DB(), runtrace.Options{ReadOnly: true, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		return err
	}
	defer st.Close()
	return benchkit.PollUntil(ctx, 20*time.Millisecond, "every job registered", func() bool {
		for i := range jobs {
			if _, ok, err := st.Registered(ctx, fmt.Sprintf("job:job%02d", i)); err != nil || !ok {
				return false
			}
		}
		return true
	})
}

// jobs returns n jobs none of which is due in the next hours: half every
// hour from registration, half daily at a UTC hour 12 h away.
func jobs(n int, testsvc string) []benchkit.Job {
	hour := (time.Now().UTC().Hour() + 12) % 24
	out := make([]benchkit.Job, n)
	for i := range out {
		sched := "@every 1h"
		if i%2 == 1 {
			sched = fmt.Sprintf("%d %d * * *", i%60, hour)
		}
		out[i] = benchkit.Job{Name: fmt.Sprintf("job%02d", i), Schedule: sched, Timezone: "UTC",
			Command: []string{testsvc, "--exit-now", "0"}}
	}
	return out
}

// allStarted waits until watchdog.last.json holds every service's
// ok/started: the first cycles are over and written down.
func allStarted(ctx context.Context, s benchkit.Setup, svcs []benchkit.Service) error {
	ctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	path := state.Paths{State: s.State}.WatchdogLast()
	return benchkit.PollUntil(ctx, 20*time.Millisecond, "every first cycle recorded", func() bool {
		lf, err := state.ReadLast(path)
		if err != nil {
			return false
		}
		for _, sv := range svcs {
			r := lf.Services[sv.Name]
			if r == nil || r.Outcome != runtrace.OutcomeOK {
				return false
			}
		}
		return true
	})
}

// sleepCtx waits d, or less if ctx ends: the measurement window itself.
func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

func rss(ctx context.Context, k *benchkit.Kit, bins benchkit.Binaries, o options) error {
	for _, n := range []int{1, 10} {
		var rss, anon, file, hwm []float64
		var last []benchkit.Mapping
		for range k.Common.Trials {
			r, err := start(ctx, k, bins, setup{services: n, interval: o.rssInterval.String()})
			if err != nil {
				return err
			}
			err = sleepCtx(ctx, o.idle)
			m, merr := benchkit.MemOf(r.agent.PID)
			last, _ = benchkit.MappingsOf(r.agent.PID)
			r.stop()
			if err := cmpErr(err, merr); err != nil {
				return err
			}
			rss, anon, file, hwm = append(rss, mib(m.RSS)), append(anon, mib(m.Anon)), append(file, mib(m.File)), append(hwm, mib(m.HWM))
		}
		what := fmt.Sprintf("VmRSS after %s idle, %d service(s) at %s", o.idle, n, o.rssInterval)
		benchkit.Figure(what, benchkit.Summarize(rss), "MiB", 1, "≤ 10 MiB")
		benchkit.Figure("  of which RssAnon (heap, stacks, runtime)", benchkit.Summarize(anon), "MiB", 1, "")
		benchkit.Figure("  of which RssFile (mapped pages of the svc-ctl binary and libc)", benchkit.Summarize(file), "MiB", 1, "")
		benchkit.Figure("  VmHWM (peak)", benchkit.Summarize(hwm), "MiB", 1, "")
		printMappings(last)
	}
	if o.memProfile != "" {
		return inProcess(ctx, k, bins, setup{services: 10, interval: o.rssInterval.String()}, o.idle, "", o.memProfile)
	}
	return nil
}

func cmpErr(errs ...error) error {
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}

func mib(b int64) float64 { return float64(b) / (1 << 20) }

// printMappings shows where the last trial's resident memory is, by mapping.
func printMappings(ms []benchkit.Mapping) {
	if len(ms) == 0 {
		return
	}
	byName := map[string]int64{}
	for _, m := range ms {
		byName[m.Name+" "+m.Perms] += m.RSS
	}
	keys := make([]string, 0, len(byName))
	for key := range byName {
		keys = append(keys, key)
	}
	slices.SortFunc(keys, func(a, b string) int { return int(byName[b] - byName[a]) })
	fmt.Print("  resident by mapping (last trial):")
	for i, key := range keys {
		if i == 6 || byName[key] < 64<<10 {
			break
		}
		fmt.Printf(" %s %.1f MiB;", key, mib(byName[key]))
	}
	fmt.Println()
}

// cpuWindow runs trials of setup su and prints the agent's CPU over the window.
func cpuWindow(ctx context.Context, k *benchkit.Kit, bins benchkit.Binaries, o options, su setup, what, aim string) error {
	var xs []float64
	for range k.Common.Trials {
		r, err := start(ctx, k, bins, su)
		if err != nil {
			return err
		}
		c0, err0 := benchkit.CPUOf(r.agent.PID)
		err = sleepCtx(ctx, o.duration)
		c1, err1 := benchkit.CPUOf(r.agent.PID)
		exited := r.agent.Exited()
		r.stop()
		if err := cmpErr(err0, err, err1); err != nil {
			return err
		}
		if exited {
			return fmt.Errorf("the agent exited during the window: %s", r.agent.Stderr())
		}
		xs = append(xs, benchkit.Ms(c1-c0))
	}
	benchkit.Figure(fmt.Sprintf("agent CPU over %s, %s", o.duration, what), benchkit.Summarize(xs), "ms", 0, aim)
	return nil
}

func cpu(ctx context.Context, k *benchkit.Kit, bins benchkit.Binaries, o options) error {
	if err := cpuWindow(ctx, k, bins, o, setup{services: 1, interval: "1s"}, "1 service at interval 1s", scaled(200, o)); err != nil {
		return err
	}
	if err := cpuWindow(ctx, k, bins, o, setup{services: 1, interval: "10s"}, "1 service at interval 10s", scaled(20, o)); err != nil {
		return err
	}
	if o.cpuProfile != "" {
		return inProcess(ctx, k, bins, setup{services: 1, interval: "1s"}, o.duration, o.cpuProfile, "")
	}
	return nil
}

func jobsCPU(ctx context.Context, k *benchkit.Kit, bins benchkit.Binaries, o options) error {
	return cpuWindow(ctx, k, bins, o, setup{jobs: 50}, "50 jobs (none due), no service", "")
}

func floorCPU(ctx context.Context, k *benchkit.Kit, bins benchkit.Binaries, o options) error {
	return cpuWindow(ctx, k, bins, o, setup{}, "no service, no job (the floor)", "")
}

func notifyCPU(ctx context.Context, k *benchkit.Kit, bins benchkit.Binaries, o options) error {
	if err := cpuWindow(ctx, k, bins, o, setup{notify: true}, "no service, no job, 1 notify channel (nothing to send)", "the floor"); err != nil {
		return err
	}
	return cpuWindow(ctx, k, bins, o, setup{services: 1, interval: "10s", notify: true},
		"1 service at interval 10s, 1 notify channel (nothing to send)", "as without the channel")
}

// appendChannel adds one webhook channel to the config. Nothing listens at
// its URL: a healthy agent has nothing to send.
func appendChannel(path string) error {
	return appendText(path, "\n[[notify]]\nname = \"hook\"\nkind = \"webhook\"\nurl = \"http://127.0.0.1:9/hook\"\n")
}

func appendText(path, text string) error {
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	_, err = f.WriteString(text)
	return errors.Join(err, f.Close())
}

// fleet compares one service at 10s without and with an otlp channel and
// the agent's ping: RSS after -idle, CPU over -duration.
func fleet(ctx context.Context, k *benchkit.Kit, bins benchkit.Binaries, o options) error {
	var got atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n, _ := io.Copy(io.Discard, r.Body)
		got.Add(n)
	}))
	defer srv.Close()
	for _, su := range []struct {
		what string
		s    setup
	}{
		{"1 service at 10s", setup{services: 1, interval: "10s"}},
		{"1 service at 10s, otlp channel + agent ping", setup{services: 1, interval: "10s", fleet: srv.URL}},
	} {
		var xs []float64
		for range k.Common.Trials {
			r, err := start(ctx, k, bins, su.s)
			if err != nil {
				return err
			}
			err = sleepCtx(ctx, o.idle)
			m, merr := benchkit.MemOf(r.agent.PID)
			r.stop()
			if err := cmpErr(err, merr); err != nil {
				return err
			}
			xs = append(xs, mib(m.RSS))
		}
		benchkit.Figure(fmt.Sprintf("VmRSS after %s idle, %s", o.idle, su.what), benchkit.Summarize(xs), "MiB", 1, "")
		if err := cpuWindow(ctx, k, bins, o, su.s, su.what, ""); err != nil {
			return err
		}
	}
	fmt.Printf("  the receiver got %d bytes in all\n", got.Load())
	return nil
}

// scaled states the aim (given per 60 s) for the window measured.
func scaled(msPer60s float64, o options) string {
	return fmt.Sprintf("≤ %.0f ms", msPer60s*o.duration.Seconds()/60)
}
