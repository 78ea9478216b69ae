package config

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

func TestResolve(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	t.Setenv(EnvConfig, "")

	path, src, err := Resolve("conf/a.toml")
	if err != nil || path != filepath.Join(dir, "conf", "a.toml") || src != SourceFlag {
		t.Errorf("Resolve(flag) = %q, %q, %v; want the flag made absolute", path, src, err)
	}

	t.Setenv(EnvConfig, "b.toml")
	path, src, err = Resolve("")
	if err != nil || path != filepath.Join(dir, "b.toml") || src != SourceEnv {
		t.Errorf("Resolve(env) = %q, %q, %v; want $%s made absolute", path, src, err, EnvConfig)
	}
	if path, src, _ = Resolve("c.toml"); src != SourceFlag || path != filepath.Join(dir, "c.toml") {
		t.Errorf("the flag must win over $%s: got %q from %s", EnvConfig, path, src)
	}

	t.Setenv(EnvConfig, "")
	path, src, err = Resolve("")
	if err != nil || path != DefaultConfigPath(UserMode()) || src != SourceDefault || !filepath.IsAbs(path) {
		t.Errorf("Resolve(default) = %q, %q, %v; want DefaultConfigPath(UserMode())", path, src, err)
	}
}

func TestDefaultPathsLinux(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("Linux paths; other systems are checked by cross-compilation only")
	}
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_STATE_HOME", "")
	t.Setenv("XDG_CONFIG_HOME", "")
	tests := []struct{ got, want string }{
		{DefaultStateDir(false), "/var/lib/svc-ctl"},
		{DefaultConfigPath(false), "/etc/svc-ctl/svc-ctl.toml"},
		{DefaultStateDir(true), filepath.Join(home, ".local", "state", "svc-ctl")},
		{DefaultConfigPath(true), filepath.Join(home, ".config", "svc-ctl", "svc-ctl.toml")},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("got %q, want %q", tt.got, tt.want)
		}
	}
	t.Setenv("XDG_STATE_HOME", "/xdg/state")
	t.Setenv("XDG_CONFIG_HOME", "relative/ignored")
	if got := DefaultStateDir(true); got != "/xdg/state/svc-ctl" {
		t.Errorf("with $XDG_STATE_HOME: %q", got)
	}
	if got := DefaultConfigPath(true); got != filepath.Join(home, ".config", "svc-ctl", "svc-ctl.toml") {
		t.Errorf("a relative $XDG_CONFIG_HOME must be ignored: %q", got)
	}
}

func TestUserMode(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("token elevation: checked by cross-compilation only")
	}
	if got, want := UserMode(), os.Geteuid() != 0; got != want {
		t.Errorf("UserMode() = %v with euid %d", got, os.Geteuid())
	}
}
