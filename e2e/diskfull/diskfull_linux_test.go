package diskfull

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"svcctl/internal/testsvc"
	"svcctl/internal/testutil"
	"svcctl/proc"
	"svcctl/runtrace"
	"svcctl/state"
)

// gate is why the test skips, or "".
var gate string

var svcctlBin, testsvcBin string

func TestMain(m *testing.M) {
	switch {
	case os.Getenv("SVCCTL_E2E_PRIVILEGED") != "1":
		gate = "set SVCCTL_E2E_PRIVILEGED=1 (as root) to run the disk-full end-to-end test (it mounts a tmpfs)"
	case os.Geteuid() != 0:
		gate = "the disk-full end-to-end test needs root (it mounts a tmpfs)"
	}
	if gate != "" {
		os.Exit(m.Run())
	}
	dir, err := os.MkdirTemp("", "svcctl-e2e-diskfull-bin-")
	if err == nil {
		svcctlBin, err = testutil.GoBuild(dir, "./cmd/svc-ctl")
	}
	if err == nil {
		testsvcBin, err = testsvc.Build(dir)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "disk-full e2e setup:", err)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// host is one state dir on its own small tmpfs, with its config.
type host struct {
	t       *testing.T
	work    string // outside the tmpfs: config, agent output
	state   string // the tmpfs
	p       state.Paths
	cfg     string
	addr    string // the service's
	metrics string
	hook    *hook
}

// hook is a webhook receiver: the events the agent sends, as they arrive.
type hook struct {
	mu  sync.Mutex
	evs []map[string]any
	srv *httptest.Server
}

func newHook(t *testing.T) *hook {
	h := &hook{}
	h.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var ev map[string]any
		if json.NewDecoder(r.Body).Decode(&ev) == nil {
			h.mu.Lock()
			h.evs = append(h.evs, ev)
			h.mu.Unlock()
		}
	}))
	t.Cleanup(h.srv.Close)
	return h
}

// agentEvents are the `agent` events received whose message says what.
func (h *hook) agentEvents(what string) []map[string]any {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []map[string]any
	for _, ev := range h.evs {
		if ev["kind"] == "agent" && strings.Contains(fmt.Sprint(ev["message"]), what) {
			out = append(out, ev)
		}
	}
	return out
}

// tmpfsSize is small, but leaves the ledger room to grow its WAL first.
const tmpfsSize = "8m"

func newHost(t *testing.T) *host {
	t.Helper()
	if gate != "" {
		t.Skip(gate)
	}
	work := t.TempDir()
	h := &host{t: t, work: work, state: filepath.Join(work, "state"), addr: testutil.FreeAddr(t), metrics: testutil.FreeAddr(t),
		hook: newHook(t)}
	h.p = state.Paths{State: h.state}
	if err := os.Mkdir(h.state, 0o700); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size="+tmpfsSize+",mode=0700", "svcctl-e2e-diskfull", h.state).CombinedOutput(); err != nil {
		t.Fatalf("mount tmpfs on %s: %v: %s", h.state, err, out)
	}
	t.Cleanup(h.unmount)
	svc := testutil.Service{Name: "web", Addr: h.addr, Interval: "2s", StartTimeout: "5s"}
	toml := fmt.Sprintf("[agent]\nstate_dir = %q\nheartbeat = \"1s\"\ndrain_timeout = \"3s\"\nmetrics_listen = %q\n%s"+
		"\n[[notify]]\nname = \"hook\"\nkind = \"webhook\"\nurl = %q\ntimeout = \"2s\"\nmin_interval = \"0s\"\n",
		h.state, h.metrics, svc.TOML(testsvcBin), h.hook.srv.URL)
	h.cfg = filepath.Join(work, "svc-ctl.toml")
	if err := os.WriteFile(h.cfg, []byte(toml), 0o600); err != nil {
		t.Fatal(err)
	}
	return h
}

