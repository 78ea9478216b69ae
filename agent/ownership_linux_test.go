package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"svcctl/config"
	"svcctl/internal/testenv"
	"svcctl/internal/testutil"
	"svcctl/proc"
	"svcctl/report"
	"svcctl/runtrace"
	"svcctl/state"
	"svcctl/watchdog"
)

// The ownership matrix: every shape a real service comes in that leaves its
// tree or hides from it, through every step of a service's life, in every
// ownership mode this host can give: a cgroup the test makes and delegates
// (as systemd's Delegate=yes does), the agent as child subreaper, and plain
// (no subreaper: what a macOS agent has). Each shape runs under an agent of
// its own, a real process (the test binary as an agent: envTestAgent), which
// the test SIGKILLs and starts again in the middle. The test itself is the
// person at the terminal: status, drill's kill, restart and stop through the
// same packages as the CLI.
//
// It runs in a process of its own (TestOwnershipMatrix starts the test
// binary again): the subreaper attribute is per process, and the agents the
// other tests of this package run in-process have set it on this one.

// envMatrix marks the process the matrix runs in.
const envMatrix = "SVCCTL_TEST_OWNERSHIP_MATRIX"

func TestOwnershipMatrix(t *testing.T) {
	if os.Getenv(envMatrix) == "" {
		cmd := exec.Command(os.Args[0], "-test.run=^TestOwnershipMatrix$", "-test.v", "-test.timeout=15m")
		cmd.Env = append(os.Environ(), envMatrix+"=1")
		out, err := cmd.CombinedOutput()
		t.Logf("the matrix, in a process of its own:\n%s", out)
		if err != nil {
			t.Fatalf("the matrix failed: %v", err)
		}
		return
	}
	for _, mode := range []string{"cgroup", "subreaper", "plain"} {
		t.Run(mode, func(t *testing.T) {
			parent := ""
			if mode == "cgroup" {
				parent = testenv.CgroupParent(t, "matrix")
			}
			for _, sh := range matrixShapes {
				t.Run(sh.name, func(t *testing.T) {
					t.Parallel()
					m := newMatrix(t, sh, mode, parent)
					m.run()
				})
			}
		})
	}
}

// A matrixShape is a service as a real program is: its command and keys
// (%[1]s is testsvc, %[2]s its address, %[3]s a pid file's path).
type matrixShape struct {
	name    string
	command string // TOML argv
	keys    string // more keys of [[service]]
	health  string // the [service.health] table's keys
	// workers: the server starts setsid workers, which status must list.
	workers int
	// exit1: the launcher exits 1 while an older instance (the test's,
	// outside svc-ctl) serves: only restart and stop apply.
	exit1 bool
	// grow: a worker can be made to breach [service.limits] memory.
	grow bool
	// mainStop: kill_mode "main" with SIGINT, a server whose SIGTERM waits
	// for a connected client.
	mainStop bool
	// retitles: the server writes over its environment (its marker).
	retitles bool
	// pidFile: the server is proven by its pid file alone.
	pidFile bool
	// ignoresTerm: the server ignores SIGTERM: a stop ends it with SIGKILL
	// at stop_timeout, and is still a stop (exit 0, every member gone).
	ignoresTerm bool
}

