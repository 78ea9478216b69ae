package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestConfigCheckIsPasteable: `config check` prints the resolved
// config in the file's own TOML keys, every default filled in, so that what
// it prints loads again as the same config: a key it prints that the
// loader refuses (or one it drops, like a file dependency's path) is a bug.
func TestConfigCheckIsPasteable(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "svc-ctl.toml")
	body := `[agent]
state_dir = "state"

[[service]]
name = "proxy"
command = ["/usr/local/bin/proxy", "--port", "8789"]
env = { LANG = "C.UTF-8" }
  [service.health]
  tcp = "127.0.0.1:8789"
  [[service.depends]]
  kind = "file"
  path = "/srv/proxy/ready"
  max_age = "1d"
  [[service.depends]]
  kind = "cert"
  path = "/srv/proxy/client.pem"
  min_valid = "72h"
  [service.limits]
  memory = "500MiB"
  cpu = "90%"

[[job]]
name = "pull"
schedule = "30 9 * * *"
timezone = "Asia/Shanghai"
command = ["/srv/bin/pull"]

[[notify]]
name = "hook"
kind = "webhook"
url = "https://hooks.example.com/svc-ctl"
`
	if err := os.WriteFile(cfg, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	first := svcctl(t, "config", "check", "--config", cfg)
	if first.code != 0 {
		t.Fatalf("config check: %+v", first)
	}
	for _, key := range []string{"[[service]]", "[service.health]", "[[service.depends]]", "path = " + tomlLiteral(resolvedPath(cfg, "/srv/proxy/ready")), "[service.limits]",
		"memory = '500MiB'", "cpu = '90%'", "for = '5m'", "[[job]]", "timezone = 'Asia/Shanghai'", "grace = '5m'", "[[notify]]"} {
		if !strings.Contains(first.stdout, key) {
			t.Errorf("config check lacks %s:\n%s", key, first.stdout)
		}
	}
	pasted := filepath.Join(dir, "pasted.toml")
	if err := os.WriteFile(pasted, []byte(first.stdout), 0o600); err != nil {
		t.Fatal(err)
	}
	second := svcctl(t, "config", "check", "--config", pasted)
	if second.code != 0 {
		t.Fatalf("what config check printed does not load: %+v", second)
	}
	body1 := first.stdout[strings.Index(first.stdout, "\n")+1:]
	body2 := second.stdout[strings.Index(second.stdout, "\n")+1:]
	if body1 != body2 {
		t.Fatalf("the pasted config resolves differently:\n%s\n---\n%s", body1, body2)
	}
}

// resolvedPath is p as config check prints it: on Windows a path rooted
// without a drive is on the config file's drive (docs/configuration.md).
func resolvedPath(cfg, p string) string { return filepath.VolumeName(cfg) + filepath.FromSlash(p) }

// tomlLiteral quotes s as config check writes a string: a TOML literal.
func tomlLiteral(s string) string { return "'" + s + "'" }

// Run as root, config check refuses what the agent and every privileged
// verb refuse (a config others can write), instead of saying OK.
func TestConfigCheckAsRootAppliesTheTrustRules(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("the permission rules apply to a privileged svc-ctl (CI runs as root)")
	}
	cfg, _ := writeConfig(t, "", "")
	if r := svcctl(t, "config", "check", "--config", cfg); r.code != 0 {
		t.Fatalf("config check of a private file: %+v", r)
	}
	if err := os.Chmod(cfg, 0o666); err != nil {
		t.Fatal(err)
	}
	r := svcctl(t, "config", "check", "--config", cfg)
	if r.code != 2 || !strings.Contains(r.stderr, "chmod go-w") || strings.Contains(r.stdout, "OK") {
		t.Fatalf("config check of a file others can write: %+v; want exit 2 naming the fix", r)
	}
}

// TestConfigCheckNamesIncludedSources: config check says what each include
// matched (or that it matched nothing) and which file each table came from,
// and what it prints still loads as one file.
func TestConfigCheckNamesIncludedSources(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "svc-ctl.toml")
	os.MkdirAll(filepath.Join(dir, "conf.d"), 0o700)
	os.WriteFile(cfg, []byte("include = [\"conf.d/*.toml\", \"none/*.toml\"]\n[agent]\nstate_dir = \"state\"\n"), 0o600)
	inc := filepath.Join(dir, "conf.d", "sync.toml")
	os.WriteFile(inc, []byte("[[service]]\nname = \"sync\"\ncommand = [\"/bin/sync\"]\nhealth.tcp = \"127.0.0.1:9000\"\n"), 0o600)
	r := svcctl(t, "config", "check", "--config", cfg)
	if r.code != 0 {
		t.Fatalf("config check: %+v", r)
	}
	for _, want := range []string{`# include "conf.d/*.toml": ` + inc, `# include "none/*.toml" matched no file`,
		"# from " + inc + "\n[[service]]\nname = 'sync'"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("config check lacks %q:\n%s", want, r.stdout)
		}
	}
	pasted := filepath.Join(dir, "pasted.toml")
	os.WriteFile(pasted, []byte(r.stdout), 0o600)
	if again := svcctl(t, "config", "check", "--config", pasted); again.code != 0 || !strings.Contains(again.stdout, "name = 'sync'") {
		t.Fatalf("what config check printed does not load as one file: %+v", again)
	}
}
