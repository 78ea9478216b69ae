package state

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"svcctl/config"
)

func loadConfig(t *testing.T, body string) *config.Config {
	t.Helper()
	dir := t.TempDir()
	path := filepath.Join(dir, "svc-ctl.toml")
	toml := "[agent]\nstate_dir = " + quote(filepath.Join(dir, "state")) + "\n" + body
	if err := os.WriteFile(path, []byte(toml), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Load(path)
	if err != nil {
		t.Fatalf("%v\n%s", err, toml)
	}
	return cfg
}

func quote(s string) string { return "'" + s + "'" }

func sprintf(f string, a ...any) string { return fmt.Sprintf(f, a...) }

const service = `
[[service]]
name = %q
command = ["/bin/true"]
%s
  [service.health]
  tcp = "127.0.0.1:1"
`

// config resolves an empty `log` itself (it sits below this package); the
// default it writes must be the one Paths names.
func TestRuntimeLogDefaultIsConfigs(t *testing.T) {
	cfg := loadConfig(t, sprintf(service, "web", ""))
	p := PathsOf(cfg)
	svc := cfg.Service("web")
	if got, want := p.RuntimeLog(svc), p.DefaultRuntimeLog("web"); got != want {
		t.Fatalf("RuntimeLog = %s, config's default %s; Paths.DefaultRuntimeLog = %s", got, svc.Log, want)
	}
	if got, want := p.PrevLog(svc), filepath.Join(p.ServiceDir("web"), "runtime.prev.log"); got != want {
		t.Fatalf("PrevLog = %s, want %s", got, want)
	}
}

// A custom `log` is where the output is, and where its evidence goes.
func TestRuntimeLogHonoursLogKey(t *testing.T) {
	logDir := t.TempDir()
	custom := filepath.Join(logDir, "proxy-out.txt")
	cfg := loadConfig(t, sprintf(service, "proxy", "log = "+quote(custom)))
	p := PathsOf(cfg)
	svc := cfg.Service("proxy")
	if got := p.RuntimeLog(svc); got != custom {
		t.Fatalf("RuntimeLog = %s, want %s", got, custom)
	}
	if got, want := p.PrevLog(svc), filepath.Join(logDir, "proxy-out.prev.txt"); got != want {
		t.Fatalf("PrevLog = %s, want %s", got, want)
	}
}

func TestEveryFileIsUnderTheStateDir(t *testing.T) {
	p := Paths{State: filepath.Join("x", "state")}
	for _, f := range []string{p.DB(), p.AgentLog(), p.AgentLock(), p.AgentPID(), p.CrashLog(), p.CrashPrevLog(),
		p.WatchdogLast(), p.StdioLog(), p.BackstopLog(), p.Lock("a"), p.Paused("a"), p.Pid("a"), p.StateFile("a"),
		p.Snapshots("a"), p.DefaultRuntimeLog("a"), p.JobPaused("j"), p.JobLog("j"), p.JobPrevLog("j")} {
		rel, err := filepath.Rel(p.State, f)
		if err != nil || rel == "." || filepath.IsAbs(rel) || rel[0] == '.' {
			t.Errorf("%s is not a file under %s", f, p.State)
		}
	}
}