var matrixShapes = []matrixShape{
	{name: "launcher-at-once", command: `[%[1]q, "--launch", "at-once", "--", "--addr", %[2]q]`},
	{name: "launcher-waits-ready", command: `[%[1]q, "--launch", "wait-ready", "--ready", "http://%[2]s/health", "--", "--addr", %[2]q]`},
	{name: "double-fork-pidfile", pidFile: true, command: `[%[1]q, "--launch", "double-fork", "--", "--addr", %[2]q, "--pid-file", %[3]q, "--retitle-after", "0s"]`,
		keys: "pid_file = %[3]q\n"},
	{name: "launcher-exit-1", exit1: true,
		command: `[%[1]q, "--launch", "wait-ready", "--ready", "http://%[2]s/health", "--", "--addr", %[2]q]`,
		health:  `exec = [%[1]q, "--check", "http://%[2]s/health"]`},
	{name: "setsid-workers", workers: 2, grow: true, command: `[%[1]q, "--addr", %[2]q, "--setsid-workers", "2", "--worker-mb", "8"]`,
		keys: "[service.limits]\nmemory = \"150MiB\"\nfor = \"1s\"\n"},
	{name: "term-waits-client", workers: 2, mainStop: true,
		command: `[%[1]q, "--addr", %[2]q, "--term-waits-client", "--setsid-workers", "2", "--workers-follow"]`,
		keys:    "kill_mode = \"main\"\nstop_signal = \"SIGINT\"\nstop_timeout = \"8s\"\n"},
	{name: "retitles", retitles: true, command: `[%[1]q, "--launch", "at-once", "--", "--addr", %[2]q, "--retitle-after", "400ms"]`},
	{name: "ignores-sigterm", ignoresTerm: true, command: `[%[1]q, "--addr", %[2]q, "--ignore-term"]`},
	// A wrapper that stays and forwards no signal ("npm start", a script):
	// the stop signals the server itself.
	{name: "wrapper", command: `[%[1]q, "--launch", "wrap", "--", "--addr", %[2]q]`},
}

// matrix is one shape in one mode: its config, its agent, and what the
// steps saw.
type matrix struct {
	t       *testing.T
	sh      matrixShape
	mode    string
	cgroup  string
	addr    string
	port    uint32
	cfgPath string
	cfg     *config.Config
	store   *runtrace.Store
	agent   *exec.Cmd
	// listed is every member status listed last: none may outlive the
	// instance it was a member of.
	listed []proc.Member
	// byPerson: the instance was started by the test as a person (a
	// restart), not by the agent: outside a cgroup it is owned by its
	// record alone (plain), since the CLI is no subreaper.
	byPerson bool
}

func newMatrix(t *testing.T, sh matrixShape, mode, parent string) *matrix {
	m := &matrix{t: t, sh: sh, mode: mode, cgroup: parent, addr: testutil.FreeAddr(t)}
	_, p, _ := strings.Cut(m.addr, ":")
	n, _ := strconv.Atoi(p)
	m.port = uint32(n)
	pidFile := filepath.Join(t.TempDir(), "server.pid")
	health := sh.health
	if health == "" {
		health = `http = "http://%[2]s/health"`
	}
	f := func(s string) string {
		if !strings.Contains(s, "%") {
			return s
		}
		return fmt.Sprintf(s, testsvcBin, m.addr, pidFile)
	}
	keys := f(sh.keys)
	if !strings.Contains(keys, "stop_timeout") {
		keys = "stop_timeout = \"3s\"\n" + keys
	}
	body := fmt.Sprintf(`
[[service]]
name = "web"
command = %s
interval = "1s"
start_timeout = "8s"
%s
[service.health]
%s
timeout = "1s"
confirm = "0s"
[service.restart]
backoff_initial = "1s"
give_up_after = 0
loop_restarts = 0
`, f(sh.command), keys, f(health))
	m.cfgPath, _ = testutil.WriteConfig(t, `drain_timeout = "3s"`, body)
	cfg, err := config.Load(m.cfgPath)
	if err != nil {
		b, _ := os.ReadFile(m.cfgPath)
		t.Fatalf("config: %v\n%s", err, b)
	}
	m.cfg = cfg
	m.store = testenv.Ledger(t, cfg)
	t.Cleanup(func() {
		if t.Failed() {
			b, _ := os.ReadFile(state.PathsOf(cfg).AgentLog())
			t.Logf("agent.log:\n%s", b)
			if rs, err := m.store.Runs(context.Background(), runtrace.Filter{JobID: runtrace.WatchdogID("web")}); err == nil {
				for _, r := range rs {
					t.Logf("row #%d %s/%s %s: %s", r.ID, r.Outcome, r.Reason, r.Trigger, r.Detail)
				}
			}
		}
	})
	return m
}

