package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// scenario drives the Windows build of svc-ctl under Wine the way a person
// and Windows would: the CLI verbs, the agent in the foreground, then the
// agent installed as a Windows service and the prefix rebooted.
type scenario struct {
	w       *wine
	exe     string // svc-ctl.exe (host path)
	svc     string // testsvc.exe (host path)
	dir     string // the scenario's work dir (config, state)
	cfg     string // the config file (host path)
	addr    string // the test service's 127.0.0.1:PORT
	agent   *exec.Cmd
	agentIO *os.File
	install bool     // the agent service is installed (cleanup uninstalls)
	warned  []string // WARN lines install printed
	figures []figure
	log     io.Writer
}

type figure struct {
	Name string
	D    time.Duration
}

type stepResult struct {
	Name    string
	Verdict string // PASS | FAIL | TOLERATED | not run
	Note    string
	Elapsed time.Duration
}

// e2eSteps in order; each needs the ones before it.
func (s *scenario) steps() []struct {
	name string
	run  func() (string, error)
} {
	return []struct {
		name string
		run  func() (string, error)
	}{
		{"config check", s.configCheck},
		{"start", s.start},
		{"stop", s.stop},
		{"pause / resume", s.pauseResume},
		{"agent (foreground) up", s.agentUp},
		{"crash -> fast path", s.crash},
		{"hang -> replaced", s.hang},
		{"job in a Windows zone", s.job},
		{"exec (external job)", s.exec},
		{"missing", s.missing},
		{"runs / why / status", s.reports},
		{"agent (foreground) stopped", s.agentDown},
		{"install", s.installStep},
		{"reboot -> agent back, service healthy", s.reboot},
		{"verify", s.verify},
		{"uninstall", s.uninstallStep},
	}
}

func runScenario(s *scenario) []stepResult {
	defer s.cleanup()
	var out []stepResult
	failed := false
	for _, st := range s.steps() {
		if failed {
			out = append(out, stepResult{Name: st.name, Verdict: "not run"})
			continue
		}
		fmt.Fprintf(s.log, "-- e2e: %s\n", st.name)
		start := time.Now()
		note, err := st.run()
		r := stepResult{Name: st.name, Verdict: Pass, Note: note, Elapsed: time.Since(start)}
		if err != nil {
			r.Verdict, r.Note, failed = Fail, err.Error(), true
		}
		out = append(out, r)
	}
	return out
}

// cli runs svc-ctl.exe with the scenario's config. Its output goes to files,
// not pipes: under Wine a process svc-ctl spawns (the detached service) can
// keep a pipe's Unix end open, and the read would wait for it.
func (s *scenario) cli(args ...string) (stdout, stderr string, code int, err error) {
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	full := append([]string{"--config", winPath(s.cfg)}, args...)
	cmd := s.w.command(ctx, s.dir, s.exe, full...)
	o, oerr := os.CreateTemp(s.dir, "cli-out-")
	e, eerr := os.CreateTemp(s.dir, "cli-err-")
	if err := errors.Join(oerr, eerr); err != nil {
		return "", "", 0, err
	}
	defer func() {
		o.Close()
		e.Close()
		os.Remove(o.Name())
		os.Remove(e.Name())
	}()
	cmd.Stdout, cmd.Stderr = o, e
	err = cmd.Run()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code, err = ee.ExitCode(), nil
	}
	ob, _ := os.ReadFile(o.Name())
	eb, _ := os.ReadFile(e.Name())
	stdout, stderr = string(ob), string(eb)
	fmt.Fprintf(s.log, "$ svc-ctl %s -> %d\n%s%s", strings.Join(args, " "), code, indent(stdout), indent(stderr))
	if err != nil {
		err = fmt.Errorf("svc-ctl %s: %w", strings.Join(args, " "), err)
	}
	return stdout, stderr, code, err
}

// expect runs svc-ctl and checks its exit code (unless code is -1) and that
// stdout+stderr hold every word of want.
func (s *scenario) expect(code int, want []string, args ...string) (string, error) {
	o, e, c, err := s.cli(args...)
	if err != nil {
		return "", err
	}
	all := o + e
	if code >= 0 && c != code {
		return all, fmt.Errorf("svc-ctl %s exited %d, want %d: %s", strings.Join(args, " "), c, code, firstLine(all))
	}
	for _, w := range want {
		if !strings.Contains(all, w) {
			return all, fmt.Errorf("svc-ctl %s: output lacks %q: %s", strings.Join(args, " "), w, firstLine(all))
		}
	}
	return all, nil
}

