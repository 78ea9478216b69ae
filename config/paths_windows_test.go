//go:build windows

package config

import (
	"os"
	"path/filepath"
	"testing"
)

// The state and config defaults follow %ProgramData% (the system agent) and
// %LOCALAPPDATA% (a per-user agent), as the host sets them; without them,
// the places Windows puts them by default. Run under Wine by e2e/windows.
func TestDefaultPathsWindows(t *testing.T) {
	t.Setenv("ProgramData", `D:\Data`)
	t.Setenv("LOCALAPPDATA", `E:\Users\ann\AppData\Local`)
	tests := []struct{ got, want string }{
		{DefaultStateDir(false), `D:\Data\svc-ctl`},
		{DefaultConfigPath(false), `D:\Data\svc-ctl\svc-ctl.toml`},
		{DefaultStateDir(true), `E:\Users\ann\AppData\Local\svc-ctl`},
		{DefaultConfigPath(true), `E:\Users\ann\AppData\Local\svc-ctl\svc-ctl.toml`},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("got %q, want %q", tt.got, tt.want)
		}
	}
	t.Setenv("ProgramData", "")
	t.Setenv("LOCALAPPDATA", "")
	if got := DefaultStateDir(false); got != `C:\ProgramData\svc-ctl` {
		t.Errorf("without %%ProgramData%%: %q, want C:\\ProgramData\\svc-ctl", got)
	}
	home, err := os.UserHomeDir()
	if err != nil {
		t.Fatal(err)
	}
	if got, want := DefaultStateDir(true), filepath.Join(home, "AppData", "Local", "svc-ctl"); got != want {
		t.Errorf("without %%LOCALAPPDATA%%: %q, want %q", got, want)
	}
}