func (m *matrix) run() {
	m.startAgent()
	if m.sh.exit1 {
		m.launcherExitsOne()
		m.stop()
		return
	}
	m.started(time.Time{})
	m.status()
	if m.sh.retitles {
		m.retitled()
	}
	if m.sh.pidFile {
		m.servedVia("pid_file")
	}
	m.agentKilled()
	m.killMain()
	m.hang()
	m.restart()
	if m.sh.grow {
		m.memoryBreach()
	}
	if m.sh.mainStop {
		m.stopMain()
		return
	}
	m.stop()
}

// startAgent starts an agent process on the shape's config, in the mode.
func (m *matrix) startAgent() {
	m.t.Helper()
	mode := m.mode
	if m.cgroup != "" {
		mode = "cgroup:" + m.cgroup
	}
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), envTestAgent+"="+m.cfgPath, envTestAgentMode+"="+mode)
	cmd.Stdout, cmd.Stderr = io.Discard, os.Stderr
	if err := cmd.Start(); err != nil {
		m.t.Fatal(err)
	}
	m.agent = cmd
	m.t.Cleanup(func() {
		if cmd.ProcessState == nil {
			cmd.Process.Signal(syscall.SIGTERM)
			cmd.Wait()
		}
	})
}

// started waits for the agent's ok/started row begun after since, with
// the service healthy, and returns the row.
func (m *matrix) started(since time.Time) runtrace.Run {
	m.t.Helper()
	var row runtrace.Run
	testutil.WaitFor(m.t, 30*time.Second, "an ok/started row after "+since.Format(time.RFC3339Nano), func() bool {
		rs, _ := m.store.Runs(context.Background(), runtrace.Filter{JobID: runtrace.WatchdogID("web"), Since: since.Truncate(time.Millisecond),
			Reason: runtrace.ReasonStarted, Limit: 1})
		if len(rs) == 0 || !testutil.Healthy(m.addr) {
			return false
		}
		row = rs[0]
		return true
	})
	return row
}

// serving is the process listening on the health port, by the OS's
// socket tables (not by what svc-ctl says).
func (m *matrix) serving() proc.Identity {
	m.t.Helper()
	var h *proc.Holder
	testutil.WaitFor(m.t, 10*time.Second, "the health port's holder", func() bool {
		var err error
		h, err = proc.PortHolder(context.Background(), m.port)
		return err == nil && h != nil && h.Identity.PID == h.PID
	})
	return h.Identity
}

// status: the members status lists include the process serving the port
// (and the workers), it names that process as serving and as a member, and
// the ownership mode is the agent's.
func (m *matrix) status() {
	m.t.Helper()
	srv := m.serving()
	in := m.statusInstance()
	if !slices.ContainsFunc(in.Members, func(x report.Member) bool { return x.PID == srv.PID }) {
		m.t.Fatalf("status lists %+v, not the process serving the port (pid %d)", in.Members, srv.PID)
	}
	if in.Serving == nil || in.Serving.PID != srv.PID || !in.Serving.Member {
		m.t.Fatalf("status serving = %+v, want pid %d, a member", in.Serving, srv.PID)
	}
	if want := m.wantMode(); in.Mode != want && !(m.byPerson && in.Mode == proc.ModePlain) {
		m.t.Fatalf("status mode = %q, want %q", in.Mode, want)
	}
	if got := len(in.Members); got < 1+m.sh.workers {
		m.t.Fatalf("status lists %d members, want the server and its %d workers: %+v", got, m.sh.workers, in.Members)
	}
}

func (m *matrix) wantMode() string {
	switch m.mode {
	case "cgroup":
		return proc.ModeCgroup
	case "subreaper":
		return proc.ModeSubreaper
	}
	return proc.ModePlain
}