func (s *scenario) configCheck() (string, error) {
	_, err := s.expect(0, []string{": OK", "W. Europe Standard Time"}, "config", "check")
	return "", err
}

func (s *scenario) start() (string, error) {
	if _, err := s.expect(0, []string{"web: started"}, "start", "web"); err != nil {
		return "", err
	}
	return "", s.waitHealthy(10*time.Second, 0)
}

func (s *scenario) stop() (string, error) {
	pid, _ := s.pid()
	out, err := s.expect(0, []string{"stopped"}, "stop", "web")
	if err != nil {
		return "", err
	}
	if err := waitFor(10*time.Second, "the service's port to close", func() bool { return !s.reachable() }); err != nil {
		return "", err
	}
	return fmt.Sprintf("pid %d: %s", pid, firstLine(out)), nil
}

func (s *scenario) pauseResume() (string, error) {
	if _, err := s.expect(0, []string{"resumed"}, "resume", "web"); err != nil {
		return "", err
	}
	if _, err := s.expect(0, []string{"paused"}, "pause", "web", "--for", "1h", "--reason", "e2e"); err != nil {
		return "", err
	}
	if _, err := s.expect(-1, []string{"paused"}, "status", "web"); err != nil {
		return "", err
	}
	if _, err := s.expect(0, []string{"resumed"}, "resume", "web"); err != nil {
		return "", err
	}
	if _, err := s.expect(0, []string{"web: started"}, "start", "web"); err != nil {
		return "", err
	}
	return "", s.waitHealthy(10*time.Second, 0)
}

func (s *scenario) agentUp() (string, error) {
	f, err := os.Create(filepath.Join(s.dir, "agent.foreground.log"))
	if err != nil {
		return "", err
	}
	s.agentIO = f
	s.agent = s.w.command(context.Background(), s.dir, s.exe, "--config", winPath(s.cfg), "agent")
	s.agent.Stdout, s.agent.Stderr = f, f
	if err := s.agent.Start(); err != nil {
		return "", fmt.Errorf("start the agent: %w", err)
	}
	return "", s.waitAgent(30*time.Second, "foreground")
}

// crash: the service exits; the agent sees it through the process handle and
// starts it again at once (trigger event), without waiting for the interval.
func (s *scenario) crash() (string, error) {
	old, err := s.pid()
	if err != nil {
		return "", err
	}
	before, err := s.lastRun("watchdog:web")
	if err != nil {
		return "", err
	}
	start := time.Now()
	s.get("/control/crash")
	if err := s.waitHealthy(20*time.Second, old); err != nil {
		return "", err
	}
	d := time.Since(start)
	s.figures = append(s.figures, figure{"kill -> restored (crash, exit 3)", d})
	// The cycle that restored it (a periodic one may have run since: the
	// interval is 1 s) is the first ok/started after the crash.
	rs, err := s.runs("watchdog:web", 20)
	if err != nil {
		return "", err
	}
	var restoring *runRow
	for i := len(rs) - 1; i >= 0; i-- {
		if rs[i].ID > before.ID && rs[i].Outcome == "ok" && rs[i].Reason == "started" {
			restoring = &rs[i]
			break
		}
	}
	switch {
	case restoring == nil:
		return "", fmt.Errorf("no ok/started cycle after the crash (runs since: %d)", len(rs))
	case restoring.Trigger != "event":
		return "", fmt.Errorf("the restoring cycle's trigger is %s, want event (the fast path)", restoring.Trigger)
	}
	return fmt.Sprintf("restored in %d ms (trigger event)", d.Milliseconds()), nil
}

