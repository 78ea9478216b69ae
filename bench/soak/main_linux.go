// Command soak runs the real agent for a while under the faults a desktop
// sees, all at once, and checks at the end that nothing was lost:
//
//   - 10 testsvc services that crash (/control/crash), hang (/control/hang),
//     flood their logs (/control/flood, tens of MB at full speed) and are
//     SIGKILLed, at random;
//   - jobs every few seconds (one ok, one failing, one printing 1.9 MB under
//     log_max 64KiB, one slow);
//   - an idle-connection flood on metrics_listen (-idle-conns held open);
//   - the agent itself SIGKILLed and started again every few minutes.
//
// The last -settle of the run has no faults and no agent kills. Then it
// checks, and exits 1 when any fails:
//
//   - no run_trace row `running` that started more than a minute ago;
//
//   - no service ever seen with two live instances (a scan of /proc every
//     250 ms for testsvc processes listening on the same address);
//
//   - every service's runtime.log + runtime.log.1 + runtime.prev.log under
//     3 x log_max, every job's last.log and last.prev.log under log_max (+ the
//     note line);
//
//   - the agent's RSS under -max-rss all along;
//
//   - every crash, hang and kill followed by an ok/started row of that
//     service.
//
//     go run ./bench/soak [-minutes 30] [-agent-kill-every 3m] [-seed N] [-keep]
//
// It prints its figures (faults by kind, restores and their latency, agent
// kills, RSS, disk peaks, runs by verdict) and the machine's load.
package main

import (
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"svcctl/bench/internal/benchkit"
	"svcctl/runtrace"
	"svcctl/snapshot"
)

const (
	services = 10
	logMax   = 1 << 20  // services: log_max = "1MiB"
	jobMax   = 64 << 10 // the chatty job: log_max = "64KiB"
)

type options struct {
	minutes    float64
	killEvery  time.Duration
	settle     time.Duration
	idleConns  int
	maxRSS     int64
	seed       uint64
	faultEvery time.Duration
}

func main() {
	c := benchkit.CommonFlags()
	var o options
	flag.Float64Var(&o.minutes, "minutes", 30, "how long to run, faults and settling included")
	flag.DurationVar(&o.killEvery, "agent-kill-every", 3*time.Minute, "mean time between SIGKILLs of the agent (each 50-150% of it)")
	flag.DurationVar(&o.settle, "settle", 90*time.Second, "the last part of the run: no faults, no agent kills")
	flag.IntVar(&o.idleConns, "idle-conns", 400, "idle connections held open on metrics_listen")
	flag.Int64Var(&o.maxRSS, "max-rss-mib", 64, "the agent's RSS must stay under this many MiB")
	flag.Uint64Var(&o.seed, "seed", 0, "random seed (0 = from the clock; printed)")
	flag.DurationVar(&o.faultEvery, "fault-every", 1500*time.Millisecond, "mean time between service faults")
	benchkit.Main("bench/soak", c, func(ctx context.Context, k *benchkit.Kit) error {
		return run(ctx, k, o)
	})
}

// soak is one run's world and what it observed.
type soak struct {
	k      *benchkit.Kit
	o      options
	bins   benchkit.Binaries
	setup  benchkit.Setup
	addrs  []string
	metric string
	rnd    *rand.Rand

	mu       sync.Mutex
	agent    *benchkit.Agent
	faults   []fault
	kills    int
	doubles  []string
	rssPeak  int64
	rssBad   []string
	diskPeak map[string]int64
}

type fault struct {
	service string
	kind    string // crash | hang | kill | flood
	at      time.Time
}