// statusInstance is `status web`'s instance, and remembers its members.
func (m *matrix) statusInstance() *report.Instance {
	m.t.Helper()
	r, err := report.BuildStatus(context.Background(), m.cfg, time.Now())
	if err != nil || len(r.Services) != 1 || r.Services[0].Instance == nil {
		m.t.Fatalf("status: %+v, %v", r, err)
	}
	in := r.Services[0].Instance
	m.listed = m.listed[:0]
	for _, x := range in.Members {
		if id, err := proc.IdentityOf(x.PID); err == nil {
			m.listed = append(m.listed, proc.Member{Identity: id})
		}
	}
	return in
}

// noOrphan: no member status listed outlived the instance.
func (m *matrix) noOrphan(what string) {
	m.t.Helper()
	testutil.WaitFor(m.t, 10*time.Second, what+": every member status listed gone", func() bool {
		for _, x := range m.listed {
			if ok, _ := proc.Match(x.Identity); ok {
				return false
			}
		}
		return true
	})
}

// retitled: once the server has written over its environment (its marker
// gone), status still lists it: remembered from before.
func (m *matrix) retitled() {
	m.t.Helper()
	srv := m.serving()
	inst, err := proc.ReadInstance(state.PathsOf(m.cfg).Pid("web"))
	if err != nil || inst.Marker == "" {
		m.t.Fatalf("record %+v, %v: no marker", inst, err)
	}
	testutil.WaitFor(m.t, 10*time.Second, "the server to write over its environment", func() bool {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/environ", srv.PID))
		return err == nil && !strings.Contains(string(b), inst.Marker)
	})
	if in := m.statusInstance(); !slices.ContainsFunc(in.Members, func(x report.Member) bool { return x.PID == srv.PID }) {
		m.t.Fatalf("status no longer lists the retitled server %d: %+v", srv.PID, in.Members)
	}
}

// servedVia: the member serving the port is proven by via.
func (m *matrix) servedVia(via string) {
	m.t.Helper()
	srv := m.serving()
	in := m.statusInstance()
	i := slices.IndexFunc(in.Members, func(x report.Member) bool { return x.PID == srv.PID })
	if i < 0 || in.Members[i].Via != via {
		m.t.Fatalf("the server %d is not a member via %s: %+v", srv.PID, via, in.Members)
	}
}

// agentKilled: SIGKILL the agent, start another: it adopts the instance
// (its first cycle is already-running) and spawns nothing.
func (m *matrix) agentKilled() {
	m.t.Helper()
	srv := m.serving()
	m.agent.Process.Kill()
	m.agent.Wait()
	at := time.Now()
	m.startAgent()
	testutil.WaitFor(m.t, 20*time.Second, "the new agent's first healthy cycle", func() bool {
		rs, _ := m.store.Runs(context.Background(), runtrace.Filter{JobID: runtrace.WatchdogID("web"), Since: at,
			Reason: runtrace.ReasonAlreadyRunning, Limit: 1})
		return len(rs) > 0
	})
	if n, _ := m.store.Count(context.Background(), runtrace.Filter{JobID: runtrace.WatchdogID("web"), Since: at, Reason: runtrace.ReasonStarted}); n != 0 {
		m.t.Fatalf("the new agent spawned %d instance(s) beside the one it should adopt", n)
	}
	if now := m.serving(); !now.Same(srv) {
		m.t.Fatalf("pid %d serves after the agent's restart; pid %d did before", now.PID, srv.PID)
	}
}

// killMain: kill -9 the process serving the port: the agent brings the
// service back, and no member status listed is left (workers included).
func (m *matrix) killMain() {
	m.t.Helper()
	srv := m.serving()
	m.statusInstance()
	at := time.Now()
	syscall.Kill(int(srv.PID), syscall.SIGKILL)
	m.started(at)
	m.noOrphan("kill -9 of the main process")
	if now := m.serving(); now.Same(srv) {
		m.t.Fatal("the killed process still serves")
	}
}