// unmount stops the service the agent left running (it is detached by
// design), unmounts the tmpfs (lazily if something still holds it) and
// removes the spill files of this ledger: cleanup runs whatever happened.
func (h *host) unmount() {
	if id, err := proc.ReadPidFile(h.p.Pid("web")); err == nil {
		proc.Stop(context.Background(), id, 2*time.Second)
	}
	// Whatever still holds a file on this mount was started by this test
	// (the mount is new): a service instance the pid file did not name.
	for _, pid := range holders(h.state) {
		h.t.Logf("process %d still holds a file under %s: killed", pid, h.state)
		syscall.Kill(pid, syscall.SIGKILL)
	}
	if out, err := exec.Command("umount", h.state).CombinedOutput(); err != nil {
		h.t.Logf("umount %s: %v: %s; unmounting lazily", h.state, err, out)
		exec.Command("umount", "-l", h.state).Run()
	}
	for _, dir := range runtrace.SpillDirs(h.p.DB()) {
		m, _ := filepath.Glob(filepath.Join(dir, "spill-*"))
		for _, f := range m {
			if b, err := os.ReadFile(f); err == nil && bytes.Contains(b, []byte(h.p.DB())) {
				os.Remove(f)
			}
		}
	}
}

// holders lists the processes with an open file or their working directory
// under dir.
func holders(dir string) []int {
	var out []int
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		links := []string{filepath.Join("/proc", e.Name(), "cwd")}
		fds, _ := os.ReadDir(filepath.Join("/proc", e.Name(), "fd"))
		for _, fd := range fds {
			links = append(links, filepath.Join("/proc", e.Name(), "fd", fd.Name()))
		}
		for _, l := range links {
			if t, err := os.Readlink(l); err == nil && (t == dir || strings.HasPrefix(t, dir+"/")) {
				out = append(out, pid)
				break
			}
		}
	}
	return out
}

// agentProc is a running `svc-ctl agent`.
type agentProc struct {
	cmd  *exec.Cmd
	done chan error
}

func (h *host) startAgent(name string) *agentProc {
	h.t.Helper()
	// --managed: the agent an OS service runs, whose stderr takes only the
	// lines agent.log refuses (a foreground agent copies every line there too)
	cmd := exec.Command(svcctlBin, "agent", "--managed", "--config", h.cfg)
	out, err := os.Create(filepath.Join(h.work, name+".stderr"))
	if err != nil {
		h.t.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		h.t.Fatal(err)
	}
	a := &agentProc{cmd: cmd, done: make(chan error, 1)}
	go func() { a.done <- cmd.Wait(); out.Close() }()
	h.t.Cleanup(func() { a.stop(h.t) })
	testutil.WaitFor(h.t, 20*time.Second, "the agent up and the service healthy", func() bool {
		r, err := state.ReadAgentReport(h.p)
		_, lerr := os.Stat(h.p.WatchdogLast())
		return err == nil && r.PID == cmd.Process.Pid && testutil.Healthy(h.addr) && lerr == nil
	})
	return a
}

// stop sends SIGTERM and waits for the agent to end.
func (a *agentProc) stop(t *testing.T) {
	if a.cmd.ProcessState != nil {
		return
	}
	a.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-a.done:
	case <-time.After(20 * time.Second):
		a.cmd.Process.Kill()
		<-a.done
		t.Error("the agent did not stop within 20s of SIGTERM")
	}
}

// fill writes into the tmpfs until it refuses: the disk is full.
func (h *host) fill() {
	h.t.Helper()
	f, err := os.OpenFile(filepath.Join(h.state, "fill"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		h.t.Fatal(err)
	}
	defer f.Close()
	for _, size := range []int{1 << 20, 4096, 1} {
		buf := make([]byte, size)
		for {
			if _, err := f.Write(buf); err != nil {
				if !errors.Is(err, syscall.ENOSPC) {
					h.t.Fatalf("fill: %v", err)
				}
				break
			}
		}
	}
}

func (h *host) free() {
	h.t.Helper()
	if err := os.Remove(filepath.Join(h.state, "fill")); err != nil {
		h.t.Fatal(err)
	}
}

func (h *host) report() *state.AgentReport {
	r, err := state.ReadAgentReport(h.p)
	if err != nil {
		return &state.AgentReport{}
	}
	return r
}

func (h *host) cli(args ...string) (string, int) {
	h.t.Helper()
	out, err := exec.Command(svcctlBin, append(args, "--config", h.cfg)...).CombinedOutput()
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		h.t.Fatalf("svc-ctl %v: %v", args, err)
	}
	return string(out), code
}