func run(ctx context.Context, k *benchkit.Kit, o options) error {
	if o.seed == 0 {
		o.seed = uint64(time.Now().UnixNano())
	}
	total := time.Duration(o.minutes * float64(time.Minute))
	if total <= o.settle {
		return fmt.Errorf("-minutes %.1f leaves no time before the %s settle", o.minutes, o.settle)
	}
	s := &soak{k: k, o: o, rnd: rand.New(rand.NewPCG(o.seed, o.seed>>1)), diskPeak: map[string]int64{}}
	var err error
	if s.bins, err = k.Build(ctx); err != nil {
		return err
	}
	if err := s.writeConfig(); err != nil {
		return err
	}
	fmt.Printf("soak: %s, %d services, seed %d, %s\n", total, services, o.seed, benchkit.Machine())
	fmt.Printf("load average at the start: %s\n", benchkit.LoadAvg())
	if err := s.startAgent(); err != nil {
		return err
	}
	if err := benchkit.WaitAllHealthy(ctx, s.addrs, 60*time.Second); err != nil {
		return fmt.Errorf("services never came up: %w", err)
	}
	start := time.Now()
	end := start.Add(total)
	calm := end.Add(-o.settle)
	ctx, cancel := context.WithDeadline(ctx, end)
	defer cancel()
	var wg sync.WaitGroup
	wg.Go(func() { s.watch(ctx) })
	wg.Go(func() { s.idleFlood(ctx) })
	wg.Go(func() { s.chaos(ctx, calm) })
	wg.Go(func() { s.killAgents(ctx, calm) })
	wg.Wait()
	if err := context.Cause(ctx); err != nil && !strings.Contains(err.Error(), "deadline") {
		return err
	}
	return s.check(context.Background(), start)
}

func (s *soak) writeConfig() error {
	addrs, err := benchkit.FreeAddrs(services + 1)
	if err != nil {
		return err
	}
	s.addrs, s.metric = addrs[:services], addrs[services]
	dir, err := s.k.SubDir("soak")
	if err != nil {
		return err
	}
	s.setup = benchkit.Setup{Dir: dir, Config: filepath.Join(dir, "svc-ctl.toml"), State: filepath.Join(dir, "state")}
	var b strings.Builder
	fmt.Fprintf(&b, "[agent]\nstate_dir = %q\nheartbeat = \"2s\"\ndrain_timeout = \"5s\"\nmetrics_listen = %q\n", s.setup.State, s.metric)
	for i, a := range s.addrs {
		fmt.Fprintf(&b, `
[[service]]
name = "svc%d"
command = [%q, "--addr", %q, "--tick", "250ms"]
interval = "2s"
start_timeout = "5s"
stop_timeout = "2s"
log_max = "1MiB"
  [service.health]
  http = "http://%s/health"
  timeout = "1s"
  confirm = "0s"
  [service.restart]
  backoff_initial = "1s"
  backoff_max = "4s"
  give_up_after = 0
  loop_restarts = 0 # the soak's faults come every few seconds by design: each must be restored, not taken for a crash loop
`, i, s.bins.TestSvc, a, a)
	}
	b.WriteString(`
[[job]]
name = "ok"
schedule = "@every 3s"
timezone = "UTC"
command = ["/bin/true"]

[[job]]
name = "fails"
schedule = "@every 5s"
timezone = "UTC"
command = ["/bin/sh", "-c", "echo upstream said 503; exit 3"]

[[job]]
name = "chatty"
schedule = "@every 4s"
timezone = "UTC"
command = ["/usr/bin/seq", "1", "300000"]
log_max = "64KiB"

[[job]]
name = "slow"
schedule = "@every 7s"
timezone = "UTC"
command = ["/bin/sleep", "3"]
timeout = "1m"
`)
	s.k.Defer(func() { benchkit.KillRecorded(s.setup.State) })
	return os.WriteFile(s.setup.Config, []byte(b.String()), 0o600)
}

func (s *soak) startAgent() error {
	a, err := s.k.StartAgent(s.bins.SvcCtl, s.setup, 500*time.Millisecond)
	if err != nil {
		return err
	}
	s.mu.Lock()
	s.agent = a
	s.mu.Unlock()
	return nil
}

func (s *soak) currentAgent() *benchkit.Agent {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.agent
}

