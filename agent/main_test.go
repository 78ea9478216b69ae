//go:build linux

package agent

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"svcctl/config"
	"svcctl/internal/testsvc"
	"svcctl/proc"
	"svcctl/runtrace"
	"svcctl/state"
)

var testsvcBin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "svcctl-agent-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	testsvcBin, err = testsvc.Build(dir)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// freeAddr returns a loopback address nobody listens on right now.
func freeAddr(t testing.TB) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr
}

type svcOpts struct {
	name, addr   string
	extraArgs    []string
	command      []string // replaces the testsvc command
	interval     string
	startTimeout string
	confirm      string
	giveUpAfter  int
	retryGivenUp string
	backoff      string
	env          map[string]string
	extraToml    string
}

// testEnv is one state dir and config with the given services, loaded
// through the real config loader.
type testEnv struct {
	t     testing.TB
	dir   string
	cfg   *config.Config
	store *runtrace.Store
	sup   *Supervisor
}

func newEnv(t testing.TB, svcs ...svcOpts) *testEnv {
	t.Helper()
	dir := t.TempDir()
	var b strings.Builder
	fmt.Fprintf(&b, "[agent]\nstate_dir = %q\nheartbeat = \"1s\"\ndrain_timeout = \"3s\"\n", filepath.Join(dir, "state"))
	for _, s := range svcs {
		writeService(&b, s)
	}
	path := filepath.Join(dir, "svc-ctl.toml")
	if err := os.WriteFile(path, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Load(path)
	if err != nil {
		t.Fatalf("config: %v\n%s", err, b.String())
	}
	st, err := runtrace.Open(state.PathsOf(cfg).DB(), runtrace.Options{})
	if err != nil {
		t.Fatal(err)
	}
	e := &testEnv{t: t, dir: dir, cfg: cfg, store: st}
	e.sup = NewSupervisor(cfg, st, slog.New(slog.NewTextHandler(io.Discard, nil)))
	t.Cleanup(func() {
		for _, s := range cfg.Services {
			e.stopService(s.Name)
		}
		st.Close()
	})
	return e
}

func writeService(b *strings.Builder, s svcOpts) {
	cmd := s.command
	if cmd == nil {
		cmd = append([]string{testsvcBin, "--addr", s.addr}, s.extraArgs...)
	}
	q := make([]string, len(cmd))
	for i, c := range cmd {
		q[i] = fmt.Sprintf("%q", c)
	}
	def := func(v, d string) string {
		if v == "" {
			return d
		}
		return v
	}
	fmt.Fprintf(b, "\n[[service]]\nname = %q\ncommand = [%s]\ninterval = %q\nstart_timeout = %q\nstop_timeout = \"2s\"\n",
		s.name, strings.Join(q, ", "), def(s.interval, "10m"), def(s.startTimeout, "5s"))
	if len(s.env) > 0 {
		b.WriteString("env = { ")
		i := 0
		for k, v := range s.env {
			if i > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(b, "%s = %q", k, v)
			i++
		}
		b.WriteString(" }\n")
	}
	b.WriteString(s.extraToml)
	fmt.Fprintf(b, "[service.health]\nhttp = \"http://%s/health\"\ntimeout = \"1s\"\nconfirm = %q\n", s.addr, def(s.confirm, "0s"))
	fmt.Fprintf(b, "[service.restart]\nbackoff_initial = %q\nbackoff_max = \"2h\"\ngive_up_after = %d\nretry_given_up = %q\n",
		def(s.backoff, "1s"), s.giveUpAfter, def(s.retryGivenUp, "1h"))
}

// stopService kills whatever instance the pid file names (identity-checked).
func (e *testEnv) stopService(name string) {
	id, err := proc.ReadPidFile(e.sup.Paths.Pid(name))
	if err != nil {
		return
	}
	proc.Stop(context.Background(), id, 2*time.Second)
}

func (e *testEnv) ensure(name string, req Request) Result {
	e.t.Helper()
	if req.Trigger == "" {
		req.Trigger = runtrace.TriggerManual
	}
	return e.sup.Ensure(context.Background(), name, req)
}

func (e *testEnv) pid(name string) proc.Identity {
	e.t.Helper()
	id, err := proc.ReadPidFile(e.sup.Paths.Pid(name))
	if err != nil {
		e.t.Fatalf("pid file of %s: %v", name, err)
	}
	return id
}

func healthy(addr string) bool {
	c := http.Client{Timeout: 500 * time.Millisecond}
	r, err := c.Get("http://" + addr + "/health")
	if err != nil {
		return false
	}
	r.Body.Close()
	return r.StatusCode == 200
}

func get(t *testing.T, url string) {
	t.Helper()
	c := http.Client{Timeout: 2 * time.Second}
	r, err := c.Get(url)
	if err == nil {
		r.Body.Close()
	}
}

// waitFor polls cond until it holds or the deadline passes.
func waitFor(t *testing.T, d time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %s waiting for %s", d, what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func wantResult(t *testing.T, r Result, outcome runtrace.Outcome, reason runtrace.Reason) {
	t.Helper()
	if r.Outcome != outcome || r.Reason != reason {
		t.Fatalf("got %s/%s (%s), want %s/%s", r.Outcome, r.Reason, r.Message, outcome, reason)
	}
}

// testsvcPIDs lists the live processes running the testsvc binary.
func testsvcPIDs(t *testing.T) map[int32]bool {
	t.Helper()
	out := map[int32]bool{}
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		var pid int32
		if _, err := fmt.Sscanf(e.Name(), "%d", &pid); err != nil {
			continue
		}
		exe, err := os.Readlink(filepath.Join("/proc", e.Name(), "exe"))
		if err == nil && exe == testsvcBin && proc.Alive(pid) {
			out[pid] = true
		}
	}
	return out
}