func (h *host) scrape() string {
	resp, err := http.Get("http://" + h.metrics + "/metrics")
	if err != nil {
		return ""
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return string(b)
}

var startedRe = regexp.MustCompile(`svcctl_cycles_total\{service="web",outcome="ok",reason="started"\} (\d+)`)
var cyclesRe = regexp.MustCompile(`svcctl_cycles_total\{service="web",[^}]*\} (\d+)`)

// restarts is how many restarts this agent made, by its metrics.
func (h *host) restarts() int {
	m := startedRe.FindStringSubmatch(h.scrape())
	if m == nil {
		return 0
	}
	n, _ := strconv.Atoi(m[1])
	return n
}

func (h *host) cycles() int {
	n := 0
	for _, m := range cyclesRe.FindAllStringSubmatch(h.scrape(), -1) {
		c, _ := strconv.Atoi(m[1])
		n += c
	}
	return n
}

// killService SIGKILLs the running instance (the pid file may be stale on
// a full disk: the instance is found by its health port's owner instead).
func (h *host) killService() time.Time {
	h.t.Helper()
	id, err := proc.ReadPidFile(h.p.Pid("web"))
	if err != nil {
		h.t.Fatal(err)
	}
	if ok, _ := proc.Match(id); !ok {
		h.t.Fatalf("pid file names %d, which is not the running instance", id.PID)
	}
	at := time.Now()
	if err := syscall.Kill(int(id.PID), syscall.SIGKILL); err != nil {
		h.t.Fatal(err)
	}
	return at
}

func (h *host) runs(t *testing.T, job string) []runtrace.Run {
	t.Helper()
	st, err := runtrace.Open(h.p.DB(), runtrace.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	rs, err := st.Runs(context.Background(), runtrace.Filter{JobID: job, Limit: 10000})
	if err != nil {
		t.Fatal(err)
	}
	return rs
}

// restartRow finds the ok/started row of the restart after a kill at `at`.
func restartRow(rs []runtrace.Run, at time.Time) *runtrace.Run {
	for i := range rs {
		r := &rs[i]
		if r.Reason == runtrace.ReasonStarted && !r.StartedAt.Before(at.Add(-time.Second)) && r.StartedAt.Before(at.Add(10*time.Second)) {
			return r
		}
	}
	return nil
}

func (h *host) logs() string {
	var b strings.Builder
	m, _ := filepath.Glob(filepath.Join(h.state, "agent*.log"))
	m2, _ := filepath.Glob(filepath.Join(h.work, "*.stderr"))
	for _, f := range append(m, m2...) {
		data, _ := os.ReadFile(f)
		b.Write(data)
	}
	return b.String()
}

// TestDiskFullLosesNothing: on a real full disk, no row, decision or evidence
// is lost (docs/design/durability.md, "When the disk refuses a write").
func TestDiskFullLosesNothing(t *testing.T) {
	h := newHost(t)
	a := h.startAgent("agent1")
	agentStart := time.Now()

	h.fill()
	testutil.WaitFor(t, 20*time.Second, "agent.status to say the ledger cannot be written: disk full", func() bool {
		r := h.report()
		return !r.Ledger.Up && r.Ledger.Cause == runtrace.CauseDiskFull
	})
	restartsBefore := h.restarts()
	killedAt := h.killService()
	testutil.WaitFor(t, 20*time.Second, "the killed service restored while the disk is full", func() bool {
		return h.restarts() > restartsBefore && testutil.Healthy(h.addr)
	})
	if took := time.Since(killedAt); took > 10*time.Second {
		t.Errorf("the restart on a full disk took %s", took)
	} else {
		t.Logf("killed service restored on the full disk within %s (as seen by polling /metrics)", took.Round(time.Millisecond))
	}

	// status: the ledger line, and a running agent, not a stale one
	var out string
	testutil.WaitFor(t, 30*time.Second, "status to call the agent running but unable to renew its heartbeat", func() bool {
		out, _ = h.cli("status")
		return strings.Contains(out, "agent:  running (cannot renew its heartbeat: disk full")
	})
	t.Logf("svc-ctl status on the full disk:\n%s", out)
	wantLine := regexp.MustCompile(`ledger: WRITE FAILING since \d{4}-\d\d-\d\d \d\d:\d\d:\d\d\S*: disk full \(0 B free on ` + regexp.QuoteMeta(h.state) + `\), [1-9]\d* rows waiting`)
	if !wantLine.MatchString(out) {
		t.Errorf("status does not say the disk is full:\n%s", out)
	}
	// verify: the ledger check and the cause on each check the disk fails
	out, code := h.cli("verify")
	t.Logf("svc-ctl verify on the full disk:\n%s", out)
	if code != 1 || !regexp.MustCompile(`FAIL\s+ledger writable\s+WRITE FAILING since .*disk full`).MatchString(out) {
		t.Errorf("verify (exit %d) does not fail 'ledger writable' naming the disk:\n%s", code, out)
	}
	for _, line := range strings.Split(out, "\n") {
		if strings.HasPrefix(line, "FAIL") && strings.Contains(line, "heartbeat fresh") && !strings.Contains(line, "disk full") {
			t.Errorf("verify fails a check without naming the cause: %s", line)
		}
	}
	// metrics
	m := h.scrape()
	for _, want := range []string{"svcctl_ledger_up 0", `svcctl_ledger_write_failing{cause="disk-full"} 1`} {
		if !strings.Contains(m, want) {
			t.Errorf("metrics lack %q", want)
		}
	}
	if p := regexp.MustCompile(`svcctl_ledger_pending_rows (\d+)`).FindStringSubmatch(m); p == nil || p[1] == "0" {
		t.Errorf("svcctl_ledger_pending_rows = %v, want > 0", p)
	}

	// people were told at once, although the outbox is on the full disk
	testutil.WaitFor(t, 10*time.Second, "the ledger-down event, sent directly", func() bool {
		return len(h.hook.agentEvents("cannot write its ledger: disk full")) > 0
	})

	// Space returns: every row is written, the restart with its true time.
	h.free()
	testutil.WaitFor(t, 20*time.Second, "the ledger to take writes again", func() bool {
		r := h.report()
		return r.Ledger.Up && r.Ledger.Pending == 0
	})
	rep := h.report()
	if rep.Ledger.WrittenLate == 0 || rep.Ledger.Lost != 0 {
		t.Errorf("after recovery: %+v, want rows written late and none lost", rep.Ledger)
	}
	c1 := h.cycles()
	rs := h.runs(t, "watchdog:web")
	c2 := h.cycles()
	n := 0
	for _, r := range rs {
		if !r.StartedAt.Before(agentStart.Add(-2 * time.Second)) {
			n++
		}
	}
	// every cycle this agent finished has its row (one may be in flight)
	if n < c1 || n > c2+1 {
		t.Errorf("%d rows of watchdog:web since the agent started, but it finished %d..%d cycles", n, c1, c2)
	}
	r := restartRow(rs, killedAt)
	if r == nil {
		t.Fatalf("no ok/started row for the restart after the kill at %s in %+v", killedAt, rs)
	}
	if r.Trigger != runtrace.TriggerEvent || r.FinishedAt.Before(r.StartedAt) || r.FinishedAt.After(killedAt.Add(10*time.Second)) {
		t.Errorf("restart row %+v: want trigger event, finished within seconds of the kill at %s", *r, killedAt)
	}
	for i := 1; i < len(rs); i++ { // newest first, ids in the order of the runs
		if rs[i].StartedAt.After(rs[i-1].StartedAt) {
			t.Errorf("rows out of order: %d at %s before %d at %s", rs[i].ID, rs[i].StartedAt, rs[i-1].ID, rs[i-1].StartedAt)
		}
	}
	// the condition told once when it started and once when it ended
	logs := h.logs()
	if c := strings.Count(logs, `"msg":"ledger.write_failing"`); c != 1 {
		t.Errorf("ledger.write_failing logged %d times, want 1", c)
	}
	if c := strings.Count(logs, `"msg":"ledger.recovered"`); c != 1 {
		t.Errorf("ledger.recovered logged %d times, want 1", c)
	}
	if c := strings.Count(logs, `"level":"ERROR"`); c > 10 {
		t.Errorf("%d ERROR lines for one outage, want a handful:\n%s", c, logs)
	}
	if data, _ := os.ReadFile(h.p.AgentLog()); !strings.Contains(string(data), `"msg":"ledger.recovered"`) {
		t.Errorf("agent.log takes lines again after the outage: ledger.recovered is not in it")
	}
	h.checkEvents(t)
	testutil.WaitFor(t, 15*time.Second, "the recovery event, through the outbox", func() bool {
		return len(h.hook.agentEvents("writes its ledger again")) > 0
	})
	ids := map[any]bool{}
	for _, ev := range h.hook.agentEvents("cannot write its ledger") {
		ids[ev["id"]] = true
	}
	if len(ids) != 1 {
		t.Errorf("the ledger-down event arrived under %d ids, want 1 (the queued copy keeps the direct one's id)", len(ids))
	}
	// the pid file written on the full disk's behalf, by the first cycle that could
	testutil.WaitFor(t, 10*time.Second, "the pid file to name the running instance", func() bool {
		id, err := proc.ReadPidFile(h.p.Pid("web"))
		ok, _ := proc.Match(id)
		return err == nil && ok
	})
	if !strings.Contains(h.logs(), `"msg":"state.write_recovered"`) {
		t.Error("state.write_recovered not logged once the files were written")
	}

	// The agent stopped while rows wait: they are spilled, and written by
	// the next agent.
	h.fill()
	testutil.WaitFor(t, 20*time.Second, "the ledger down again", func() bool { return !h.report().Ledger.Up })
	restartsBefore = h.restarts()
	killedAt2 := h.killService()
	testutil.WaitFor(t, 20*time.Second, "the second restart", func() bool {
		return h.restarts() > restartsBefore && testutil.Healthy(h.addr)
	})
	a.stop(t)
	rep = h.report()
	if rep.StoppedAt.IsZero() || rep.Spill == "" || rep.Lost != 0 {
		t.Fatalf("agent.status after the stop = %+v, want a spill file and nothing lost", rep)
	}
	if _, err := os.Stat(rep.Spill); err != nil {
		t.Fatalf("spill file: %v", err)
	}
	h.free()
	h.startAgent("agent2")
	testutil.WaitFor(t, 20*time.Second, "the spilled restart row in run_trace", func() bool {
		return restartRow(h.runs(t, "watchdog:web"), killedAt2) != nil
	})
	if _, err := os.Stat(rep.Spill); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("spill file %s still there after the import: %v", rep.Spill, err)
	}
	if !strings.Contains(h.logs(), `"msg":"ledger.spill_imported"`) {
		t.Error("the import of the spill file is not logged")
	}
	for _, r := range h.runs(t, "agent") {
		if r.Reason == runtrace.ReasonRowsLost {
			t.Errorf("rows-lost recorded although nothing was lost: %s", r.Detail)
		}
	}
}

// checkEvents: one agent event when the ledger went down and one when it
// came back, in the outbox, written when the ledger took writes again.
func (h *host) checkEvents(t *testing.T) {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+h.p.DB()+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.Query(`SELECT event FROM outbox WHERE subject = 'agent' ORDER BY created_at`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var msgs []string
	for rows.Next() {
		var ev string
		rows.Scan(&ev)
		msgs = append(msgs, ev)
	}
	if len(msgs) != 2 || !strings.Contains(msgs[0], "cannot write its ledger: disk full") || !strings.Contains(msgs[1], "writes its ledger again") {
		t.Errorf("agent events = %v, want ledger down then recovered", msgs)
	}
}

// TestReadOnlyLogStillStarts: a service whose log is on a file system that
// refuses writes (read-only, as after errors=remount-ro) is still started;
// the row says its output was discarded, and why.
func TestReadOnlyLogStillStarts(t *testing.T) {
	h := newHost(t)
	ro := filepath.Join(h.work, "ro")
	if err := os.Mkdir(ro, 0o700); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=1m,mode=0700,ro", "svcctl-e2e-ro", ro).CombinedOutput(); err != nil {
		t.Fatalf("mount read-only tmpfs: %v: %s", err, out)
	}
	t.Cleanup(func() {
		if err := exec.Command("umount", ro).Run(); err != nil {
			exec.Command("umount", "-l", ro).Run()
		}
	})
	svc := testutil.Service{Name: "web", Addr: h.addr, ExtraTOML: fmt.Sprintf("log = %q\n", filepath.Join(ro, "web.log"))}
	toml := fmt.Sprintf("[agent]\nstate_dir = %q\n%s", h.state, svc.TOML(testsvcBin))
	if err := os.WriteFile(h.cfg, []byte(toml), 0o600); err != nil {
		t.Fatal(err)
	}
	out, code := h.cli("start", "web")
	if code != 0 || !testutil.Healthy(h.addr) {
		t.Fatalf("svc-ctl start with a read-only log: exit %d\n%s", code, out)
	}
	rs := h.runs(t, "watchdog:web")
	if len(rs) == 0 || rs[0].Reason != runtrace.ReasonStarted || !strings.Contains(string(rs[0].Detail), "discarded") ||
		!strings.Contains(string(rs[0].Detail), "read-only file system") {
		t.Fatalf("row = %+v, want ok/started noting the discarded output", rs)
	}
}