// hang: /health stops answering while the process lives; the periodic cycle
// judges it by the probe, keeps the evidence and replaces it.
func (s *scenario) hang() (string, error) {
	old, err := s.pid()
	if err != nil {
		return "", err
	}
	start := time.Now()
	s.get("/control/hang")
	if err := s.waitHealthy(30*time.Second, old); err != nil {
		return "", err
	}
	d := time.Since(start)
	s.figures = append(s.figures, figure{"hung -> replaced (interval 1 s, timeout 2 s, confirm 0 s)", d})
	if _, err := s.expect(0, []string{`reason "unhealthy`, "/health now hangs"}, "snapshot", "web", "-n", "1"); err != nil {
		return "", fmt.Errorf("the evidence of the hang: %w", err)
	}
	if b, _ := os.ReadFile(filepath.Join(s.dir, "state", "agent.log")); strings.Contains(string(b), "snapshot.failed") {
		return "", fmt.Errorf("agent.log has snapshot.failed: the evidence steps before the restart did not complete (%s)", grepLine(string(b), "snapshot.failed"))
	}
	return fmt.Sprintf("replaced in %d ms", d.Milliseconds()), nil
}

// job: a cron job read in a zone named the Windows way runs at its slot.
func (s *scenario) job() (string, error) {
	if _, err := s.expect(0, []string{"Europe/Berlin"}, "schedule", "next", "tick", "-n", "2"); err != nil {
		return "", err
	}
	var r runRow
	err := waitFor(75*time.Second, "a run of job:tick (every minute)", func() bool {
		var e error
		r, e = s.lastRun("job:tick")
		return e == nil && r.Outcome != "running"
	})
	if err != nil {
		return "", err
	}
	if r.Outcome != "ok" || r.Reason != "completed" || r.ScheduledAt == nil {
		return "", fmt.Errorf("job:tick ran %s/%s (slot %v), want ok/completed serving a slot", r.Outcome, r.Reason, r.ScheduledAt)
	}
	return "slot " + *r.ScheduledAt, nil
}

func (s *scenario) exec() (string, error) {
	if _, err := s.expect(0, nil, "exec", "ext", "--", winPath(s.svc), "--exit-now", "0"); err != nil {
		return "", err
	}
	if _, err := s.expect(4, nil, "exec", "ext", "--", winPath(s.svc), "--exit-now", "4"); err != nil {
		return "", err
	}
	r, err := s.lastRun("job:ext")
	if err != nil {
		return "", err
	}
	if r.Outcome != "failed" || r.Reason != "exit-nonzero" {
		return "", fmt.Errorf("the failed exec is recorded %s/%s, want failed/exit-nonzero", r.Outcome, r.Reason)
	}
	return "ok/completed, then failed/exit-nonzero (exit 4)", nil
}

// missing: ext's slots are served by nobody (its exec runs were manual), so
// past its grace they are missing; tick's are not.
func (s *scenario) missing() (string, error) {
	var out string
	err := waitFor(75*time.Second, "missing to name a slot of job:ext", func() bool {
		o, _, code, err := s.cli("missing", "--since", "1h")
		out = o
		return err == nil && code == 1 && strings.Contains(o, "ext")
	})
	if err != nil {
		return "", err
	}
	if strings.Contains(out, "job:tick") || strings.Contains(out, " tick ") {
		return "", fmt.Errorf("missing names job:tick, which ran: %s", out)
	}
	return firstLine(out), nil
}

func (s *scenario) reports() (string, error) {
	if _, err := s.expect(0, []string{"watchdog:web", "job:tick", "job:ext", "event", "ok/started"}, "runs", "-n", "0"); err != nil {
		return "", err
	}
	if _, err := s.expect(0, []string{"ok"}, "why", "tick"); err != nil {
		return "", err
	}
	if _, _, _, err := s.cli("why", "ext"); err != nil {
		return "", err
	}
	_, err := s.expect(-1, []string{"running", "healthy", "tick", "ext"}, "status")
	return "", err
}

// agentDown stops the foreground agent the way a console is closed: CTRL_C.
func (s *scenario) agentDown() (string, error) {
	if s.agent == nil {
		return "", errors.New("no foreground agent")
	}
	how := "interrupt (Ctrl-C)"
	_ = s.agent.Process.Signal(os.Interrupt)
	done := make(chan error, 1)
	go func() { done <- s.agent.Wait() }()
	select {
	case <-done:
	case <-time.After(45 * time.Second):
		how = "killed after 45 s without stopping on Ctrl-C"
		_ = s.agent.Process.Kill()
		<-done
	}
	s.agent = nil
	s.agentIO.Close()
	return how, nil
}