// hang: SIGSTOP the process serving the port: the agent replaces it, its
// row names the stopped process, and it is gone.
func (m *matrix) hang() {
	m.t.Helper()
	srv := m.serving()
	m.statusInstance()
	at := time.Now()
	syscall.Kill(int(srv.PID), syscall.SIGSTOP)
	row := m.started(at)
	if !strings.Contains(string(row.Detail), fmt.Sprintf(`"hung":["pid %d (`, srv.PID)) {
		m.t.Fatalf("the row does not name the hung pid %d: %s", srv.PID, row.Detail)
	}
	snaps, _ := os.ReadFile(state.PathsOf(m.cfg).Snapshots("web"))
	if !strings.Contains(string(snaps), fmt.Sprintf(`"hung":["pid %d (`, srv.PID)) {
		m.t.Fatalf("no snapshot names the hung pid %d", srv.PID)
	}
	m.noOrphan("the hung instance")
}

// restart: a person's restart; a new process serves, the old members are
// gone, the row is ok/restarted.
func (m *matrix) restart() {
	m.t.Helper()
	srv := m.serving()
	m.statusInstance()
	res, err := m.supervisor().Restart(context.Background(), "web")
	if err != nil || res.Outcome != runtrace.OutcomeOK || res.Reason != runtrace.ReasonRestarted {
		m.t.Fatalf("restart = %s/%s %s (%v)", res.Outcome, res.Reason, res.Message, err)
	}
	m.noOrphan("restart")
	if now := m.serving(); now.Same(srv) {
		m.t.Fatal("restart: the old process still serves")
	}
	m.byPerson = true
	m.status()
}

// supervisor is the person's: the CLI's supervisor for the config (in the
// cgroup mode, it puts what it starts beside the agent's, as cmd does).
func (m *matrix) supervisor() *watchdog.Supervisor {
	sup := watchdog.NewSupervisor(m.cfg, m.store, slog.New(slog.DiscardHandler))
	sup.Cgroup = m.cgroup
	return sup
}

// memoryBreach: a worker grows past [service.limits] memory: the limit
// counts it (it left the server's session) and the agent restarts the
// service with cause resource-limit; the worker is gone.
func (m *matrix) memoryBreach() {
	m.t.Helper()
	m.statusInstance()
	at := time.Now()
	resp, err := http.Get("http://" + m.addr + "/control/grow-worker?mb=200")
	if err != nil || resp.StatusCode != http.StatusOK {
		m.t.Fatalf("grow a worker: %v %v", resp, err)
	}
	resp.Body.Close()
	testutil.WaitFor(m.t, 30*time.Second, "a restart for the worker's memory", func() bool {
		rs, _ := m.store.Runs(context.Background(), runtrace.Filter{JobID: runtrace.WatchdogID("web"), Since: at, Reason: runtrace.ReasonStarted})
		for _, r := range rs {
			if strings.Contains(string(r.Detail), `"cause":"resource-limit: memory`) {
				return true
			}
		}
		return false
	})
	m.noOrphan("the memory breach")
	m.started(at)
}

// stop: every member gone, the port free, and the report says so: each
// member ended on the stop signal, or (a server that ignores it) on
// SIGKILL at stop_timeout.
func (m *matrix) stop() {
	m.t.Helper()
	m.statusInstance()
	rep, err := m.supervisor().Stop(context.Background(), "web")
	if err != nil || !rep.Stopped() {
		m.t.Fatalf("stop = %+v, %v", rep, err)
	}
	if !m.sh.exit1 {
		want := "SIGTERM"
		if m.sh.ignoresTerm {
			want = "SIGKILL"
		}
		if len(rep.Members) == 0 {
			m.t.Fatalf("stop found no member: %+v", rep)
		}
		for _, e := range rep.Members {
			if e.Ended != want && e.Ended != "gone" {
				m.t.Errorf("stop: pid %d (%s) ended %q, want %s", e.PID, e.Exe, e.Ended, want)
			}
		}
	}
	m.noOrphan("stop")
	if !m.sh.exit1 && portServed(m.addr) {
		m.t.Fatalf("port %s still served after the stop", m.addr)
	}
}

