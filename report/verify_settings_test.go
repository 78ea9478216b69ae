package report

import (
	"context"
	"strings"
	"testing"
	"time"

	"svcctl/config"
)

// verify repeats, one WARN each, the optional service manager settings that
// the service manager does not hold (read back by the caller), and says PASS
// when it holds them all; where nothing was read back there is no line.
func TestVerifyRepeatsServiceSettingWarnings(t *testing.T) {
	cfg := &config.Config{Agent: config.Agent{StateDir: t.TempDir(), Heartbeat: 30 * time.Second}}
	settings := func(i InstallInfo) []Check {
		var out []Check
		for _, c := range Verify(context.Background(), cfg, VerifyEnv{Now: time.Now(), Install: i}).Checks {
			if c.Name == "service manager settings" {
				out = append(out, c)
			}
		}
		return out
	}
	base := InstallInfo{Known: true, Installed: true, Mode: "service", Platform: "windows-service"}

	i := base
	i.SettingsChecked = true
	i.SettingWarnings = []string{"a (FLAG_A) not set: no", "b (FLAG_B) not set: no"}
	got := settings(i)
	if len(got) != 2 || got[0].Status != Warn || got[0].Evidence != i.SettingWarnings[0] || got[1].Status != Warn || got[1].Evidence != i.SettingWarnings[1] {
		t.Errorf("two unsupported settings: %+v, want one WARN line each", got)
	}

	i = base
	i.SettingsChecked = true
	if got := settings(i); len(got) != 1 || got[0].Status != Pass {
		t.Errorf("every setting held: %+v, want one PASS", got)
	}

	i = base
	i.SettingsError = "read recovery on non-crash failures: Access is denied."
	if got := settings(i); len(got) != 1 || got[0].Status != Warn || !strings.Contains(got[0].Evidence, "Access is denied") {
		t.Errorf("settings unreadable: %+v, want a WARN naming why", got)
	}

	for name, i := range map[string]InstallInfo{
		"nothing to check (not Windows)": base,
		"not installed":                  {Known: true, Platform: "windows-service", SettingsChecked: true},
	} {
		if got := settings(i); len(got) != 0 {
			t.Errorf("%s: %+v, want no settings line", name, got)
		}
	}
}
