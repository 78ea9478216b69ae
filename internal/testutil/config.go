package testutil

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"svcctl/config"
)

// Service is a [[service]] block for a test config. Empty fields take the
// defaults noted beside them.
type Service struct {
	Name, Addr   string
	Args         []string // after testsvc --addr ADDR
	Command      []string // replaces the testsvc command
	Interval     string   // 10m
	StartTimeout string   // 5s
	Confirm      string   // 0s
	GiveUpAfter  int
	RetryGivenUp string // 1h
	Backoff      string // 1s
	// LoopRestarts and LoopWindow: [service.restart] loop_restarts and
	// loop_window, when set (else svc-ctl's defaults: 5 in 2m).
	LoopRestarts, LoopWindow string
	Env                      map[string]string
	ExtraTOML                string // more keys of [[service]], before its health table
}

// TOML renders the block; testsvc is the path of the testsvc binary.
func (s Service) TOML(testsvc string) string {
	cmd := s.Command
	if cmd == nil {
		cmd = append([]string{testsvc, "--addr", s.Addr}, s.Args...)
	}
	q := make([]string, len(cmd))
	for i, c := range cmd {
		q[i] = fmt.Sprintf("%q", c)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "\n[[service]]\nname = %q\ncommand = [%s]\ninterval = %q\nstart_timeout = %q\nstop_timeout = \"2s\"\n",
		s.Name, strings.Join(q, ", "), or(s.Interval, "10m"), or(s.StartTimeout, "5s"))
	if len(s.Env) > 0 {
		keys := make([]string, 0, len(s.Env))
		for k := range s.Env {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for i, k := range keys {
			keys[i] = fmt.Sprintf("%s = %q", k, s.Env[k])
		}
		fmt.Fprintf(&b, "env = { %s }\n", strings.Join(keys, ", "))
	}
	b.WriteString(s.ExtraTOML)
	fmt.Fprintf(&b, "[service.health]\nhttp = \"http://%s/health\"\ntimeout = \"1s\"\nconfirm = %q\n", s.Addr, or(s.Confirm, "0s"))
	fmt.Fprintf(&b, "[service.restart]\nbackoff_initial = %q\nbackoff_max = \"2h\"\ngive_up_after = %d\nretry_given_up = %q\n",
		or(s.Backoff, "1s"), s.GiveUpAfter, or(s.RetryGivenUp, "1h"))
	if s.LoopRestarts != "" {
		fmt.Fprintf(&b, "loop_restarts = %s\n", s.LoopRestarts)
	}
	if s.LoopWindow != "" {
		fmt.Fprintf(&b, "loop_window = %q\n", s.LoopWindow)
	}
	return b.String()
}

func or(v, d string) string {
	if v == "" {
		return d
	}
	return v
}

// WriteConfig writes svc-ctl.toml in a fresh temp dir with its state dir
// beside it: [agent] with state_dir, a 1s heartbeat and agentExtra, then
// body. It returns the file's path and the state dir.
func WriteConfig(t testing.TB, agentExtra, body string) (path, stateDir string) {
	t.Helper()
	dir := t.TempDir()
	stateDir = filepath.Join(dir, "state")
	toml := fmt.Sprintf("[agent]\nstate_dir = %q\nheartbeat = \"1s\"\n%s\n%s", stateDir, agentExtra, body)
	path = filepath.Join(dir, "svc-ctl.toml")
	if err := os.WriteFile(path, []byte(toml), 0o600); err != nil {
		t.Fatal(err)
	}
	return path, stateDir
}

// Config writes a config as WriteConfig does and loads it through the real
// loader.
func Config(t testing.TB, agentExtra, body string) *config.Config {
	t.Helper()
	path, _ := WriteConfig(t, agentExtra, body)
	cfg, err := config.Load(path)
	if err != nil {
		b, _ := os.ReadFile(path)
		t.Fatalf("config: %v\n%s", err, b)
	}
	return cfg
}