// stopMain: kill_mode main with stop_signal SIGINT while a client holds a
// connection: the server (whose SIGTERM would wait for the client) ends at
// once on SIGINT, its setsid workers end with it unsignalled, and the stop
// takes far less than stop_timeout.
func (m *matrix) stopMain() {
	m.t.Helper()
	m.statusInstance()
	srv := m.serving()
	conn, err := net.Dial("tcp", m.addr)
	if err != nil {
		m.t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "GET /control/hold HTTP/1.1\r\nHost: x\r\n\r\n")
	buf := make([]byte, 12)
	if _, err := io.ReadFull(conn, buf); err != nil || !strings.HasPrefix(string(buf), "HTTP/1.1 200") {
		m.t.Fatalf("hold a connection: %q %v", buf, err)
	}
	rep, err := m.supervisor().Stop(context.Background(), "web")
	if err != nil || !rep.Stopped() {
		m.t.Fatalf("stop = %+v, %v", rep, err)
	}
	for _, e := range rep.Members {
		switch {
		case e.PID == srv.PID && e.Ended != "SIGINT":
			m.t.Errorf("the main process ended %q, want SIGINT", e.Ended)
		case e.PID != srv.PID && e.Ended != "gone":
			m.t.Errorf("worker %d ended %q, want gone (not signalled one by one)", e.PID, e.Ended)
		}
	}
	var r struct {
		Members []proc.MemberEnd `json:"members"`
	}
	b, _ := json.Marshal(rep)
	json.Unmarshal(b, &r)
	if len(r.Members) < 1+m.sh.workers {
		m.t.Errorf("stop lists %d members, want the server and its %d workers: %s", len(r.Members), m.sh.workers, b)
	}
	if !regexp.MustCompile(`in \d+ms\)`).MatchString(rep.Result) {
		m.t.Errorf("the stop took seconds (%s): SIGINT should end it at once", rep.Result)
	}
	m.noOrphan("stop")
}

// launcherExitsOne: an older instance (the test's own, outside svc-ctl)
// serves; a restart runs the launcher, which cannot start its server and
// exits 1: the row is failed/start-failed with the exit code and its
// output, although the health check passes; the older instance is not
// signalled, and not a member.
func (m *matrix) launcherExitsOne() {
	m.t.Helper()
	older := exec.Command(testsvcBin, "--addr", m.addr)
	if err := older.Start(); err != nil {
		m.t.Fatal(err)
	}
	m.t.Cleanup(func() { older.Process.Kill(); older.Wait() })
	testutil.WaitFor(m.t, 10*time.Second, "the older instance serving", func() bool { return testutil.Healthy(m.addr) })
	oldID, _ := proc.IdentityOf(int32(older.Process.Pid))
	res, err := m.supervisor().Restart(context.Background(), "web")
	if err != nil || res.Outcome != runtrace.OutcomeFailed || res.Reason != runtrace.ReasonStartFailed {
		m.t.Fatalf("restart = %s/%s %s (%v); want failed/start-failed", res.Outcome, res.Reason, res.Message, err)
	}
	if res.Detail.ExitCode == nil || *res.Detail.ExitCode != 1 || !strings.Contains(res.Message, "could not start server") {
		m.t.Fatalf("restart's result does not give the launcher's exit code 1 and output: %s %+v", res.Message, res.Detail)
	}
	if ok, _ := proc.Match(oldID); !ok {
		m.t.Fatal("the older instance was signalled")
	}
	in := m.statusInstance()
	if slices.ContainsFunc(in.Members, func(x report.Member) bool { return x.PID == oldID.PID }) {
		m.t.Fatalf("the older instance is counted as a member: %+v", in.Members)
	}
}

func portServed(addr string) bool {
	c, err := net.DialTimeout("tcp", addr, time.Second)
	if err == nil {
		c.Close()
	}
	return err == nil
}
