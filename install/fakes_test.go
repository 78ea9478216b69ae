package install

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"svcctl/internal/testkit"
	"svcctl/winsvc"
)

// fakeManager is an in-memory service manager: it records every call.
type fakeManager struct {
	def        string
	ok         bool
	up         bool
	neverStart bool // start succeeds but the service never runs
	calls      []string
}

func (f *fakeManager) installed() (string, bool, error) { return f.def, f.ok, nil }
func (f *fakeManager) install() error                   { f.calls = append(f.calls, "install"); f.ok = true; return nil }
func (f *fakeManager) uninstall() error {
	f.calls = append(f.calls, "uninstall")
	f.ok, f.def = false, ""
	return nil
}
func (f *fakeManager) start() error {
	f.calls = append(f.calls, "start")
	f.up = !f.neverStart
	return nil
}
func (f *fakeManager) stop() error { f.calls = append(f.calls, "stop"); f.up = false; return nil }
func (f *fakeManager) restart() error {
	f.calls = append(f.calls, "restart")
	f.up = !f.neverStart
	return nil
}
func (f *fakeManager) running() (bool, error) { return f.up, nil }

// fakeHost installs a fake host, manager factory, SCM and runner for one test.
type fakeHost struct {
	target   Target
	userMode bool
	home     string
	exe      string
	mgr      *fakeManager
	built    int               // how many managers were made
	scm      []winsvc.Settings // what was applied, in order
	scmWarn  []winsvc.Warning  // what the fake SCM answers Apply and Check with
	scmErr   error
	run      *recorder
}

func useFakeHost(t *testing.T, target Target, userMode bool) *fakeHost {
	t.Helper()
	dir := t.TempDir()
	exe := filepath.Join(dir, "bin", "svc-ctl")
	if err := os.MkdirAll(filepath.Dir(exe), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(exe, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	f := &fakeHost{target: target, userMode: userMode, home: filepath.Join(dir, "home"), exe: exe, mgr: &fakeManager{}, run: &recorder{}}
	testkit.Replace(t, &host, hostInfo{
		target:     func() Target { return f.target },
		userMode:   func() bool { return f.userMode },
		account:    func() (account, error) { return account{home: f.home, uid: 1000, userID: `EXAMPLE\alice`}, nil },
		executable: func() (string, error) { return f.exe, nil },
		root:       filepath.Join(dir, "root"),
	})
	testkit.Replace(t, &newManager, func(u Unit, s Spec) (manager, error) {
		f.built++
		return f.mgr, nil
	})
	testkit.Replace(t, &applySCMSettings, func(name string, s winsvc.Settings) ([]winsvc.Warning, error) {
		f.mgr.calls = append(f.mgr.calls, "settings")
		f.scm = append(f.scm, s)
		return f.scmWarn, f.scmErr
	})
	testkit.Replace(t, &checkSCMSettings, func(name string, s winsvc.Settings) ([]winsvc.Warning, error) { return f.scmWarn, f.scmErr })
	testkit.Replace(t, &osRunner, runner(f.run))
	return f
}

// writeConfig writes a valid config (one service) and returns its path.
func writeConfig(t *testing.T, dir, drain string) string {
	t.Helper()
	p := filepath.Join(dir, "svc-ctl.toml")
	body := fmt.Sprintf(`[agent]
state_dir = %q
drain_timeout = %q

[[service]]
name = "demo"
command = ["/bin/true"]
  [service.health]
  tcp = "127.0.0.1:1"

[[service]]
name = "demo2"
command = ["/bin/true"]
  [service.health]
  tcp = "127.0.0.1:1"
`, filepath.Join(dir, "state"), drain)
	if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// recorder records OS commands; on, when set, decides each one's outcome.
type recorder struct {
	mu    sync.Mutex
	calls []string
	on    func(argv []string) error
}

func (r *recorder) run(_ context.Context, argv ...string) ([]byte, error) {
	r.mu.Lock()
	r.calls = append(r.calls, strings.Join(argv, " "))
	on := r.on
	r.mu.Unlock()
	if on != nil {
		return nil, on(argv)
	}
	return nil, nil
}

func (r *recorder) got() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.calls...)
}

// touch writes watchdog.last.json as `svc-ctl start --all` would: a cycle
// of each configured service (writeConfig's), now.
func touch(path string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	return os.WriteFile(path, lastJSON(time.Now(), "demo", "demo2"), 0o600)
}

// lastJSON is a watchdog.last.json with a cycle of each named service at at.
func lastJSON(at time.Time, names ...string) []byte {
	ts := at.Format(time.RFC3339Nano)
	var svcs []string
	for _, n := range names {
		svcs = append(svcs, fmt.Sprintf(`%q:{"time":%q,"trigger":"schedule","outcome":"ok","reason":"already-running"}`, n, ts))
	}
	return []byte(fmt.Sprintf(`{"updated_at":%q,"services":{%s}}`, ts, strings.Join(svcs, ",")))
}