// chaos makes one fault every ~faultEvery until calm.
func (s *soak) chaos(ctx context.Context, calm time.Time) {
	for time.Now().Before(calm) {
		d := time.Duration(float64(s.o.faultEvery) * (0.5 + s.rnd.Float64()))
		select {
		case <-ctx.Done():
			return
		case <-time.After(d):
		}
		if !time.Now().Before(calm) {
			return
		}
		i := s.rnd.IntN(services)
		kind := []string{"crash", "hang", "kill", "flood"}[s.rnd.IntN(4)]
		at := time.Now() // before the fault: the agent may restore within milliseconds
		if s.fault(ctx, i, kind) {
			s.mu.Lock()
			s.faults = append(s.faults, fault{service: fmt.Sprintf("svc%d", i), kind: kind, at: at})
			s.mu.Unlock()
		}
	}
}

// fault does one fault to service i; it reports whether it landed (a
// service that is down already cannot be crashed again).
func (s *soak) fault(ctx context.Context, i int, kind string) bool {
	addr := s.addrs[i]
	switch kind {
	case "kill":
		id, err := benchkit.ServiceIdentity(s.setup.State, fmt.Sprintf("svc%d", i))
		if err != nil || !benchkit.Healthy(ctx, addr, time.Second) {
			return false
		}
		ok, err := benchkit.SignalKill(id)
		return err == nil && ok
	case "flood":
		mb := 20 + s.rnd.IntN(41)
		go benchkit.Control(context.WithoutCancel(ctx), addr, fmt.Sprintf("flood?mb=%d", mb)) // answers when done
		return true
	default: // crash, hang
		if !benchkit.Healthy(ctx, addr, time.Second) {
			return false
		}
		// crash answers nothing (it exits); hang answers, then stops answering /health.
		benchkit.Control(ctx, addr, kind)
		return true
	}
}

// killAgents SIGKILLs the agent every ~killEvery and starts a new one after
// 1-5 s, until calm.
func (s *soak) killAgents(ctx context.Context, calm time.Time) {
	for {
		d := time.Duration(float64(s.o.killEvery) * (0.5 + s.rnd.Float64()))
		if time.Now().Add(d).After(calm) {
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(d):
		}
		a := s.currentAgent()
		syscall.Kill(a.PID, syscall.SIGKILL)
		benchkit.PollUntil(ctx, 10*time.Millisecond, "agent gone", a.Exited)
		s.mu.Lock()
		s.kills++
		s.mu.Unlock()
		select {
		case <-ctx.Done():
			return
		case <-time.After(time.Second + time.Duration(s.rnd.Int64N(int64(4*time.Second)))):
		}
		if err := s.startAgent(); err != nil {
			fmt.Fprintln(os.Stderr, "soak: restart agent:", err)
		}
	}
}

// idleFlood holds idleConns idle connections open on metrics_listen,
// dialling again as the agent closes them (its header timeout) or dies.
func (s *soak) idleFlood(ctx context.Context) {
	var open sync.WaitGroup
	sem := make(chan struct{}, s.o.idleConns)
	for ctx.Err() == nil {
		select {
		case sem <- struct{}{}:
		case <-ctx.Done():
			continue
		}
		c, err := (&net.Dialer{Timeout: time.Second}).DialContext(ctx, "tcp", s.metric)
		if err != nil {
			<-sem
			select {
			case <-ctx.Done():
			case <-time.After(200 * time.Millisecond):
			}
			continue
		}
		open.Go(func() {
			defer func() { <-sem }()
			stop := context.AfterFunc(ctx, func() { c.Close() })
			defer stop()
			buf := make([]byte, 64)
			for {
				if _, err := c.Read(buf); err != nil {
					c.Close()
					return
				}
			}
		})
	}
	open.Wait()
}