func (s *scenario) installStep() (string, error) {
	// ext's slots stay missing forever (nobody serves them): the installed
	// agent runs without it, so verify judges what the agent is for.
	if err := s.writeConfig(false); err != nil {
		return "", err
	}
	out, err := s.expect(0, nil, "install")
	s.install = true // even a failed install may have left a service
	if err != nil {
		return "", err
	}
	for _, l := range strings.Split(out, "\n") {
		if l = strings.TrimSpace(l); strings.HasPrefix(l, "WARN") {
			if matchGap(l) == nil {
				return "", fmt.Errorf("install warns of something no known Wine gap explains: %s", l)
			}
			s.warned = append(s.warned, l)
		}
	}
	if err := s.waitAgent(60*time.Second, "service"); err != nil {
		return "", err
	}
	note := "the SCM started the agent"
	if len(s.warned) > 0 {
		note += "; " + strings.Join(s.warned, "; ")
	}
	return note, s.waitHealthy(30*time.Second, 0)
}

// reboot ends every process of the prefix (the agent service, the test
// service) and boots it again: Wine's service manager must start the agent,
// and the agent the service.
func (s *scenario) reboot() (string, error) {
	if err := s.w.shutdown(); err != nil {
		return "", err
	}
	if s.reachable() {
		return "", errors.New("the test service still answers after the prefix was shut down")
	}
	start := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	if err := s.w.boot(ctx); err != nil {
		return "", err
	}
	if err := s.waitHealthy(90*time.Second, 0); err != nil {
		return "", err
	}
	d := time.Since(start)
	s.figures = append(s.figures, figure{"prefix reboot -> service healthy", d})
	if err := s.waitAgent(30*time.Second, "service"); err != nil {
		return "", err
	}
	return fmt.Sprintf("healthy %d ms after wineboot -r", d.Milliseconds()), nil
}

func (s *scenario) verify() (string, error) {
	var out string
	// Right after boot a service may not have cycled twice yet: give verify
	// the few seconds its own evidence needs, then judge.
	err := waitFor(30*time.Second, "verify to pass", func() bool {
		o, _, code, err := s.cli("verify")
		out = o
		return err == nil && code == 0
	})
	if err != nil {
		return "", fmt.Errorf("%w: %s", err, grepLine(out, "FAIL"))
	}
	var warns []string
	for _, l := range strings.Split(out, "\n") {
		if l = strings.TrimSpace(l); strings.HasPrefix(l, "WARN") {
			if matchGap(l) == nil {
				return "", fmt.Errorf("verify warns of something no known Wine gap explains: %s", l)
			}
			warns = append(warns, l)
		}
	}
	for _, iw := range s.warned {
		g := matchGap(iw)
		repeated := false
		for _, vw := range warns {
			repeated = repeated || matchGap(vw) == g
		}
		if !repeated {
			return "", fmt.Errorf("install warned %q but verify does not repeat it", iw)
		}
	}
	return fmt.Sprintf("%d WARN, all named gaps", len(warns)), nil
}

func (s *scenario) uninstallStep() (string, error) {
	if _, err := s.expect(0, nil, "uninstall"); err != nil {
		return "", err
	}
	s.install = false
	err := waitFor(30*time.Second, "status to say the agent is stopped and not installed", func() bool {
		o, _, _, err := s.cli("status")
		return err == nil && strings.Contains(o, "NOT installed") && strings.Contains(o, "stopped")
	})
	return "", err
}

// cleanup leaves nothing running: the foreground agent, the service, the
// test service (the prefix's processes end with the prefix's wineserver).
func (s *scenario) cleanup() {
	if s.agent != nil {
		_ = s.agent.Process.Kill()
		_ = s.agent.Wait()
		s.agentIO.Close()
	}
	if s.install {
		_, _, _, _ = s.cli("uninstall")
	}
	_, _, _, _ = s.cli("stop", "web")
}

// --- evidence helpers

type runRow struct {
	ID          int64   `json:"id"`
	JobID       string  `json:"job_id"`
	Trigger     string  `json:"trigger"`
	ScheduledAt *string `json:"scheduled_at"`
	Outcome     string  `json:"outcome"`
	Reason      string  `json:"reason"`
}

