package svcenv

import (
	"slices"
	"strings"
	"testing"
)

// TestBuildIgnoresCaller: the caller's shell
// environment never reaches a service; env (and env_file, merged into it by
// config) wins over the base.
func TestBuildIgnoresCaller(t *testing.T) {
	t.Setenv("SVCCTL_FROM_SHELL", "leak")
	t.Setenv("PATH", "/home/someone/.pyenv/shims:/usr/bin")
	env := Build(nil, map[string]string{"FROM_CONFIG": "1", "LANG": "de_DE.UTF-8"})
	// Sorted by name: "ProgramFiles(x86)=..." sorts before "ProgramFiles=..."
	// as a whole string ('(' < '='), after it by name (Windows' base).
	if !slices.IsSortedFunc(env, func(a, b string) int { return strings.Compare(name(a), name(b)) }) {
		t.Errorf("not sorted by name: %q", env)
	}
	for _, kv := range env {
		if strings.HasPrefix(kv, "SVCCTL_FROM_SHELL=") || strings.Contains(kv, "pyenv") {
			t.Errorf("the caller's environment leaked: %s", kv)
		}
	}
	if !slices.Contains(env, "FROM_CONFIG=1") {
		t.Errorf("env missing: %q", env)
	}
	if again := Build(nil, map[string]string{"FROM_CONFIG": "1", "LANG": "de_DE.UTF-8"}); !slices.Equal(env, again) {
		t.Errorf("not deterministic:\n%q\n%q", env, again)
	}
	names := Names(nil, map[string]string{"FROM_CONFIG": "1"})
	if !slices.Contains(names, "FROM_CONFIG") || !slices.IsSorted(names) {
		t.Errorf("Names = %q", names)
	}
}

func name(kv string) string { k, _, _ := strings.Cut(kv, "="); return k }

func TestLocaleFrom(t *testing.T) {
	if got := localeFrom("# x\nLANG=\"en_GB.UTF-8\"\nLC_TIME=C\n"); got != "en_GB.UTF-8" {
		t.Errorf("localeFrom = %q", got)
	}
	if got := localeFrom("LC_ALL=C\n"); got != "" {
		t.Errorf("localeFrom without LANG = %q", got)
	}
}