// watch samples every 250 ms: instances per service, the agent's RSS, the
// disk the logs take.
func (s *soak) watch(ctx context.Context) {
	t := time.NewTicker(250 * time.Millisecond)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		s.sampleInstances()
		if a := s.currentAgent(); !a.Exited() {
			if m, err := benchkit.MemOf(a.PID); err == nil {
				s.mu.Lock()
				s.rssPeak = max(s.rssPeak, m.RSS)
				if m.RSS > s.o.maxRSS<<20 && len(s.rssBad) < 10 {
					s.rssBad = append(s.rssBad, fmt.Sprintf("%s: %.1f MiB", time.Now().Format(time.TimeOnly), float64(m.RSS)/(1<<20)))
				}
				s.mu.Unlock()
			}
		}
		for name, n := range s.diskUse() {
			s.mu.Lock()
			s.diskPeak[name] = max(s.diskPeak[name], n)
			s.mu.Unlock()
		}
	}
}

// sampleInstances counts the live testsvc processes per --addr.
func (s *soak) sampleInstances() {
	per := map[string][]string{}
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid := e.Name()
		if pid[0] < '0' || pid[0] > '9' {
			continue
		}
		if exe, err := os.Readlink("/proc/" + pid + "/exe"); err != nil || exe != s.bins.TestSvc {
			continue
		}
		st, err := os.ReadFile("/proc/" + pid + "/stat")
		if i := strings.LastIndexByte(string(st), ')'); err != nil || i < 0 || len(st) < i+3 || st[i+2] == 'Z' {
			continue // gone, or a zombie not reaped yet: not an instance
		}
		cmd, _ := os.ReadFile("/proc/" + pid + "/cmdline")
		args := strings.Split(string(cmd), "\x00")
		if j := slices.Index(args, "--addr"); j >= 0 && j+1 < len(args) {
			per[args[j+1]] = append(per[args[j+1]], pid)
		}
	}
	for addr, pids := range per {
		if len(pids) > 1 {
			s.mu.Lock()
			if len(s.doubles) < 20 {
				s.doubles = append(s.doubles, fmt.Sprintf("%s: %s on %s (pids %v)", time.Now().Format(time.TimeOnly),
					s.nameOf(addr), addr, pids))
			}
			s.mu.Unlock()
		}
	}
}

func (s *soak) nameOf(addr string) string {
	if i := slices.Index(s.addrs, addr); i >= 0 {
		return fmt.Sprintf("svc%d", i)
	}
	return "?"
}

// diskUse is what each service's and job's logs take now.
func (s *soak) diskUse() map[string]int64 {
	out := map[string]int64{}
	size := func(p string) int64 {
		if fi, err := os.Stat(p); err == nil {
			return fi.Size()
		}
		return 0
	}
	for i := range services {
		log := filepath.Join(s.setup.State, "services", fmt.Sprintf("svc%d", i), "runtime.log")
		out[fmt.Sprintf("svc%d", i)] = size(log) + size(snapshot.RotatedPath(log)) + size(snapshot.PrevPath(log))
	}
	for _, j := range []string{"ok", "fails", "chatty", "slow"} {
		d := filepath.Join(s.setup.State, "jobs", j)
		out["job:"+j] = size(filepath.Join(d, "last.log")) + size(filepath.Join(d, "last.prev.log")) + size(filepath.Join(d, "last.log.tail"))
	}
	return out
}