func (s *scenario) lastRun(job string) (runRow, error) {
	rs, err := s.runs(job, 1)
	if err != nil {
		return runRow{}, err
	}
	return rs[0], nil
}

// runs is job's newest n runs, newest first (at least one).
func (s *scenario) runs(job string, n int) ([]runRow, error) {
	o, _, code, err := s.cli("runs", "--job", job, "-n", strconv.Itoa(n), "--json")
	if err != nil {
		return nil, err
	}
	var rs []runRow
	if code != 0 || json.Unmarshal([]byte(o), &rs) != nil || len(rs) == 0 {
		return nil, fmt.Errorf("no run of %s (runs exited %d: %s)", job, code, firstLine(o))
	}
	return rs, nil
}

// waitAgent waits for status to show the agent running in mode.
func (s *scenario) waitAgent(d time.Duration, mode string) error {
	return waitFor(d, "status to show the agent running ("+mode+")", func() bool {
		o, _, _, err := s.cli("status")
		line := grepLine(o, "agent:")
		return err == nil && strings.Contains(line, "running") && strings.Contains(line, mode)
	})
}

var client = &http.Client{Timeout: 2 * time.Second}

func (s *scenario) get(path string) (string, error) {
	r, err := client.Get("http://" + s.addr + path)
	if err != nil {
		return "", err
	}
	defer r.Body.Close()
	b, err := io.ReadAll(r.Body)
	if r.StatusCode != 200 {
		return string(b), fmt.Errorf("GET %s: %s", path, r.Status)
	}
	return string(b), err
}

func (s *scenario) pid() (int, error) {
	b, err := s.get("/pid")
	if err != nil {
		return 0, err
	}
	var pid int
	_, err = fmt.Sscan(b, &pid)
	return pid, err
}

func (s *scenario) reachable() bool {
	c, err := net.DialTimeout("tcp", s.addr, time.Second)
	if err == nil {
		c.Close()
	}
	return err == nil
}

// waitHealthy waits for /health 200 from a process other than notPid.
func (s *scenario) waitHealthy(d time.Duration, notPid int) error {
	return waitFor(d, "the service healthy (a new instance)", func() bool {
		pid, err := s.pid()
		if err != nil || pid == notPid {
			return false
		}
		_, err = s.get("/health")
		return err == nil
	})
}

// waitFor polls cond every 10 ms until it holds or d has passed.
func waitFor(d time.Duration, what string, cond func() bool) error {
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			return fmt.Errorf("timed out after %s waiting for %s", d, what)
		}
		time.Sleep(10 * time.Millisecond)
	}
	return nil
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

func grepLine(s, word string) string {
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, word) {
			return strings.TrimSpace(l)
		}
	}
	return ""
}

func indent(s string) string {
	if s == "" {
		return ""
	}
	return "    " + strings.ReplaceAll(strings.TrimRight(s, "\n"), "\n", "\n    ") + "\n"
}

// writeConfig writes the scenario's config: one web service on a free port,
// a cron job in a zone named the Windows way, an external job for exec.
func (s *scenario) writeConfig(withExt bool) error {
	svc := fmt.Sprintf("%q, %q, %q", winPath(s.svc), "--addr", s.addr)
	cfg := fmt.Sprintf(`[agent]
state_dir = %q
heartbeat = "1s"

[[service]]
name = "web"
command = [%s]
interval = "1s"
start_timeout = "8s"
stop_timeout = "3s"
  [service.health]
  http = "http://%s/health"
  timeout = "2s"
  confirm = "0s"

[[job]]
name = "tick"
schedule = "* * * * *"
timezone = "W. Europe Standard Time"
catch_up = true
command = [%q, "--exit-now", "0"]
`, winPath(filepath.Join(s.dir, "state")), svc, s.addr, winPath(s.svc))
	if withExt {
		cfg += `
[[job]]
name = "ext"
schedule = "* * * * *"
timezone = "Tokyo Standard Time"
external = true
grace = "1s"
`
	}
	return os.WriteFile(s.cfg, []byte(cfg), 0o600)
}

func freeAddr() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer ln.Close()
	return ln.Addr().String(), nil
}