// check reads the ledger and the observations, prints the figures and
// returns an error naming every check that failed.
func (s *soak) check(ctx context.Context, start time.Time) error {
	st, err := runtrace.Open(filepath.Join(s.setup.State, "svc-ctl.db"), runtrace.Options{ReadOnly: true})
	if err != nil {
		return fmt.Errorf("open the ledger: %w", err)
	}
	defer st.Close()
	now := time.Now()
	var failed []string
	fail := func(format string, a ...any) { failed = append(failed, fmt.Sprintf(format, a...)) }

	running, err := st.Runs(ctx, runtrace.Filter{Outcome: runtrace.OutcomeRunning, Limit: 1000})
	if err != nil {
		return err
	}
	for _, r := range running {
		if age := now.Sub(r.StartedAt); age > time.Minute {
			fail("row %d (%s) running for %s", r.ID, r.JobID, age.Round(time.Second))
		}
	}
	for _, d := range s.doubles {
		fail("two instances at once: %s", d)
	}
	for _, r := range s.rssBad {
		fail("agent RSS over %d MiB at %s", s.o.maxRSS, r)
	}
	for name, n := range s.diskUse() {
		limit := int64(3*logMax + 64<<10)
		if name == "job:chatty" {
			limit = 2 * (jobMax + 1<<10)
		} else if strings.HasPrefix(name, "job:") {
			limit = 64 << 10
		}
		if n > limit {
			fail("%s: logs take %d bytes, over %d", name, n, limit)
		}
	}

	// Every crash, hang and kill is followed by a start of that service.
	kinds := map[string]int{}
	var restores []float64
	for _, f := range s.faults {
		kinds[f.kind]++
		if f.kind == "flood" {
			continue
		}
		rs, err := st.Runs(ctx, runtrace.Filter{JobID: runtrace.WatchdogID(f.service), Reason: runtrace.ReasonStarted,
			Since: f.at, Limit: 1000})
		if err != nil {
			return err
		}
		if len(rs) == 0 {
			fail("%s %s at %s: never restored", f.kind, f.service, f.at.Format(time.TimeOnly))
			continue
		}
		first := rs[len(rs)-1] // newest first
		restores = append(restores, benchkit.Ms(first.FinishedAt.Sub(f.at)))
	}
	if n, _ := st.Count(ctx, runtrace.Filter{Reason: runtrace.ReasonPanic, Since: start}); n > 0 {
		fail("%d runs failed/panic: a panic reached the L2 net", n)
	}

	s.report(ctx, st, start, kinds, restores)
	if len(failed) > 0 {
		for _, f := range failed {
			fmt.Println("FAIL", f)
		}
		return fmt.Errorf("%d checks failed", len(failed))
	}
	fmt.Println("PASS: no row running past a minute, never two instances, logs under their caps, RSS bounded, every fault restored")
	return nil
}

func (s *soak) report(ctx context.Context, st *runtrace.Store, start time.Time, kinds map[string]int, restores []float64) {
	fmt.Printf("ran %s, %s\n", time.Since(start).Round(time.Second), benchkit.Commit())
	fmt.Printf("faults: %d crash, %d hang, %d kill, %d flood; agent SIGKILLed %d times; %d idle connections held on metrics\n",
		kinds["crash"], kinds["hang"], kinds["kill"], kinds["flood"], s.kills, s.o.idleConns)
	if len(restores) > 0 {
		benchkit.Figure("fault -> restored (ok/started finished)", benchkit.Summarize(restores), "ms", 0, "")
	}
	fmt.Printf("agent RSS peak: %.1f MiB (bound %d MiB)\n", float64(s.rssPeak)/(1<<20), s.o.maxRSS)
	var svcPeak int64
	for name, n := range s.diskPeak {
		if strings.HasPrefix(name, "svc") {
			svcPeak = max(svcPeak, n)
		}
	}
	fmt.Printf("log disk peak of one service while flooded: %.1f MiB (log_max 1 MiB; checked at the end: 3 x log_max); chatty job: %.0f KiB (log_max 64 KiB)\n",
		float64(svcPeak)/(1<<20), float64(s.diskPeak["job:chatty"])/(1<<10))
	verdicts := map[string]int{}
	for _, prefix := range []string{"watchdog:", "job:", "agent"} {
		rs, _ := st.Runs(ctx, runtrace.Filter{JobPrefix: prefix, Since: start, Limit: 1_000_000})
		for _, r := range rs {
			verdicts[strings.TrimSuffix(prefix, ":")+" "+r.Verdict()]++
		}
	}
	keys := make([]string, 0, len(verdicts))
	for k := range verdicts {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	fmt.Println("runs by verdict:")
	for _, k := range keys {
		fmt.Printf("  %-40s %d\n", k, verdicts[k])
	}
	benchkit.PrintLoad()
}
